"""The reader: a novel's text with its quotations highlighted by type (or by speaker).

Only the quotations on screen are highlighted (extra selections recomputed when the
view scrolls or resizes), so a 600,000-word novel scrolls as smoothly as a short one.
A quotation the reader is sent to keeps the paragraphs before it in view; hovering one
tells its speaker, type and confidence; the margin marks hand corrections and can carry
speaker names. Run alone on the sample: ``python -m litlens.gui.reader``.
"""

from __future__ import annotations

import bisect
from html import escape
import re

from PySide6.QtCore import QEvent, QPoint, Qt, QTimer, Signal
from PySide6.QtGui import QAction, QColor, QFont, QKeySequence, QPainter, QTextCharFormat, QTextCursor
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QHBoxLayout,
    QLabel,
    QMenu,
    QPlainTextEdit,
    QPushButton,
    QSplitter,
    QTextEdit,
    QToolTip,
    QVBoxLayout,
    QWidget,
)

from litlens.model import QUOTE_TYPES
from litlens.services.books import chapter_label
from litlens.services.session import QuoteRow
from litlens.gui.navigation import ChapterNavigator, SearchBar
from litlens.gui.state import OTHER_SPEAKER_COLOUR, BookState
from litlens.gui.style import HUMAN_EDIT_COLOUR, TYPE_COLOURS, TYPE_LABELS, FlowLayout, signals_blocked, tint

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


# Paragraphs kept in view above a quotation the reader is sent to: the turns before it tell who speaks.
CONTEXT_PARAGRAPHS = 4
MARGIN_NARROW = 18  # room for the hand-correction mark
MARGIN_NAMES = 132  # room for speaker names as well
CORRECTED_MARK = "✎"


def quote_tooltip(row: QuoteRow) -> str:
    """What hovering a quotation tells: speaker, type (with its cue), confidence, hand corrections."""
    q = row.quotation
    cue = f" — “{q.referring_expression}”" if q.referring_expression else ""
    lines = [f"Speaker: {q.speaker or 'unknown'}", f"Type: {TYPE_LABELS[q.type]}{cue}"]
    if q.speaker_confidence is not None:
        lines.append(f"Confidence: {q.speaker_confidence:.2f}")
    elif q.speaker:
        lines.append("Confidence: — (" + ("set by hand" if q.edited else "gold annotation" if q.origin == "gold" else "none") + ")")
    if q.edited or q.origin == "human":
        lines.append(f"{CORRECTED_MARK} corrected by hand")
    return "\n".join(lines)


class SpeakerMargin(QWidget):
    """The strip left of the text: a mark beside hand-corrected quotations and, when asked, the
    speaker's name beside each quotation's first line."""

    def __init__(self, view: "ReaderView"):
        super().__init__(view)
        self.view = view

    def paintEvent(self, event) -> None:  # noqa: N802 (Qt API)
        view = self.view
        painter = QPainter(self)
        painter.fillRect(event.rect(), QColor("#F6F6F6"))
        metrics = painter.fontMetrics()
        bottom_of_last = -1
        height = self.height()
        for row in view.highlighted:
            top = view.line_top(row.start)
            if top is None or top > height:
                continue
            if top < 0:  # begun above the view: name it at the top while its lines are still on screen
                end_top = view.line_top(row.end)
                if end_top is None or end_top < 0:
                    continue
                top = 0
            if top < bottom_of_last:  # a second quotation on the same line: the first one's name stands
                continue
            q = row.quotation
            baseline = top + metrics.ascent() + 2
            if q.edited or q.origin == "human":
                painter.setPen(QColor(HUMAN_EDIT_COLOUR))
                painter.drawText(self.width() - MARGIN_NARROW + 3, baseline, CORRECTED_MARK)
            if view.show_names:
                colour = view.state.speaker_colour(q.speaker) or "#333333"
                painter.setPen(QColor(colour if q.speaker else "#8A8A8A"))
                name = metrics.elidedText(q.speaker or "?", Qt.TextElideMode.ElideRight, self.width() - MARGIN_NARROW - 6)
                painter.drawText(4, baseline, name)
            bottom_of_last = top + metrics.height()
        painter.end()


class ReaderView(QPlainTextEdit):
    """Read-only text view that highlights the visible quotations."""

    quote_hovered = Signal(object)  # QuoteRow | None
    quote_clicked = Signal(object)
    mark_requested = Signal(int, int)  # str offsets of a selection to mark as a quotation
    top_changed = Signal(int)  # str offset of the first character on screen, after a scroll

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
        self.margin = SpeakerMargin(self)
        self._hover: QuoteRow | None = None
        self._refresh = QTimer(self, singleShot=True, interval=15, timeout=self.refresh_highlights)
        self.verticalScrollBar().valueChanged.connect(self._refresh.start)
        self.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.customContextMenuRequested.connect(self._on_context_menu)
        state.colouring_changed.connect(self._on_colouring_changed)
        self._place_margin()

    @property
    def show_names(self) -> bool:
        """Speaker names in the margin (``BookState.set_speaker_names``)."""
        return self.state.speaker_names

    @property
    def speaker_colours(self) -> dict[str, str] | None:
        """Speaker -> colour while the text is coloured by speaker, else None."""
        return self.state.speaker_colours

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
            self.margin.update()
            return
        start, end = self.visible_range()
        margin = 2000  # highlight a little beyond the screen so fast scrolling shows colour at once
        rows = [row for row in session.quotes_between(max(start - margin, 0), end + margin)
                if self.state.filters.accepts(row)]
        selected = self.state.selected
        by_speaker = self.state.speaker_colours is not None
        selections = []
        for row in rows:
            q = row.quotation
            fmt = QTextCharFormat()
            colour = self.state.speaker_colour(q.speaker) or TYPE_COLOURS[q.type]
            if selected and selected.id == row.id:
                fmt.setBackground(tint(colour, 115 if by_speaker else 150))
            else:
                fmt.setBackground(tint(colour, 70 if by_speaker else 60))
            if q.edited or q.origin == "human":
                fmt.setUnderlineStyle(QTextCharFormat.UnderlineStyle.DashUnderline)
                fmt.setUnderlineColor(QColor(HUMAN_EDIT_COLOUR))
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
        self.margin.update()
        self.top_changed.emit(start)

    def tooltip_at(self, offset: int) -> str:
        """The hover text at a character offset: the quotation's speaker, type and confidence, or ""."""
        session = self.state.session
        row = session.quote_at(offset) if session is not None else None
        return quote_tooltip(row) if row is not None and self.state.filters.accepts(row) else ""

    def line_top(self, offset: int) -> int | None:
        """Viewport y of the top of the line holding ``offset`` (None without a book)."""
        if self.state.session is None:
            return None
        cursor = QTextCursor(self.document())
        cursor.setPosition(self.offsets.to_qt(min(offset, len(self.state.session.text))))
        return self.cursorRect(cursor).top()

    # -- moving -------------------------------------------------------------------------
    def scroll_to(self, offset: int, end: int | None = None) -> None:
        """Show ``offset`` with up to CONTEXT_PARAGRAPHS paragraphs of its chapter above it (the turns
        that tell who is speaking); the caret goes there, selecting up to ``end`` when given."""
        session = self.state.session
        length = len(session.text) if session else 0
        offset = max(0, min(offset, length))
        cursor = QTextCursor(self.document())
        cursor.setPosition(self.offsets.to_qt(offset))
        if end is not None:
            cursor.setPosition(self.offsets.to_qt(min(end, length)), QTextCursor.MoveMode.KeepAnchor)
        if session is None:
            self.setTextCursor(cursor)
            return
        anchors = self._context_anchors(offset)
        if not self._shows_with_context(offset, anchors):
            # Whole paragraphs above it when three or more fit; else as many lines above it as
            # leave its first lines on screen (a short reader window on a laptop).
            for anchor in anchors[:max(len(anchors) - 3, 1)]:
                self._put_at_top(anchor)
                if self._fits(offset):
                    break
            else:
                self._put_at_top(offset)
                self._lift(offset, anchors[0])
        bar = self.verticalScrollBar()
        value = bar.value()
        self.setTextCursor(cursor)
        if not self._fits(offset):  # nothing above fitted: let Qt bring the target in
            self.ensureCursorVisible()
        elif bar.value() != value:
            bar.setValue(value)
        self.refresh_highlights()

    def _context_anchors(self, offset: int) -> list[int]:
        """Candidate first lines on screen, from CONTEXT_PARAGRAPHS paragraphs above ``offset`` down to its own."""
        starts = self.state.paragraph_starts
        chapter = self.state.session.chapter_of(offset)
        floor = chapter.start if chapter is not None else 0
        i = bisect.bisect_right(starts, offset) - 1
        if i < 0:
            return [max(floor, 0)]
        anchors = []
        for k in range(CONTEXT_PARAGRAPHS, -1, -1):
            anchor = max(starts[max(i - k, 0)], floor)
            if not anchors or anchor != anchors[-1]:
                anchors.append(anchor)
        return anchors

    def _shows_with_context(self, offset: int, anchors: list[int]) -> bool:
        """Already on screen with at least three paragraphs (or its chapter's start) above it."""
        need = anchors[max(len(anchors) - 4, 0)]
        top = self.line_top(need)
        return top is not None and top >= 0 and self._fits(offset)

    def _fits(self, offset: int) -> bool:
        top = self.line_top(offset)
        return top is not None and 0 <= top and top + self.fontMetrics().height() <= self.viewport().height() * 0.85

    def _lift(self, offset: int, floor: int) -> None:
        """Scroll up a line at a time while ``offset`` stays in the top 70% of the view and ``floor``
        (the first line worth showing, e.g. the chapter's start) has not come into view."""
        bar = self.verticalScrollBar()
        limit = self.viewport().height() * 0.7 - self.fontMetrics().height()
        while bar.value() > bar.minimum():
            floor_top = self.line_top(floor)
            if floor_top is not None and floor_top >= 0:
                return
            bar.setValue(bar.value() - 1)
            top = self.line_top(offset)
            if top is None or top > limit:
                bar.setValue(bar.value() + 1)
                return

    def _put_at_top(self, offset: int) -> None:
        cursor = QTextCursor(self.document())
        cursor.setPosition(self.offsets.to_qt(offset))
        bar = self.verticalScrollBar()
        bar.setValue(bar.maximum())  # scroll from below, so the line lands on the top edge
        self.setTextCursor(cursor)
        self.ensureCursorVisible()

    # -- margin -------------------------------------------------------------------------
    def _on_colouring_changed(self) -> None:
        self._place_margin()
        self.refresh_highlights()

    def _place_margin(self) -> None:
        width = MARGIN_NAMES if self.show_names else MARGIN_NARROW
        self.setViewportMargins(width, 0, 0, 0)
        rect = self.contentsRect()
        self.margin.setGeometry(rect.left(), rect.top(), width, rect.height())
        self.margin.update()

    # -- events -------------------------------------------------------------------------
    def quote_at_point(self, point: QPoint) -> QuoteRow | None:
        if self.state.session is None:
            return None
        offset = self.offsets.from_qt(self.cursorForPosition(point).position())
        row = self.state.session.quote_at(offset)
        return row if row is not None and self.state.filters.accepts(row) else None

    def viewportEvent(self, event) -> bool:  # noqa: N802 (Qt API)
        if event.type() == QEvent.Type.ToolTip:
            row = self.quote_at_point(event.pos())
            if row is None:
                QToolTip.hideText()
                event.ignore()
            else:
                QToolTip.showText(event.globalPos(), quote_tooltip(row), self.viewport())
            return True
        return super().viewportEvent(event)

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
        self._place_margin()
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


class SpeakerKey(QLabel):
    """The colour-by-speaker key: the twelve most frequent speakers' colours, then grey for the rest."""

    def __init__(self, state: BookState, parent: QWidget | None = None):
        super().__init__(parent)
        self.state = state
        self.setWordWrap(True)
        self.setTextFormat(Qt.TextFormat.RichText)
        state.colouring_changed.connect(self.refresh)
        self.refresh()

    def refresh(self) -> None:
        colours = self.state.speaker_colours
        self.setVisible(colours is not None)
        if colours is None:
            return
        entries = [_swatch(colour, escape(name, quote=False).replace(" ", "&nbsp;")) for name, colour in colours.items()]
        entries.append(_swatch(OTHER_SPEAKER_COLOUR, "everyone&nbsp;else" if colours else "no&nbsp;speakers&nbsp;yet"))
        self.setText("Speakers: " + " &nbsp; ".join(entries))


def _swatch(colour: str, label: str) -> str:
    return f"<span style='color:{colour}; font-size:large'>■</span>&nbsp;<span style='color:{colour}'>{label}</span>"


class ReaderPanel(QWidget):
    """Navigator, filters, legend, search and the highlighted text."""

    def __init__(self, state: BookState, parent: QWidget | None = None):
        super().__init__(parent)
        self.state = state
        self.view = ReaderView(state)
        self.navigator = ChapterNavigator(state)
        self.legend = Legend(state)
        self.speaker_key = SpeakerKey(state)
        self.corrected_key = QLabel(
            f"<span style='color:{HUMAN_EDIT_COLOUR}'>{CORRECTED_MARK} <u>corrected</u></span>")
        self.corrected_key.setToolTip("Quotations corrected by hand: a mark in the margin and a dashed underline")
        self.search = SearchBar(self.view)
        self.search.hide()
        self.speaker_filter = QComboBox(toolTip="Only this character's speech")
        self.chapter_filter = QComboBox(toolTip="Only this chapter's quotations")
        for box in (self.speaker_filter, self.chapter_filter):
            box.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
            box.setMinimumContentsLength(12)
        clear = QPushButton("Clear filters")
        self.count = QLabel("")

        bar = FlowLayout(spacing=12)  # a narrow reader wraps the filters onto a second row
        bar.addWidget(self.legend)
        bar.addWidget(self.corrected_key)
        for label, box in (("Speaker:", self.speaker_filter), ("Chapter:", self.chapter_filter)):
            pair = QWidget()  # a label stays beside its box when the row wraps
            row = QHBoxLayout(pair)
            row.setContentsMargins(0, 0, 0, 0)
            row.addWidget(QLabel(label))
            row.addWidget(box)
            bar.addWidget(pair)
        bar.addWidget(clear)
        bar.addWidget(self.count)

        right = QWidget()
        column = QVBoxLayout(right)
        column.setContentsMargins(0, 0, 0, 0)
        column.addLayout(bar)
        column.addWidget(self.speaker_key)
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
        # Next / previous quotation (of those the filters show), from any panel of the window.
        self.next_action = QAction("Next quotation", self, shortcut=QKeySequence("Alt+Down"),
                                   shortcutContext=Qt.ShortcutContext.WindowShortcut,
                                   triggered=lambda: self.state.step(+1, self.view.visible_range()[0]))
        self.previous_action = QAction("Previous quotation", self, shortcut=QKeySequence("Alt+Up"),
                                       shortcutContext=Qt.ShortcutContext.WindowShortcut,
                                       triggered=lambda: self.state.step(-1, self.view.visible_range()[1]))
        self.addAction(self.next_action)
        self.addAction(self.previous_action)

        clear.clicked.connect(lambda: self.state.set_filters(types=frozenset(QUOTE_TYPES), speaker=None, chapter=None))
        self.speaker_filter.currentIndexChanged.connect(self._on_speaker_filter_changed)
        self.chapter_filter.currentIndexChanged.connect(self._on_chapter_filter_changed)
        self.view.quote_clicked.connect(self._on_quote_clicked)
        self.view.quote_hovered.connect(self._on_quote_hovered)
        self.view.mark_requested.connect(lambda s, e: self.state.edit("add_quote", s, e))
        self.view.top_changed.connect(self.navigator.follow)
        state.book_changed.connect(self._on_book_changed)
        state.data_changed.connect(self._on_data_changed)
        state.filters_changed.connect(self._on_filters_changed)
        state.selection_changed.connect(self.view.refresh_highlights)
        state.colouring_changed.connect(self._on_colouring_changed)
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

    def _on_colouring_changed(self) -> None:
        self.legend.setVisible(self.state.speaker_colours is None)  # the speaker key replaces the type key

    def _fill_filters(self) -> None:
        session = self.state.session
        with signals_blocked(self.speaker_filter), signals_blocked(self.chapter_filter):
            self.speaker_filter.clear()
            self.speaker_filter.addItem("Everyone", None)
            self.chapter_filter.clear()
            self.chapter_filter.addItem("All chapters", None)
            if session is not None:
                for name in sorted(session.character_names(), key=str.casefold):
                    self.speaker_filter.addItem(name, name)
                for chapter in session.chapters:
                    self.chapter_filter.addItem(chapter_label(session.chapters, chapter.index), chapter.index)
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
            self.state.status.emit(quote_tooltip(row).replace("\n", " · "))


if __name__ == "__main__":
    from litlens.gui.preview import preview

    preview(ReaderPanel, "reader")
