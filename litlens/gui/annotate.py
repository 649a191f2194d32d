"""The annotator's window: pick your name, work through your queue with the keyboard.

Keys: 1/2/3 (proxy) or 1–5 (Likert) choose, Enter confirms (the judgment is committed to
the project file before the next item appears), S skips (skipped items come back at the
end), Ctrl+Z takes back the last answer or skip, N jumps to the note field (Esc leaves it),
PageUp/PageDown scroll a long passage. Only this annotator's own answers are ever read: the
view is blind to the others.

Every passage shown is an excerpt and is marked so ("…" where it is cut mid-sentence), and
the item names its source: the novel when the study knows it, else the data set it came from.

Run alone: ``python -m litlens.gui.annotate [PROJECT] [--study NAME --annotator NAME] [--screenshot OUT.png]``.
"""

from __future__ import annotations

import html
import time
from pathlib import Path

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QComboBox,
    QFrame,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QMessageBox,
    QPushButton,
    QSizePolicy,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from litlens.errors import LitLensError
from litlens.services.studies import AnnotationSession, list_studies, study_status

BASE_POINT_SIZE = 13  # readable without zoom; everything scales from the system font when larger
MASK = "[masked sentence(s)]"
ELLIPSIS = "…"
SENTENCE_END = tuple(".!?\"'”’)]:;—…")


def as_excerpt(text: str) -> str:
    """``text`` with "…" where it starts or ends mid-sentence (it is cut from a longer text)."""
    text = " ".join(text.split())
    if not text:
        return text
    head = "" if text[0].isupper() or text[0] in "\"'“‘([" or text[0].isdigit() else ELLIPSIS + " "
    tail = "" if text.endswith(SENTENCE_END) else " " + ELLIPSIS
    return head + text + tail


def source_of(study, data: dict) -> str:
    """What the item's passages come from: the novel when known, else the study's data set."""
    for key in ("book", "title", "novel"):
        if data.get(key):
            return f"<i>{html.escape(str(data[key]))}</i>"
    source = (study.source or "").strip()
    if source.startswith("pinned evidence"):
        return "the project's novel (pinned evidence)"
    name = Path(source).name if source else "unknown data"
    return f"a novel not named in the data set <code>{html.escape(name)}</code>"


class ChoiceCard(QFrame):
    """One candidate or rubric level: a big number and wrapped text; click or press the number."""

    clicked = Signal()

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.setCursor(Qt.CursorShape.PointingHandCursor)
        self.number = QLabel()
        font = self.number.font()
        font.setPointSize(font.pointSize() + 6)
        font.setBold(True)
        self.number.setFont(font)
        self.number.setFixedWidth(36)
        self.number.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignHCenter)
        self.label = QLabel()
        text_font = self.label.font()
        text_font.setPointSize(max(text_font.pointSize(), BASE_POINT_SIZE))
        self.label.setFont(text_font)
        self.label.setWordWrap(True)
        self.label.setTextInteractionFlags(Qt.TextInteractionFlag.NoTextInteraction)
        self.label.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        row = QHBoxLayout(self)
        row.addWidget(self.number)
        row.addWidget(self.label, 1)
        self.setChecked(False)

    def setText(self, number: str, text: str) -> None:  # noqa: N802 (Qt naming)
        self.number.setText(number)
        self.label.setText(text)
        self.setAccessibleName(f"choice {number}: {text}")

    def text(self) -> str:
        return self.label.text()

    def setChecked(self, on: bool) -> None:  # noqa: N802
        self.checked = on
        self.setStyleSheet("ChoiceCard { background: #0072B2; border-radius: 4px; } QLabel { color: white; }" if on
                           else "ChoiceCard { background: white; border: 1px solid #bbb; border-radius: 4px; }")

    def mousePressEvent(self, event) -> None:  # noqa: N802
        if self.isEnabled():
            self.clicked.emit()


class AnnotatorView(QWidget):
    """One annotator's queue: the task, the choices, progress, skip, undo, a note."""

    judgment_recorded = Signal(str)  # uid of the committed event
    queue_finished = Signal()

    def __init__(self, project_path: str | Path | None = None, parent: QWidget | None = None):
        super().__init__(parent)
        self.setWindowTitle("LitLens — annotate")
        font = self.font()
        font.setPointSize(max(font.pointSize(), BASE_POINT_SIZE))
        self.setFont(font)
        self.project_path: Path | None = None
        self.session: AnnotationSession | None = None
        self.index: int | None = None
        self.selected: int | None = None
        self._shown_at = time.monotonic()
        self.show_dialogs = True
        self.last_error: str | None = None

        self.study_box = QComboBox()
        self.study_box.setAccessibleName("Study")
        self.annotator_box = QComboBox()
        self.annotator_box.setAccessibleName("Your name")
        self.start_button = QPushButton("Start")
        self.progress_label = QLabel("")
        self.progress_label.setAccessibleName("Progress")
        top = QHBoxLayout()
        for label, widget in (("Study", self.study_box), ("Your name", self.annotator_box)):
            top.addWidget(QLabel(label))
            top.addWidget(widget, 1)
        top.addWidget(self.start_button)
        top.addStretch(1)
        top.addWidget(self.progress_label)

        self.task = QTextBrowser()
        self.task.setOpenLinks(False)
        self.task.setAccessibleName("Task")
        self.task.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.choices_box = QVBoxLayout()
        self.choice_buttons: list[ChoiceCard] = []
        self.note = QLineEdit()
        self.note.setPlaceholderText("Note (optional) — press N to write, Enter to confirm, Esc to leave")
        self.note.setAccessibleName("Note")
        self.hint = QLabel("Keys: number = choose · Enter = confirm · S = skip · Ctrl+Z = undo · N = note · "
                           "PgUp/PgDn = scroll the passage")
        self.hint.setStyleSheet(f"color: #444; font-size: {BASE_POINT_SIZE - 1}pt;")
        self.skip_button = QPushButton("Skip (S)")
        self.undo_button = QPushButton("Undo (Ctrl+Z)")
        self.confirm_button = QPushButton("Confirm (Enter)")
        for b in (self.skip_button, self.undo_button, self.confirm_button):
            b.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        bottom = QHBoxLayout()
        bottom.addWidget(self.hint, 1)
        bottom.addWidget(self.undo_button)
        bottom.addWidget(self.skip_button)
        bottom.addWidget(self.confirm_button)

        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addWidget(self.task, 3)
        layout.addLayout(self.choices_box, 2)
        layout.addWidget(self.note)
        layout.addLayout(bottom)

        self.study_box.currentIndexChanged.connect(self._on_study_changed)
        self.start_button.clicked.connect(self._on_start_clicked)
        self.confirm_button.clicked.connect(self.confirm)
        self.skip_button.clicked.connect(self.skip)
        self.undo_button.clicked.connect(self.undo)
        self.note.returnPressed.connect(self.confirm)
        QShortcut(QKeySequence("Ctrl+Z"), self, activated=self.undo, context=Qt.ShortcutContext.WindowShortcut)
        QShortcut(QKeySequence(Qt.Key.Key_Escape), self.note, activated=self.setFocus,
                  context=Qt.ShortcutContext.WidgetShortcut)
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self._set_enabled(False)
        if project_path is not None:
            self.open_project(project_path)

    # -- choosing who and what --------------------------------------------------------------
    def open_project(self, project_path: str | Path) -> None:
        self.project_path = Path(project_path)
        try:
            studies = list_studies(self.project_path)
        except LitLensError as exc:
            self._error(str(exc))
            return
        self.study_box.clear()
        for s in studies:
            self.study_box.addItem(f"{s['name']} ({s['kind']}, {s['items']} items)", s["name"])
        if not studies:
            self.task.setHtml("<p>This project has no studies yet. A study lead creates one with "
                              "<b>Studies ▸ New study…</b> or <code>litlens study create-proxy</code>.</p>")

    def _on_study_changed(self) -> None:
        self.annotator_box.clear()
        name = self.study_box.currentData()
        if name is None or self.project_path is None:
            return
        try:
            status = study_status(self.project_path, name)
        except LitLensError as exc:
            self._error(str(exc))
            return
        for annotator in status["annotators"]:
            self.annotator_box.addItem(annotator)

    def _on_start_clicked(self) -> None:
        study, annotator = self.study_box.currentData(), self.annotator_box.currentText()
        if study and annotator:
            self.start(study, annotator)

    def start(self, study: str, annotator: str) -> None:
        if self.session is not None:
            self.session.close()
        try:
            self.session = AnnotationSession.open(self.project_path, study, annotator)
        except LitLensError as exc:
            self._error(str(exc))
            return
        self.setWindowTitle(f"LitLens — annotate {study} as {annotator}")
        self._build_choices()
        self._set_enabled(True)
        self.index = None
        self._go(self.session.next_index(-1))
        self.setFocus()

    def _build_choices(self) -> None:
        for b in self.choice_buttons:
            b.deleteLater()
        self.choice_buttons = []
        for value in self.session.study.scale:
            button = ChoiceCard()
            button.clicked.connect(lambda v=value: self.choose(v))
            self.choices_box.addWidget(button)
            self.choice_buttons.append(button)

    # -- showing an item ------------------------------------------------------------------------
    def _go(self, index: int | None) -> None:
        self.index = index
        self.selected = None
        self.note.clear()
        self._shown_at = time.monotonic()
        s = self.session
        self.progress_label.setText(f"{s.done} of {len(s.queue)} done")
        if index is None:
            self.task.setHtml(f"<h2>All done — thank you.</h2><p>{s.done} of {len(s.queue)} items answered. "
                              "Ctrl+Z takes back your last answer.</p>")
            for b in self.choice_buttons:
                b.setText("", "")
                b.setEnabled(False)
            self.queue_finished.emit()
            return
        entry = s.queue[index]
        item = entry.item
        self.progress_label.setText(f"Item {index + 1} of {len(s.queue)} · {s.done} done")
        source = f"<p style='color:#555'>Source: {source_of(s.study, item.data)}</p>"
        if s.study.kind == "proxy":
            context = html.escape(item.data.get("context", ""))
            context = context.replace(html.escape(MASK), "<span style='background:#F0E442;'><b>[ ? ]</b></span>")
            instructions = html.escape(s.study.instructions.replace(MASK, "[ ? ]"))
            label = "Claim" if item.data.get("claim") else "Excerpt (cut from a longer text)"
            self.task.setHtml(f"{source}<p style='color:#555'>{instructions}</p>"
                              f"<p style='color:#555; font-size:small'><b>{label}</b></p>"
                              f"<p style='line-height:140%; margin-left:8px'>{context}</p>")
            for n, (button, option) in enumerate(zip(self.choice_buttons, item.options), start=1):
                button.setText(str(n), as_excerpt(option["text"]))
                button.setAccessibleName(f"choice {n}, an excerpt: {option['text']}")
        else:
            refs = "".join(f"<li>{html.escape(r)}</li>" for r in item.data.get("references", []))
            summary = ""
            if item.data.get("mode") == "summary" and item.data.get("summary"):
                summary = f"<h4>Book summary</h4><p>{html.escape(item.data['summary'])}</p>"
            self.task.setHtml(
                f"{source}"
                f"<h3>{html.escape(item.data['question'])}</h3><h4>Reference answers</h4><ul>{refs}</ul>"
                f"<h4>Answer to rate</h4><p style='font-size:120%; background:#eef5fb; padding:6px'>"
                f"{html.escape(item.data['answer'])}</p>{summary}")
            import json

            rubric = json.loads(s.study.instructions) if s.study.instructions.startswith("{") else {}
            for button, value in zip(self.choice_buttons, s.study.scale):
                button.setText(str(value), rubric.get(str(value), ""))
        for b in self.choice_buttons:
            b.setEnabled(True)
            b.setChecked(False)
        if entry.value is not None:
            self.choose(entry.value)

    # -- actions ------------------------------------------------------------------------------
    def choose(self, value: object) -> None:
        if self.session is None or self.index is None or value not in self.session.study.scale:
            return
        self.selected = value
        for button, v in zip(self.choice_buttons, self.session.study.scale):
            button.setChecked(v == value)

    def confirm(self) -> None:
        if self.session is None or self.index is None or self.selected is None:
            return
        try:
            event = self.session.answer(self.index, self.selected, note=self.note.text().strip(),
                                        duration_ms=int((time.monotonic() - self._shown_at) * 1000))
        except LitLensError as exc:
            self._error(str(exc))
            return
        self.judgment_recorded.emit(event.uid)
        self._go(self.session.next_index(self.index))
        self.setFocus()

    def skip(self) -> None:
        if self.session is None or self.index is None:
            return
        try:
            event = self.session.skip(self.index, note=self.note.text().strip(),
                                      duration_ms=int((time.monotonic() - self._shown_at) * 1000))
        except LitLensError as exc:
            self._error(str(exc))
            return
        self.judgment_recorded.emit(event.uid)
        self._go(self.session.next_index(self.index))

    def undo(self) -> None:
        if self.session is None:
            return
        try:
            index = self.session.undo()
        except LitLensError as exc:
            self._error(str(exc))
            return
        if index is not None:
            self.judgment_recorded.emit("undo")
            self._go(index)

    def scroll_task(self, pages: int) -> None:
        """Scroll the passage by ``pages`` screens (PageUp/PageDown), keeping the focus where it is."""
        bar = self.task.verticalScrollBar()
        bar.setValue(bar.value() + pages * bar.pageStep())

    def keyPressEvent(self, event) -> None:  # noqa: N802 (Qt API)
        key = event.key()
        if key in (Qt.Key.Key_PageUp, Qt.Key.Key_PageDown) and not self.note.hasFocus():
            self.scroll_task(-1 if key == Qt.Key.Key_PageUp else 1)
            return
        if self.session is not None and self.index is not None and not self.note.hasFocus():
            if Qt.Key.Key_1 <= key <= Qt.Key.Key_9:
                scale = self.session.study.scale
                n = key - Qt.Key.Key_1
                if n < len(scale):
                    self.choose(scale[n])
                return
            if key in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
                self.confirm()
                return
            if key == Qt.Key.Key_S and not event.modifiers():
                self.skip()
                return
            if key == Qt.Key.Key_N and not event.modifiers():
                self.note.setFocus()
                return
        super().keyPressEvent(event)

    def _set_enabled(self, on: bool) -> None:
        for w in (self.note, self.skip_button, self.undo_button, self.confirm_button):
            w.setEnabled(on)

    def _error(self, message: str) -> None:
        self.last_error = message
        if self.show_dialogs:
            QMessageBox.warning(self, "LitLens", message)

    def closeEvent(self, event) -> None:  # noqa: N802
        if self.session is not None:
            self.session.close()
            self.session = None
        super().closeEvent(event)


if __name__ == "__main__":
    from litlens.gui.study_preview import preview_study_panel

    preview_study_panel("annotate")
