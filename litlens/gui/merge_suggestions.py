"""SuggestMergesDialog: pairs of characters that may be one person, merged with one click.

The suggestions come from :func:`litlens.services.books.merge_suggestions` (the name rules,
the learned same-person step and the dialogue), computed off the GUI thread with a progress bar and a
Cancel button. Each row says which character would be folded into which and why ("names":
the name rules put both in one person; what the dialogue shows, such as a first name a
husband calls his wife by; else the same-person probability). Ticked rows are
merged through the window's edits, so each merge is stored at once and can be undone.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDialog,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QProgressBar,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from litlens.gui.state import BookState
from litlens.gui.workers import TaskRunner

COLUMNS = ["Merge", "Into", "Why"]


def _why(suggestion: dict) -> str:
    if suggestion["reason"] == "names":
        return "the names are one person's"
    if suggestion.get("evidence"):
        return suggestion["evidence"]
    return f"{suggestion['probability']:.0%} likely one person"


class SuggestMergesDialog(QDialog):
    def __init__(self, state: BookState, parent: QWidget | None = None):
        super().__init__(parent)
        self.setWindowTitle("Characters that may be one person")
        self.state = state
        self.suggestions: list[dict] = []
        self.runner = TaskRunner(self)
        self.table = QTableWidget(0, len(COLUMNS))
        self.table.setHorizontalHeaderLabels(COLUMNS)
        self.table.verticalHeader().hide()
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.NoSelection)
        header = self.table.horizontalHeader()
        for column in range(len(COLUMNS) - 1):  # the names take what they need, "Why" the rest
            header.setSectionResizeMode(column, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(len(COLUMNS) - 1, QHeaderView.ResizeMode.Stretch)
        self.table.setWordWrap(True)
        self.message = QLabel("")
        self.message.setWordWrap(True)
        self.progress = QProgressBar(maximum=1000)
        self.cancel_button = QPushButton("Cancel")
        self.merge_button = QPushButton("Merge ticked")
        self.merge_button.setEnabled(False)
        close = QPushButton("Close")
        bottom = QHBoxLayout()
        bottom.addWidget(self.progress, 1)
        bottom.addWidget(self.cancel_button)
        bottom.addStretch(1)
        bottom.addWidget(self.merge_button)
        bottom.addWidget(close)
        layout = QVBoxLayout(self)
        intro = QLabel("Tick the pairs that are one person; the first is folded into the second "
                       "(its aliases and speech move over; Edit ▸ Undo takes a merge back).")
        intro.setWordWrap(True)
        layout.addWidget(intro)
        layout.addWidget(self.table, 1)
        layout.addWidget(self.message)
        layout.addLayout(bottom)
        self.resize(620, 420)

        self.cancel_button.clicked.connect(self.runner.cancel)
        self.merge_button.clicked.connect(self.merge_ticked)
        close.clicked.connect(self.reject)
        self.runner.progress.connect(lambda f, m: (self.progress.setValue(int(f * 1000)), self.message.setText(m)))
        self.runner.finished.connect(lambda name, result: self._show(result))
        self.runner.failed.connect(lambda name, message: self._end(message.splitlines()[0]))
        self.runner.cancelled.connect(lambda name: self._end("Cancelled; nothing was changed."))

    def start(self) -> None:
        """Compute the suggestions for the open book in the background."""
        session = self.state.session
        if session is None:
            self._end("Open a book first.")
            return
        from litlens.services.books import merge_suggestions

        path, book_id = session.path, session.book_id
        self.progress.setValue(0)
        self.progress.show()
        self.cancel_button.show()
        self.message.setText("Reading the names of the book…")
        self.runner.start("Suggesting merges",
                          lambda progress, cancelled: merge_suggestions(path, book_id, progress=progress, cancelled=cancelled))

    def _end(self, message: str) -> None:
        self.progress.hide()
        self.cancel_button.hide()
        self.message.setText(message)

    def _show(self, suggestions: object) -> None:
        self.suggestions = list(suggestions)  # type: ignore[call-overload]
        self.table.setRowCount(len(self.suggestions))
        for r, s in enumerate(self.suggestions):
            fold = QTableWidgetItem(s["fold"])
            fold.setFlags(Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsUserCheckable)
            fold.setCheckState(Qt.CheckState.Unchecked)
            self.table.setItem(r, 0, fold)
            self.table.setItem(r, 1, QTableWidgetItem(s["keep"]))
            why = QTableWidgetItem(_why(s))
            why.setToolTip(_why(s))
            self.table.setItem(r, 2, why)
        self.table.resizeRowsToContents()  # a long reason wraps onto more lines
        self.merge_button.setEnabled(bool(self.suggestions))
        n = len(self.suggestions)
        self._end(f"{n} pair{'s' if n != 1 else ''} to look at." if n else "No two characters look like one person.")

    def tick(self, row: int, on: bool = True) -> None:
        self.table.item(row, 0).setCheckState(Qt.CheckState.Checked if on else Qt.CheckState.Unchecked)

    def merge_ticked(self) -> int:
        """Merge every ticked pair (a character merged away earlier in the list is followed to
        where it went); returns the number of merges made."""
        went: dict[int, int] = {}

        def where(character_id: int) -> int:
            while character_id in went:
                character_id = went[character_id]
            return character_id

        done = 0
        for r, s in enumerate(self.suggestions):
            if self.table.item(r, 0).checkState() != Qt.CheckState.Checked:
                continue
            fold, keep = where(int(s["fold_id"])), where(int(s["keep_id"]))
            if fold == keep:
                continue
            if self.state.edit("merge_characters", fold, keep):
                went[fold] = keep
                done += 1
        self.message.setText(f"{done} merged.")
        if done:
            self.accept()
        return done

    def done(self, result: int) -> None:  # closing cancels a computation still running
        self.runner.cancel()
        super().done(result)
