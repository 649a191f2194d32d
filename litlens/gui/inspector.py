"""QuoteInspector: the selected (or hovered) quotation, with its corrections.

Run alone on the sample: ``python -m litlens.gui.inspector``.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QComboBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from litlens.model import QUOTE_TYPES
from litlens.services.session import QuoteRow
from litlens.gui.state import BookState
from litlens.gui.style import TYPE_COLOURS, TYPE_LABELS, signals_blocked

NOBODY = "— unknown —"


class QuoteInspector(QWidget):
    def __init__(self, state: BookState, parent: QWidget | None = None):
        super().__init__(parent)
        self.state = state
        self.row: QuoteRow | None = None
        self.heading = QLabel("Click a quotation in the text")
        self.heading.setWordWrap(True)
        self.type_box = QComboBox()
        for quote_type in QUOTE_TYPES:
            self.type_box.addItem(TYPE_LABELS[quote_type], quote_type)
        self.speaker_box = QComboBox()
        self.referring = QLabel()
        self.addressees = QLabel()
        self.chapter = QLabel()
        self.origin = QLabel()
        for label in (self.referring, self.addressees, self.origin):
            label.setWordWrap(True)
            label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.parts = QTextBrowser()
        self.parts.setMinimumHeight(72)
        self.delete_button = QPushButton("Delete quotation")
        self.delete_button.setToolTip("This is not direct speech: remove it (undo with Ctrl+Z)")
        self.jump_button = QPushButton("Show in text")

        form = QFormLayout()
        form.addRow("Type:", self.type_box)
        form.addRow("Speaker:", self.speaker_box)
        form.addRow("Referring expression:", self.referring)
        form.addRow("Addressees:", self.addressees)
        form.addRow("Chapter:", self.chapter)
        form.addRow("Origin:", self.origin)
        buttons = QHBoxLayout()
        buttons.addWidget(self.jump_button)
        buttons.addWidget(self.delete_button)
        layout = QVBoxLayout(self)
        layout.addWidget(self.heading)
        layout.addLayout(form)
        layout.addWidget(QLabel("Sub-quotations:"))
        layout.addWidget(self.parts, 1)
        layout.addLayout(buttons)

        self.type_box.currentIndexChanged.connect(self._on_type_changed)
        self.speaker_box.currentIndexChanged.connect(self._on_speaker_changed)
        self.delete_button.clicked.connect(self._on_delete_clicked)
        self.jump_button.clicked.connect(lambda: self.row and self.state.jump_requested.emit(self.row.start))
        state.selection_changed.connect(self.refresh)
        state.hover_changed.connect(self.refresh)
        state.data_changed.connect(self.refresh)
        state.book_changed.connect(self.refresh)
        self.refresh()

    def refresh(self) -> None:
        state = self.state
        row = state.selected or state.hovered
        if row is not None and state.session is not None:
            row = state.session.quote(row.id)  # the stored version, after any edit
        self.row = row
        editable = row is not None and row is state.selected or (
            row is not None and state.selected is not None and row.id == state.selected.id
        )
        for widget in (self.type_box, self.speaker_box, self.delete_button, self.jump_button):
            widget.setEnabled(bool(editable))
        with signals_blocked(self.type_box), signals_blocked(self.speaker_box):
            self.speaker_box.clear()
            self.speaker_box.addItem(NOBODY, None)
            if state.session is not None:
                for name in state.session.character_names():
                    self.speaker_box.addItem(name, name)
            if row is None:
                self.heading.setText("Click a quotation in the text to inspect and correct it.")
                for label in (self.referring, self.addressees, self.chapter, self.origin):
                    label.setText("")
                self.parts.clear()
                return
            q = row.quotation
            self.type_box.setCurrentIndex(QUOTE_TYPES.index(q.type))
            i = self.speaker_box.findData(q.speaker)
            if i < 0 and q.speaker:
                self.speaker_box.addItem(q.speaker, q.speaker)
                i = self.speaker_box.count() - 1
            self.speaker_box.setCurrentIndex(max(i, 0))
        colour = TYPE_COLOURS[q.type]
        mode = "selected" if editable else "under the mouse"
        self.heading.setText(f"<b style='color:{colour}'>■</b> Quotation {row.id} ({mode})")
        self.referring.setText(q.referring_expression or "— none (implicit) —")
        self.addressees.setText(", ".join(q.addressees) or "—")
        number = state.session.chapter_number(q.chapter) if state.session else None
        self.chapter.setText("—" if number is None else str(number))
        confidence = f", confidence {q.speaker_confidence:.2f}" if q.speaker_confidence is not None else ""
        origin = {"detected": "found by LitLens", "gold": "PDNC gold annotation", "human": "marked by hand"}.get(
            q.origin, q.origin)
        self.origin.setText(origin + (" · corrected by hand" if q.edited else "") + confidence)
        text = state.session.text
        self.parts.setHtml("".join(
            f"<p><b>{n}.</b> “{_escape(text[s:e])}” <span style='color:gray'>[{s}–{e}]</span></p>"
            for n, (s, e) in enumerate(q.spans, 1)
        ))

    def _on_type_changed(self) -> None:
        if self.row is not None:
            self.state.edit("set_quote_type", self.row.id, self.type_box.currentData())

    def _on_speaker_changed(self) -> None:
        if self.row is not None:
            self.state.edit("set_quote_speaker", self.row.id, self.speaker_box.currentData())

    def _on_delete_clicked(self) -> None:
        if self.row is not None:
            quote_id = self.row.id
            self.state.select(None)
            self.state.edit("reject_quote", quote_id)


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\n", " ")


if __name__ == "__main__":
    from litlens.gui.app import preview

    preview("inspector")
