"""QuotationTable: every quotation of the book as a sortable, filterable table.

Columns: hand-correction mark, chapter (its own heading, ``chapter_label``), type, speaker,
confidence, referring expression and text. Filters: type, speaker, chapter, confidence
below a value, corrected by hand only, and a search over text, speaker and cue; typing
while the table has the focus goes to the search field. Selecting a row (mouse or arrow
keys) moves the reader there, with the turns before it in view; the reader's selection
is followed back. Run alone on the sample: ``python -m litlens.gui.quotations``.
"""

from __future__ import annotations

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QSortFilterProxyModel, Qt
from PySide6.QtGui import QColor
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QComboBox,
    QCompleter,
    QDoubleSpinBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from litlens.model import QUOTE_TYPES
from litlens.services.books import chapter_label
from litlens.services.session import QuoteRow
from litlens.gui.lazy import WhenShown
from litlens.gui.state import BookState
from litlens.gui.style import HUMAN_EDIT_COLOUR, TYPE_COLOURS, TYPE_LABELS, signals_blocked

COLUMNS = ("✎", "Chapter", "Type", "Speaker", "Confidence", "Referring expression", "Text")
EDITED, CHAPTER, TYPE, SPEAKER, CONFIDENCE, CUE, TEXT = range(len(COLUMNS))
NOBODY = "(nobody)"
EXCERPT = 300  # characters of a quotation's text shown in its row (the tooltip has more)


class QuotationModel(QAbstractTableModel):
    """The book's quotations, one row each, in the order of the chosen column (text order at first).

    The model sorts itself, with Python's sort over keys made once per load: a sort through
    the proxy would call back into Python for every comparison (0.2 s for 1,300 rows)."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.rows: list[QuoteRow] = []
        self.texts: list[str] = []
        self.chapters: list[str] = []
        self.sort_keys: list[tuple] = []  # per row, one key per column
        self.sort_column, self.sort_order = CHAPTER, Qt.SortOrder.AscendingOrder

    def load(self, state: BookState) -> None:
        session = state.session
        self.beginResetModel()
        self.rows = list(session.quotes) if session is not None else []
        self.texts = [" … ".join(" ".join(session.text[s:e].split()) for s, e in row.quotation.spans)
                      for row in self.rows] if session is not None else []
        labels: dict[int | None, str] = {}
        self.chapters = []
        for row in self.rows:
            c = row.quotation.chapter
            if c not in labels:
                labels[c] = chapter_label(session.chapters, c)
            self.chapters.append(labels[c])
        self.sort_keys = [self._sort_key(row) for row in self.rows]
        self._reorder(self._order(self.sort_column, self.sort_order))
        self.endResetModel()

    def sort(self, column: int, order: Qt.SortOrder = Qt.SortOrder.AscendingOrder) -> None:
        if not 0 <= column < len(COLUMNS):
            return
        self.sort_column, self.sort_order = column, order
        self.layoutAboutToBeChanged.emit()
        old = self.persistentIndexList()  # the selection and the current row follow their quotation
        ids = [self.rows[i.row()].id for i in old]
        self._reorder(self._order(column, order))
        where = {row.id: i for i, row in enumerate(self.rows)}
        self.changePersistentIndexList(old, [self.index(where[q], i.column()) for q, i in zip(ids, old)])
        self.layoutChanged.emit()

    def _order(self, column: int, order: Qt.SortOrder) -> list[int]:
        keys = self.sort_keys
        # Python's sort is stable in both directions: equal keys keep text order
        return sorted(range(len(keys)), key=lambda i: keys[i][column], reverse=order == Qt.SortOrder.DescendingOrder)

    def _reorder(self, order: list[int]) -> None:
        for name in ("rows", "texts", "chapters", "sort_keys"):
            values = getattr(self, name)
            setattr(self, name, [values[i] for i in order])

    @staticmethod
    def _sort_key(row: QuoteRow) -> tuple:
        """Chapter and text sort in text order, not alphabetically; a corrected one sorts first;
        equal keys keep text order."""
        q = row.quotation
        edited = q.edited or q.origin == "human"
        return (0 if edited else 1, row.start, TYPE_LABELS[q.type].casefold(), (q.speaker or NOBODY).casefold(),
                -1.0 if q.speaker_confidence is None else q.speaker_confidence,
                (q.referring_expression or "").casefold(), row.start)

    def row_index(self, quotation_id: int) -> int:
        return next((i for i, row in enumerate(self.rows) if row.id == quotation_id), -1)

    def rowCount(self, parent: QModelIndex = QModelIndex()) -> int:  # noqa: N802, B008 (Qt API)
        return 0 if parent.isValid() else len(self.rows)

    def columnCount(self, parent: QModelIndex = QModelIndex()) -> int:  # noqa: N802, B008 (Qt API)
        return 0 if parent.isValid() else len(COLUMNS)

    def headerData(self, section: int, orientation, role: int = Qt.ItemDataRole.DisplayRole):  # noqa: N802
        if orientation != Qt.Orientation.Horizontal:
            return None
        if role == Qt.ItemDataRole.DisplayRole:
            return COLUMNS[section]
        if role == Qt.ItemDataRole.ToolTipRole and section == EDITED:
            return "Corrected by hand"
        return None

    def data(self, index: QModelIndex, role: int = Qt.ItemDataRole.DisplayRole):
        if not index.isValid() or index.row() >= len(self.rows):
            return None
        row = self.rows[index.row()]
        q = row.quotation
        col = index.column()
        edited = q.edited or q.origin == "human"
        if role == Qt.ItemDataRole.DisplayRole:
            if col == EDITED:
                return "✎" if edited else ""
            if col == CHAPTER:
                return self.chapters[index.row()]
            if col == TYPE:
                return TYPE_LABELS[q.type]
            if col == SPEAKER:
                return q.speaker or NOBODY
            if col == CONFIDENCE:
                return "—" if q.speaker_confidence is None else f"{q.speaker_confidence:.2f}"
            if col == CUE:
                return q.referring_expression or ""
            return self.texts[index.row()][:EXCERPT]
        if role == Qt.ItemDataRole.ForegroundRole:
            if col == TYPE:
                return QColor(TYPE_COLOURS[q.type])
            if col == EDITED:
                return QColor(HUMAN_EDIT_COLOUR)
            if col == SPEAKER and not q.speaker:
                return QColor("#767676")
        if role == Qt.ItemDataRole.TextAlignmentRole and col == CONFIDENCE:
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        if role == Qt.ItemDataRole.ToolTipRole:  # what a narrow column cuts off
            if col == TEXT:
                return self.texts[index.row()][:2000]
            if col == CHAPTER:
                return self.chapters[index.row()]
            if col == CUE:
                return q.referring_expression or None
        if role == Qt.ItemDataRole.UserRole:
            return row.id
        return None


class QuotationFilter(QSortFilterProxyModel):
    """Type, speaker, chapter, confidence-below, corrected-only and text search, all at once."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.types: frozenset[str] = frozenset(QUOTE_TYPES)
        self.speaker: str | None | bool = False  # False: anyone; None: quotations with no speaker
        self.chapter: int | None = None
        self.below: float | None = None
        self.edited_only = False
        self.needle = ""

    def sort(self, column: int, order: Qt.SortOrder = Qt.SortOrder.AscendingOrder) -> None:
        """The source model sorts (fast, in Python); the proxy keeps its order and only filters."""
        self.sourceModel().sort(column, order)

    def set(self, **changes: object) -> None:
        self.beginFilterChange()
        for name, value in changes.items():
            setattr(self, name, value)
        self.endFilterChange(QSortFilterProxyModel.Direction.Rows)

    def filterAcceptsRow(self, source_row: int, source_parent: QModelIndex) -> bool:  # noqa: N802 (Qt API)
        model: QuotationModel = self.sourceModel()
        q = model.rows[source_row].quotation
        if q.type not in self.types:
            return False
        if self.speaker is not False and q.speaker != self.speaker:
            return False
        if self.chapter is not None and q.chapter != self.chapter:
            return False
        if self.below is not None and (q.speaker_confidence is None or q.speaker_confidence >= self.below):
            return False
        if self.edited_only and not (q.edited or q.origin == "human"):
            return False
        if self.needle:
            haystack = " ".join((model.texts[source_row], q.speaker or "", q.referring_expression or "")).casefold()
            if self.needle not in haystack:
                return False
        return True


class _TypeToSearchTable(QTableView):
    """A table that hands printable keys to the search field, so typing a word searches."""

    def __init__(self, search: QLineEdit, parent: QWidget | None = None):
        super().__init__(parent)
        self.search_field = search

    def keyPressEvent(self, event) -> None:  # noqa: N802 (Qt API)
        text = event.text()
        plain = not (event.modifiers() & (Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.AltModifier))
        if plain and text and text.isprintable() and not text.isspace():
            self.search_field.setFocus()
            self.search_field.setText(self.search_field.text() + text)
            return
        super().keyPressEvent(event)


class QuotationTable(QWidget):
    """The quotation table with its filters; selecting a row shows the quotation in the reader."""

    def __init__(self, state: BookState, parent: QWidget | None = None):
        super().__init__(parent)
        self.state = state
        self._following = False
        self.type_box = QComboBox(toolTip="Only quotations of this type")
        self.type_box.addItem("All types", None)
        for quote_type in QUOTE_TYPES:
            self.type_box.addItem(TYPE_LABELS[quote_type], quote_type)
        self.speaker_box = QComboBox(toolTip="Only this speaker's quotations (type to search)")
        self.speaker_box.setEditable(True)
        self.speaker_box.setInsertPolicy(QComboBox.InsertPolicy.NoInsert)
        self.speaker_box.completer().setFilterMode(Qt.MatchFlag.MatchContains)
        self.speaker_box.completer().setCompletionMode(QCompleter.CompletionMode.PopupCompletion)
        self.chapter_box = QComboBox(toolTip="Only this chapter's quotations")
        for box in (self.speaker_box, self.chapter_box):
            box.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
            box.setMinimumContentsLength(12)
        self.below_box = QCheckBox("Confidence below")
        self.below_value = QDoubleSpinBox(minimum=0.0, maximum=1.0, singleStep=0.05, decimals=2, value=0.5)
        self.below_value.setEnabled(False)
        self.edited_box = QCheckBox("Corrected only")
        self.edited_box.setToolTip("Only quotations corrected by hand (marked ✎)")
        self.search = QLineEdit(placeholderText="Search text, speaker, cue")
        self.search.setClearButtonEnabled(True)
        self.count = QLabel("")
        self.model = QuotationModel(self)
        self.proxy = QuotationFilter(self)
        self.proxy.setSourceModel(self.model)
        self.table = _TypeToSearchTable(self.search)
        self.table.setModel(self.proxy)
        self.table.setSortingEnabled(True)
        self.table.sortByColumn(CHAPTER, Qt.SortOrder.AscendingOrder)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setWordWrap(False)
        self.table.verticalHeader().hide()
        self.table.verticalHeader().setDefaultSectionSize(self.table.fontMetrics().height() + 6)
        header = self.table.horizontalHeader()
        header.setStretchLastSection(True)
        header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        metrics = self.table.fontMetrics()
        for col, sample in ((EDITED, "✎"), (CHAPTER, "55 · Vol. III, Chapter XVI"), (TYPE, "Anaphoric"),
                            (SPEAKER, "Lady Catherine de B"), (CONFIDENCE, "0.00"), (CUE, "said his lady to him")):
            # as wide as a typical entry or the header, whichever is wider (the sort arrow included)
            width = max(metrics.horizontalAdvance(sample), metrics.horizontalAdvance(COLUMNS[col]) + 18) + 14
            header.resizeSection(col, width)

        filters = QHBoxLayout()
        # the search gives way first; the count keeps room for a long novel's "12,345 of 12,345"
        self.search.setMinimumWidth(metrics.averageCharWidth() * 12)
        self.count.setMinimumWidth(self.count.fontMetrics().horizontalAdvance("12,345 of 12,345") + 4)
        self.count.setAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        for widget in (self.type_box, self.speaker_box, self.chapter_box, self.below_box, self.below_value,
                       self.edited_box):  # each box names its own filter ("All types", "All speakers"…)
            filters.addWidget(widget)
        filters.addWidget(self.search, 1)
        filters.addWidget(self.count)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addLayout(filters)
        layout.addWidget(self.table, 1)

        self.type_box.currentIndexChanged.connect(self._on_type_changed)
        self.speaker_box.activated.connect(self._on_speaker_changed)
        self.speaker_box.lineEdit().returnPressed.connect(self._on_speaker_changed)
        self.chapter_box.currentIndexChanged.connect(self._on_chapter_changed)
        self.below_box.toggled.connect(self._on_below_changed)
        self.below_value.valueChanged.connect(self._on_below_changed)
        self.edited_box.toggled.connect(lambda on: self._set_filter(edited_only=on))
        self.search.textChanged.connect(lambda text: self._set_filter(needle=text.strip().casefold()))
        self.table.selectionModel().currentRowChanged.connect(self._on_row_changed)
        self.table.clicked.connect(self._on_row_clicked)
        self.when_shown = WhenShown(self, self.refresh)  # loads and sorts when its tab is first shown
        state.book_changed.connect(self.when_shown)
        state.data_changed.connect(self.when_shown)
        state.selection_changed.connect(self._on_selection_changed)
        self.when_shown()

    # -- state -> widgets ----------------------------------------------------------------
    def refresh(self) -> None:
        session = self.state.session
        with signals_blocked(self.table.selectionModel()):
            self.model.load(self.state)
        with signals_blocked(self.speaker_box), signals_blocked(self.chapter_box):
            speaker, chapter = self.proxy.speaker, self.proxy.chapter
            self.speaker_box.clear()
            self.speaker_box.addItem("All speakers", False)
            self.speaker_box.addItem(NOBODY, None)
            self.chapter_box.clear()
            self.chapter_box.addItem("All chapters", None)
            if session is not None:
                for name in sorted(session.character_names(), key=str.casefold):
                    self.speaker_box.addItem(name, name)
                for c in session.chapters:
                    self.chapter_box.addItem(chapter_label(session.chapters, c.index), c.index)
            self.speaker_box.setCurrentIndex(max(self.speaker_box.findData(speaker), 0))
            self.chapter_box.setCurrentIndex(max(self.chapter_box.findData(chapter), 0))
        self._on_selection_changed()
        self._update_count()

    def _update_count(self) -> None:
        self.count.setText(f"{self.proxy.rowCount():,} of {self.model.rowCount():,}")

    def _on_selection_changed(self) -> None:
        """Follow the reader's selection (a click in the text, the review list…)."""
        selected = self.state.selected
        current = self.current_row()
        if selected is None or (current is not None and current.id == selected.id):
            return
        i = self.model.row_index(selected.id)
        index = self.proxy.mapFromSource(self.model.index(i, 0)) if i >= 0 else QModelIndex()
        self._following = True  # the view repaints; the reader is not sent there a second time
        try:
            if index.isValid():
                self.table.setCurrentIndex(index)
                self.table.selectRow(index.row())
                self.table.scrollTo(index)
            else:
                self.table.clearSelection()
        finally:
            self._following = False

    # -- widgets -> state ----------------------------------------------------------------
    def current_row(self) -> QuoteRow | None:
        index = self.table.selectionModel().currentIndex()
        if not index.isValid() or not self.table.selectionModel().isRowSelected(index.row(), QModelIndex()):
            return None
        source = self.proxy.mapToSource(index)
        return self.model.rows[source.row()] if source.isValid() else None

    def shown_rows(self) -> list[QuoteRow]:
        """The quotations the table shows, in its order."""
        return [self.model.rows[self.proxy.mapToSource(self.proxy.index(r, 0)).row()]
                for r in range(self.proxy.rowCount())]

    def select_row(self, r: int) -> None:
        """Select the r-th shown row (as a click or arrow key would)."""
        self.table.setCurrentIndex(self.proxy.index(r, 0))
        self.table.selectRow(r)

    def _on_row_changed(self, current: QModelIndex, previous: QModelIndex) -> None:
        if current.isValid() and not self._following:
            self._show(self.model.rows[self.proxy.mapToSource(current).row()])

    def _on_row_clicked(self, index: QModelIndex) -> None:
        row = self.model.rows[self.proxy.mapToSource(index).row()]
        if self.state.selected is not None and self.state.selected.id == row.id:
            self.state.jump_requested.emit(row.start)  # clicked again after scrolling away: show it again

    def _show(self, row: QuoteRow) -> None:
        stored = self.state.session.quote(row.id) if self.state.session is not None else None
        self.state.show_quote(stored or row)

    def _set_filter(self, **changes: object) -> None:
        self.proxy.set(**changes)
        self._update_count()

    def _on_type_changed(self) -> None:
        quote_type = self.type_box.currentData()
        self._set_filter(types=frozenset(QUOTE_TYPES) if quote_type is None else frozenset({quote_type}))

    def _on_speaker_changed(self) -> None:
        text = self.speaker_box.currentText().strip()
        i = self.speaker_box.findText(text, Qt.MatchFlag.MatchFixedString)  # case-insensitive exact name
        if i < 0:
            i = self.speaker_box.findText(text, Qt.MatchFlag.MatchContains)
        if i < 0:
            return
        with signals_blocked(self.speaker_box):
            self.speaker_box.setCurrentIndex(i)
        self._set_filter(speaker=self.speaker_box.itemData(i))

    def _on_chapter_changed(self) -> None:
        self._set_filter(chapter=self.chapter_box.currentData())

    def _on_below_changed(self) -> None:
        on = self.below_box.isChecked()
        self.below_value.setEnabled(on)
        self._set_filter(below=self.below_value.value() if on else None)


if __name__ == "__main__":
    from litlens.gui.preview import preview

    preview(QuotationTable, "quotations")
