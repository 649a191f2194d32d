"""Finding one's way in the reader: the Ctrl+F search bar ("3 of 47", next and previous)
and the chapter navigator (a click jumps there; the chapter on screen stays selected)."""

from __future__ import annotations

import bisect
import re
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QHBoxLayout, QLabel, QLineEdit, QListWidget, QListWidgetItem, QToolButton, QWidget

from litlens.services.books import chapter_heading, chapter_label
from litlens.gui.state import BookState
from litlens.gui.style import signals_blocked

if TYPE_CHECKING:
    from litlens.gui.reader import ReaderView


class SearchBar(QWidget):
    """Ctrl+F search with next / previous and "3 of 47"; a search with no match moves nothing."""

    def __init__(self, view: ReaderView, parent: QWidget | None = None):
        super().__init__(parent)
        self.view = view
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        self.field = QLineEdit(placeholderText="Search the text (Enter: next, Shift+Enter: previous)")
        self.status = QLabel("")
        self.status.setMinimumWidth(90)
        previous = QToolButton(text="◀", toolTip="Previous match (Shift+Enter)")
        following = QToolButton(text="▶", toolTip="Next match (Enter)")
        close = QToolButton(text="✕", toolTip="Close search (Esc)")
        for widget in (QLabel("Find:"), self.field, previous, following, self.status, close):
            layout.addWidget(widget)
        self.matches: list[int] = []  # str offsets of every match of the field's text
        self.current = -1  # index into matches of the one shown
        self._needle: str | None = ""
        self.field.returnPressed.connect(self.find_next)
        self.field.textChanged.connect(self._on_text_changed)
        view.state.book_changed.connect(self._on_book_changed)
        previous.clicked.connect(self.find_previous)
        following.clicked.connect(self.find_next)
        close.clicked.connect(self.hide)
        self.addAction(QAction(self, shortcut=QKeySequence("Shift+Return"), triggered=self.find_previous,
                               shortcutContext=Qt.ShortcutContext.WidgetWithChildrenShortcut))
        self.addAction(QAction(self, shortcut=QKeySequence("Escape"), triggered=self.hide,
                               shortcutContext=Qt.ShortcutContext.WidgetWithChildrenShortcut))

    def open(self) -> None:
        self.show()
        self.field.setFocus()
        self.field.selectAll()

    def find_next(self) -> bool:
        return self._find(+1)

    def find_previous(self) -> bool:
        return self._find(-1)

    def _count(self) -> None:
        needle = self.field.text()
        if needle == self._needle:
            return
        self._needle = needle
        self.current = -1
        session = self.view.state.session
        if not needle or session is None:
            self.matches = []
        else:
            self.matches = [m.start() for m in re.finditer(re.escape(needle), session.text, re.IGNORECASE)]

    def _on_book_changed(self) -> None:
        self._needle = None  # count again in the new text
        self._on_text_changed()

    def _on_text_changed(self) -> None:
        self._count()
        self._show_status()

    def _find(self, direction: int) -> bool:
        self._count()
        if not self.matches:
            self._show_status()
            return False  # the view stays where it was
        cursor = self.view.textCursor()
        here = self.view.offsets.from_qt(cursor.selectionStart() if cursor.hasSelection() else cursor.position())
        if self.current >= 0 and self.matches[self.current] == here:
            i = (self.current + direction) % len(self.matches)
        elif direction > 0:
            i = bisect.bisect_right(self.matches, here) if cursor.hasSelection() else bisect.bisect_left(self.matches, here)
            i %= len(self.matches)
        else:
            i = (bisect.bisect_left(self.matches, here) - 1) % len(self.matches)
        self.current = i
        start = self.matches[i]
        self.view.scroll_to(start, start + len(self._needle))
        self._show_status()
        return True

    def _show_status(self) -> None:
        if not self._needle:
            self.status.setText("")
        elif not self.matches:
            self.status.setText("not found")
        elif self.current < 0:
            self.status.setText(f"{len(self.matches):,} matches")
        else:
            self.status.setText(f"{self.current + 1:,} of {len(self.matches):,}")
        bad = bool(self._needle) and not self.matches
        self.field.setStyleSheet("QLineEdit { background: #FDE2E2; }" if bad else "")


class ChapterNavigator(QListWidget):
    """The book's chapters; a click (or Enter) jumps there, and the chapter on screen stays selected."""

    def __init__(self, state: BookState, parent: QWidget | None = None):
        super().__init__(parent)
        self.state = state
        self.state.book_changed.connect(self.load)
        self.state.data_changed.connect(self.load)
        self.itemActivated.connect(self._on_item_chosen)
        self.itemClicked.connect(self._on_item_chosen)
        self.setMinimumWidth(170)
        self.setTextElideMode(Qt.TextElideMode.ElideRight)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)  # elide long titles instead
        self._items: dict[int, QListWidgetItem] = {}  # chapter index -> its row

    def load(self) -> None:
        with signals_blocked(self):
            self.clear()
            self._items = {}
            session = self.state.session
            if session is None:
                return
            counts = [0] * len(session.chapters)
            for row in session.quotes:
                if row.quotation.chapter is not None and row.quotation.chapter < len(counts):
                    counts[row.quotation.chapter] += 1
            part = ""
            for chapter, n in zip(session.chapters, counts):
                *parents, _own = chapter.title.strip().split(" / ")  # "VOL. II. / CHAPTER I.": a heading per volume
                if parents and " / ".join(parents) != part:
                    part = " / ".join(parents)
                    header = QListWidgetItem(chapter_heading(part))
                    header.setData(Qt.ItemDataRole.UserRole, chapter.index)
                    font = header.font()
                    font.setBold(True)
                    header.setFont(font)
                    self.addItem(header)
                label = chapter_label(session.chapters, chapter.index)
                item = QListWidgetItem(f"{label}  ·  {n}")
                item.setData(Qt.ItemDataRole.UserRole, chapter.index)
                item.setToolTip(f"{label}: {n} quotations")
                self.addItem(item)
                self._items[chapter.index] = item

    def follow(self, offset: int) -> None:
        """Select the chapter holding ``offset`` (the top of the reader) without jumping anywhere."""
        session = self.state.session
        chapter = session.chapter_of(offset) if session is not None else None
        item = self._items.get(chapter.index) if chapter is not None else None
        if item is None or item is self.currentItem():
            return
        with signals_blocked(self):
            self.setCurrentItem(item)
        self.scrollToItem(item)

    def _on_item_chosen(self, item: QListWidgetItem) -> None:
        session = self.state.session
        if session is not None:
            self.state.jump_requested.emit(session.chapters[item.data(Qt.ItemDataRole.UserRole)].start)
