"""QuoteInspector: the selected (or hovered) quotation, with its corrections.

Run alone on the sample: ``python -m litlens.gui.inspector``.
"""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QCompleter,
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
from litlens.gui.style import TYPE_COLOURS, TYPE_LABELS, WrappedLabel, signals_blocked

NOBODY = "— unknown —"
_NAVIGATION_KEYS = {Qt.Key.Key_Up, Qt.Key.Key_Down, Qt.Key.Key_PageUp, Qt.Key.Key_PageDown, Qt.Key.Key_Home,
                    Qt.Key.Key_End}


class SpeakerBox(QComboBox):
    """The speaker choice: names sorted, type to search (any part of a name), and a change is
    committed only on Enter or a click in the list, never while arrow keys or the wheel pass over names."""

    committed = Signal(object)  # the chosen name, or None for nobody

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setEditable(True)
        self.setInsertPolicy(QComboBox.InsertPolicy.NoInsert)
        self.setMaxVisibleItems(20)
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)  # the wheel over it scrolls the panel instead
        completer = QCompleter(self.model(), self)
        completer.setCompletionMode(QCompleter.CompletionMode.PopupCompletion)
        completer.setFilterMode(Qt.MatchFlag.MatchContains)
        completer.setCaseSensitivity(Qt.CaseSensitivity.CaseInsensitive)
        self.setCompleter(completer)
        self.lineEdit().setPlaceholderText("type to search")
        self._navigating = False
        self.activated.connect(self._on_activated)
        completer.activated[str].connect(self._on_completion_chosen)

    def set_names(self, names: list[str], current: str | None) -> None:
        """Fill with ``names`` sorted (nobody first) and show ``current``; commits nothing."""
        with signals_blocked(self):
            self.clear()
            self.addItem(NOBODY, None)
            for name in sorted(set(names) | ({current} if current else set()), key=str.casefold):
                self.addItem(name, name)
            self.show_name(current)

    def show_name(self, name: str | None) -> None:
        with signals_blocked(self):
            self.setCurrentIndex(max(self.findData(name), 0))

    def chosen(self) -> str | None | bool:
        """The name the typed text means (exact, else the only or first name containing it); False: none."""
        text = self.currentText().strip()
        if text in ("", NOBODY):
            return None
        names = [self.itemData(i) for i in range(1, self.count())]
        exact = [n for n in names if n.casefold() == text.casefold()]
        if exact:
            return exact[0]
        partial = [n for n in names if text.casefold() in n.casefold()]
        return partial[0] if partial else False

    def keyPressEvent(self, event) -> None:  # noqa: N802 (Qt API)
        if event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
            name = self.chosen()
            if name is not False:
                self.show_name(name)
                self.committed.emit(name)
            event.accept()
            return
        if event.key() in _NAVIGATION_KEYS:
            self._navigating = True  # the box shows the next name; Enter commits it
            try:
                super().keyPressEvent(event)
            finally:
                self._navigating = False
            return
        super().keyPressEvent(event)

    def wheelEvent(self, event) -> None:  # noqa: N802 (Qt API)
        event.ignore()  # never change a speaker by scrolling past the box

    def _on_activated(self, index: int) -> None:
        if not self._navigating:  # a click (or Enter) in the drop-down list
            self.committed.emit(self.itemData(index))

    def _on_completion_chosen(self, text: str) -> None:
        i = self.findText(text)
        if i >= 0:
            self.show_name(self.itemData(i))
            self.committed.emit(self.itemData(i))



class QuoteInspector(QWidget):
    def __init__(self, state: BookState, parent: QWidget | None = None):
        super().__init__(parent)
        self.state = state
        self.row: QuoteRow | None = None
        self._shown: int | None = None  # id of the quotation the speaker box was filled for
        # wrapped labels that keep the panel its real height: a laptop's dock shows the buttons
        self.heading = WrappedLabel("Click a quotation in the text")
        self.type_box = QComboBox()
        for quote_type in QUOTE_TYPES:
            self.type_box.addItem(TYPE_LABELS[quote_type], quote_type)
        self.speaker_box = SpeakerBox()
        self.speaker_box.setToolTip("Type part of a name, then Enter; or pick from the list")
        self.referring = WrappedLabel()
        self.addressees = WrappedLabel()
        self.chapter = WrappedLabel()  # "1 · Chapter I. Mrs. Rachel Lynde is Surprised" wraps, not widens
        self.origin = WrappedLabel()
        for label in (self.referring, self.addressees, self.origin):
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
        self.speaker_box.committed.connect(self._on_speaker_committed)
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
        names = state.session.character_names() if state.session is not None else []
        q = row.quotation if row is not None else None
        typing = self.speaker_box.hasFocus() and self._shown == (row and row.id) and self.speaker_box.count() > 1
        if not typing:  # never wipe what the user is typing when the mouse passes over another quotation
            self.speaker_box.set_names(names, q.speaker if q else None)
        self._shown = row.id if row is not None else None
        if row is None:
            self.heading.setText("Click a quotation in the text to inspect and correct it.")
            for label in (self.referring, self.addressees, self.chapter, self.origin):
                label.setText("")
            self.parts.clear()
            return
        with signals_blocked(self.type_box):
            self.type_box.setCurrentIndex(QUOTE_TYPES.index(q.type))
        colour = TYPE_COLOURS[q.type]
        mode = "selected" if editable else "under the mouse"
        self.heading.setText(f"<b style='color:{colour}'>■</b> Quotation {row.id} ({mode})")
        self.referring.setText(q.referring_expression or "— none (implicit) —")
        self.addressees.setText(", ".join(q.addressees) or "—")
        self.chapter.setText(state.chapter_label(q.chapter))
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

    def _on_speaker_committed(self, name: str | None) -> None:
        if self.row is not None and self.speaker_box.isEnabled() and name != self.row.quotation.speaker:
            self.state.edit("set_quote_speaker", self.row.id, name)

    def _on_delete_clicked(self) -> None:
        if self.row is not None:
            quote_id = self.row.id
            self.state.select(None)
            self.state.edit("reject_quote", quote_id)


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\n", " ")


if __name__ == "__main__":
    from litlens.gui.preview import preview

    preview(QuoteInspector, "inspector")
