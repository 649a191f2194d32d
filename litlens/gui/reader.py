"""The reader: a novel's text with its quotations highlighted by type.

Only the quotations on screen are highlighted (extra selections recomputed when the
view scrolls or resizes), so a 600,000-word novel scrolls as smoothly as a short one.
Run alone on the sample: ``python -m litlens.gui.reader``.
"""

from __future__ import annotations

import bisect
import re

from PySide6.QtCore import QPoint, Qt, QTimer, Signal
from PySide6.QtGui import QAction, QColor, QFont, QKeySequence, QTextCharFormat, QTextCursor, QTextDocument
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QMenu,
    QPlainTextEdit,
    QPushButton,
    QSplitter,
    QTextEdit,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from litlens.model import QUOTE_TYPES
from litlens.services.session import QuoteRow
from litlens.gui.state import BookState
from litlens.gui.style import HUMAN_EDIT_COLOUR, TYPE_COLOURS, TYPE_LABELS, signals_blocked, tint

_OUTSIDE_BMP = re.compile("[\U00010000-\U0010FFFF]")


class OffsetMap:
    """Python ``str`` offsets <-> Qt (UTF-16) document positions."""

    def __init__(self, text: str):
        # Positions of characters outside the BMP, which take two UTF-16 units in Qt.
        self._wide = [m.start() for m in _OUTSIDE_BMP.finditer(text)]

    def to_qt(self, offset: int) -> int:
        return offset + bisect.bisect_left(self._wide, offset) if self._wide else offset

    def from_qt(self, position: int) -> int:
        if not self._wide:
            return position
        lo, hi = 0, position
        while lo < hi:  # largest offset whose Qt position is <= position
            mid = (lo + hi + 1) // 2
            if self.to_qt(mid) <= position:
                lo = mid
            else:
                hi = mid - 1
        return lo


class ReaderView(QPlainTextEdit):
    """Read-only text view that highlights the visible quotations."""

    quote_hovered = Signal(object)  # QuoteRow | None
    quote_clicked = Signal(object)
    mark_requested = Signal(int, int)  # str offsets of a selection to mark as a quotation

    def __init__(self, state: BookState, parent: QWidget | None = None):
        super().__init__(parent)
        self.state = state
        self.setReadOnly(True)
        self.setMouseTracking(True)
        self.setLineWrapMode(QPlainTextEdit.LineWrapMode.WidgetWidth)
        font = QFont("DejaVu Serif")
        font.setPointSize(12)
        self.setFont(font)
        self.document().setDocumentMargin(18)
        self.offsets = OffsetMap("")
        self.highlighted: list[QuoteRow] = []
        self.speaker_colours: dict[str, str] | None = None  # set by the Speakers panel: colour by speaker
        self._hover: QuoteRow | None = None
        self._refresh = QTimer(self, singleShot=True, interval=15, timeout=self.refresh_highlights)
        self.verticalScrollBar().valueChanged.connect(self._refresh.start)
        self.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.customContextMenuRequested.connect(self._on_context_menu)

    # -- content ----------------------------------------------------------------------
    def load(self) -> None:
        session = self.state.session
        text = session.text if session else ""
        self.offsets = OffsetMap(text)
        self.setPlainText(text)
        self.refresh_highlights()

    def visible_range(self) -> tuple[int, int]:
        top = self.cursorForPosition(QPoint(0, 0)).position()
        bottom = self.cursorForPosition(QPoint(self.viewport().width() - 1, self.viewport().height() - 1)).position()
        return self.offsets.from_qt(top), self.offsets.from_qt(bottom) + 1

    def refresh_highlights(self) -> None:
        session = self.state.session
        if session is None:
            self.setExtraSelections([])
            self.highlighted = []
            return
        start, end = self.visible_range()
        margin = 2000  # highlight a little beyond the screen so fast scrolling shows colour at once
        rows = [row for row in session.quotes_between(max(start - margin, 0), end + margin)
                if self.state.filters.accepts(row)]
        selected = self.state.selected
        selections = []
        for row in rows:
            q = row.quotation
            fmt = QTextCharFormat()
            colour = (self.speaker_colours or {}).get(q.speaker or "") or TYPE_COLOURS[q.type]
            fmt.setBackground(tint(colour, 150 if selected and selected.id == row.id else 60))
            if q.edited or q.origin == "human":
                fmt.setUnderlineStyle(QTextCharFormat.UnderlineStyle.DashUnderline)
                fmt.setUnderlineColor(QColor(HUMAN_EDIT_COLOUR))
            fmt.setToolTip(self._tooltip(row))
            for s, e in q.spans:  # each sub-quotation with its quote marks
                s, e = max(s - 1, 0), min(e + 1, len(session.text))
                selection = QTextEdit.ExtraSelection()
                cursor = QTextCursor(self.document())
                cursor.setPosition(self.offsets.to_qt(s))
                cursor.setPosition(self.offsets.to_qt(e), QTextCursor.MoveMode.KeepAnchor)
                selection.cursor = cursor
                selection.format = fmt
                selections.append(selection)
        self.highlighted = rows
        self.setExtraSelections(selections)

    @staticmethod
    def _tooltip(row: QuoteRow) -> str:
        q = row.quotation
        speaker = q.speaker or "speaker unknown"
        cue = f" — “{q.referring_expression}”" if q.referring_expression else ""
        edited = " (corrected by hand)" if q.edited or q.origin == "human" else ""
        return f"{speaker} · {TYPE_LABELS[q.type]}{cue}{edited}"

    def scroll_to(self, offset: int) -> None:
        cursor = QTextCursor(self.document())
        cursor.setPosition(self.offsets.to_qt(min(offset, len(self.state.session.text) if self.state.session else 0)))
        self.setTextCursor(cursor)
        # Put the target near the top of the view rather than at the bottom edge.
        bar = self.verticalScrollBar()
        bar.setValue(bar.maximum())
        self.ensureCursorVisible()
        self.refresh_highlights()

    # -- events -------------------------------------------------------------------------
    def quote_at_point(self, point: QPoint) -> QuoteRow | None:
        if self.state.session is None:
            return None
        offset = self.offsets.from_qt(self.cursorForPosition(point).position())
        row = self.state.session.quote_at(offset)
        return row if row is not None and self.state.filters.accepts(row) else None

    def mouseMoveEvent(self, event) -> None:  # noqa: N802 (Qt API)
        super().mouseMoveEvent(event)
        row = self.quote_at_point(event.position().toPoint())
        if (row and row.id) != (self._hover and self._hover.id):
            self._hover = row
            self.quote_hovered.emit(row)

    def mouseReleaseEvent(self, event) -> None:  # noqa: N802
        super().mouseReleaseEvent(event)
        if event.button() == Qt.MouseButton.LeftButton and not self.textCursor().hasSelection():
            self.quote_clicked.emit(self.quote_at_point(event.position().toPoint()))

    def resizeEvent(self, event) -> None:  # noqa: N802
        super().resizeEvent(event)
        self._refresh.start()

    def selection_offsets(self) -> tuple[int, int] | None:
        cursor = self.textCursor()
        if not cursor.hasSelection():
            return None
        return self.offsets.from_qt(cursor.selectionStart()), self.offsets.from_qt(cursor.selectionEnd())

    def _on_context_menu(self, point: QPoint) -> None:
        menu = QMenu(self)
        selection = self.selection_offsets()
        mark = menu.addAction("Mark selection as a quotation")
        mark.setEnabled(selection is not None)
        mark.triggered.connect(lambda: self.mark_requested.emit(*selection) if selection else None)
        menu.exec(self.mapToGlobal(point))


class Legend(QWidget):
    """Type colours that double as type filters (tick to show)."""

    def __init__(self, state: BookState, parent: QWidget | None = None):
        super().__init__(parent)
        self.state = state
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        self.boxes: dict[str, QCheckBox] = {}
        for quote_type in QUOTE_TYPES:
            box = QCheckBox(TYPE_LABELS[quote_type])
            box.setChecked(True)
            colour = TYPE_COLOURS[quote_type]
            box.setStyleSheet(
                f"QCheckBox {{ background: {tint(colour, 60).name(QColor.NameFormat.HexArgb)};"
                f" border-left: 6px solid {colour}; padding: 2px 6px; }}"
            )
            box.setToolTip(f"Show {quote_type} quotations")
            box.toggled.connect(self._on_types_changed)
            layout.addWidget(box)
            self.boxes[quote_type] = box
        self.state.filters_changed.connect(self._on_filters_changed)

    def _on_types_changed(self) -> None:
        self.state.set_filters(types=frozenset(t for t, box in self.boxes.items() if box.isChecked()))

    def _on_filters_changed(self) -> None:
        for quote_type, box in self.boxes.items():
            with signals_blocked(box):
                box.setChecked(quote_type in self.state.filters.types)


class SearchBar(QWidget):
    """Ctrl+F search with next / previous."""

    def __init__(self, view: ReaderView, parent: QWidget | None = None):
        super().__init__(parent)
        self.view = view
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        self.field = QLineEdit(placeholderText="Search the text (Enter: next, Shift+Enter: previous)")
        self.status = QLabel("")
        previous = QToolButton(text="◀", toolTip="Previous match (Shift+Enter)")
        following = QToolButton(text="▶", toolTip="Next match (Enter)")
        close = QToolButton(text="✕", toolTip="Close search (Esc)")
        for widget in (QLabel("Find:"), self.field, previous, following, self.status, close):
            layout.addWidget(widget)
        self.field.returnPressed.connect(self.find_next)
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
        return self._find(QTextDocument.FindFlag(0))

    def find_previous(self) -> bool:
        return self._find(QTextDocument.FindFlag.FindBackward)

    def _find(self, flags: QTextDocument.FindFlag) -> bool:
        needle = self.field.text()
        if not needle:
            return False
        found = self.view.find(needle, flags)
        if not found:  # wrap around
            cursor = self.view.textCursor()
            cursor.movePosition(QTextCursor.MoveOperation.End if flags else QTextCursor.MoveOperation.Start)
            self.view.setTextCursor(cursor)
            found = self.view.find(needle, flags)
        self.status.setText("" if found else "not found")
        return found


class ChapterNavigator(QListWidget):
    """The book's chapters; a click jumps there."""

    def __init__(self, state: BookState, parent: QWidget | None = None):
        super().__init__(parent)
        self.state = state
        self.state.book_changed.connect(self.load)
        self.itemActivated.connect(self._on_item_chosen)
        self.itemClicked.connect(self._on_item_chosen)
        self.setMinimumWidth(170)
        self.setTextElideMode(Qt.TextElideMode.ElideRight)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)  # elide long titles instead

    def load(self) -> None:
        with signals_blocked(self):
            self.clear()
            session = self.state.session
            if session is None:
                return
            counts = [0] * len(session.chapters)
            for row in session.quotes:
                if row.quotation.chapter is not None and row.quotation.chapter < len(counts):
                    counts[row.quotation.chapter] += 1
            part = ""
            for chapter, n in zip(session.chapters, counts):
                title = chapter.title.strip() or "Front matter"
                *parents, own = title.split(" / ")  # "VOL. II. / CHAPTER I.": a heading per volume
                if parents and " / ".join(parents) != part:
                    part = " / ".join(parents)
                    header = QListWidgetItem(part)
                    header.setData(Qt.ItemDataRole.UserRole, chapter.index)
                    font = header.font()
                    font.setBold(True)
                    header.setFont(font)
                    self.addItem(header)
                item = QListWidgetItem(f"{'    ' if parents else ''}{own}  ·  {n}")
                item.setData(Qt.ItemDataRole.UserRole, chapter.index)
                item.setToolTip(f"{title}: {n} quotations")
                self.addItem(item)

    def _on_item_chosen(self, item: QListWidgetItem) -> None:
        session = self.state.session
        if session is not None:
            self.state.jump_requested.emit(session.chapters[item.data(Qt.ItemDataRole.UserRole)].start)


class ReaderPanel(QWidget):
    """Navigator, filters, legend, search and the highlighted text."""

    def __init__(self, state: BookState, parent: QWidget | None = None):
        super().__init__(parent)
        self.state = state
        self.view = ReaderView(state)
        self.navigator = ChapterNavigator(state)
        self.legend = Legend(state)
        self.search = SearchBar(self.view)
        self.search.hide()
        self.speaker_filter = QComboBox(toolTip="Only this character's speech")
        self.chapter_filter = QComboBox(toolTip="Only this chapter's quotations")
        for box in (self.speaker_filter, self.chapter_filter):
            box.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
            box.setMinimumContentsLength(12)
        clear = QPushButton("Clear filters")
        self.count = QLabel("")

        bar = QHBoxLayout()
        bar.addWidget(self.legend)
        bar.addSpacing(12)
        bar.addWidget(QLabel("Speaker:"))
        bar.addWidget(self.speaker_filter)
        bar.addWidget(QLabel("Chapter:"))
        bar.addWidget(self.chapter_filter)
        bar.addWidget(clear)
        bar.addStretch(1)
        bar.addWidget(self.count)

        right = QWidget()
        column = QVBoxLayout(right)
        column.setContentsMargins(0, 0, 0, 0)
        column.addLayout(bar)
        column.addWidget(self.search)
        column.addWidget(self.view, 1)

        splitter = QSplitter()
        splitter.addWidget(self.navigator)
        splitter.addWidget(right)
        splitter.setStretchFactor(1, 1)
        splitter.setSizes([220, 800])
        splitter.setCollapsible(0, False)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(splitter)

        find = QAction("Find", self, shortcut=QKeySequence.StandardKey.Find, triggered=self.search.open)
        self.addAction(find)
        self.find_action = find

        clear.clicked.connect(lambda: self.state.set_filters(types=frozenset(QUOTE_TYPES), speaker=None, chapter=None))
        self.speaker_filter.currentIndexChanged.connect(self._on_speaker_filter_changed)
        self.chapter_filter.currentIndexChanged.connect(self._on_chapter_filter_changed)
        self.view.quote_clicked.connect(self._on_quote_clicked)
        self.view.quote_hovered.connect(self._on_quote_hovered)
        self.view.mark_requested.connect(lambda s, e: self.state.edit("add_quote", s, e))
        state.book_changed.connect(self._on_book_changed)
        state.data_changed.connect(self._on_data_changed)
        state.filters_changed.connect(self._on_filters_changed)
        state.selection_changed.connect(self.view.refresh_highlights)
        state.jump_requested.connect(self.view.scroll_to)

    # -- state -> widgets --------------------------------------------------------------
    def _on_book_changed(self) -> None:
        self.view.load()
        self._fill_filters()
        self._update_count()

    def _on_data_changed(self) -> None:
        self._fill_filters()
        self.view.refresh_highlights()
        self._update_count()

    def _fill_filters(self) -> None:
        session = self.state.session
        with signals_blocked(self.speaker_filter), signals_blocked(self.chapter_filter):
            self.speaker_filter.clear()
            self.speaker_filter.addItem("Everyone", None)
            self.chapter_filter.clear()
            self.chapter_filter.addItem("All chapters", None)
            if session is not None:
                for row in session.characters:
                    self.speaker_filter.addItem(row.character.name, row.character.name)
                for chapter in session.chapters:
                    self.chapter_filter.addItem(chapter.title.strip() or "Front matter", chapter.index)
            self._sync_filter_widgets()

    def _sync_filter_widgets(self) -> None:
        f = self.state.filters
        with signals_blocked(self.speaker_filter), signals_blocked(self.chapter_filter):
            i = self.speaker_filter.findData(f.speaker)
            self.speaker_filter.setCurrentIndex(max(i, 0))
            j = self.chapter_filter.findData(f.chapter)
            self.chapter_filter.setCurrentIndex(max(j, 0))

    def _on_filters_changed(self) -> None:
        self._sync_filter_widgets()
        self.view.refresh_highlights()
        self._update_count()

    def _update_count(self) -> None:
        session = self.state.session
        total = len(session.quotes) if session else 0
        shown = len(self.state.visible_quotes())
        self.count.setText(f"{shown:,} of {total:,} quotations shown")

    # -- widgets -> state --------------------------------------------------------------
    def _on_speaker_filter_changed(self) -> None:
        self.state.set_filters(speaker=self.speaker_filter.currentData())

    def _on_chapter_filter_changed(self) -> None:
        chapter = self.chapter_filter.currentData()
        self.state.set_filters(chapter=chapter)
        if chapter is not None and self.state.session is not None:
            self.state.jump_requested.emit(self.state.session.chapters[chapter].start)

    def _on_quote_clicked(self, row: QuoteRow | None) -> None:
        self.state.select(row)

    def _on_quote_hovered(self, row: QuoteRow | None) -> None:
        self.state.hover(row)
        if row is not None:
            self.state.status.emit(ReaderView._tooltip(row))


if __name__ == "__main__":
    from litlens.gui.app import preview

    preview("reader")
