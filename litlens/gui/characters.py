"""CharacterPanel: characters with aliases, gender and counts; merge, split, rename,
re-gender — each edit stored at once and undoable; "Suggest merges…" lists the pairs that
may be one person (:mod:`litlens.gui.merge_suggestions`). Click a header to sort; type in the
search field to keep only the characters whose name or an alias contains the text.

Run alone on the sample: ``python -m litlens.gui.characters``.
"""

from __future__ import annotations

from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QInputDialog,
    QLabel,
    QLineEdit,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from litlens.services.editing import GENDERS
from litlens.gui.lazy import WhenShown
from litlens.gui.state import BookState
from litlens.gui.style import FlowLayout, signals_blocked

COLUMNS = ["Name", "Gender", "Mentions", "Quotations", "Aliases"]
ALIASES = COLUMNS.index("Aliases")
MIN_ALIASES_WIDTH = 240  # pixels; narrower, the panel scrolls sideways


class CharacterPanel(QWidget):
    def __init__(self, state: BookState, parent: QWidget | None = None):
        super().__init__(parent)
        self.state = state
        self.table = QTableWidget(0, len(COLUMNS))
        self.table.setHorizontalHeaderLabels(COLUMNS)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.verticalHeader().hide()
        self.table.setWordWrap(True)  # long alias lists wrap instead of being cut off
        self.table.setSortingEnabled(True)
        self.table.sortByColumn(COLUMNS.index("Mentions"), Qt.SortOrder.DescendingOrder)
        header = self.table.horizontalHeader()
        header.setSortIndicatorShown(True)
        header.setStretchLastSection(True)
        self.search = QLineEdit(placeholderText="Search names and aliases")
        self.search.setClearButtonEnabled(True)
        self.shown = QLabel("")
        self.gender_box = QComboBox()
        for gender in GENDERS:
            self.gender_box.addItem(gender, gender)
        self.merge_button = QPushButton("Merge into…")
        self.merge_button.setToolTip("Fold the selected character(s) into another one (e.g. Lizzy into Elizabeth)")
        self.split_button = QPushButton("Split alias…")
        self.rename_button = QPushButton("Rename…")
        self.show_button = QPushButton("Show speech")
        self.show_button.setToolTip("Filter the reader to this character's quotations")
        self.suggest_button = QPushButton("Suggest merges…")
        self.suggest_button.setToolTip("Pairs of characters that may be one person (a first name and a married "
                                       "name, a nickname), to merge with one click")
        self.suggest_dialog = None

        gender = QWidget()  # the label stays beside its box when the row wraps
        gender_row = QHBoxLayout(gender)
        gender_row.setContentsMargins(0, 0, 0, 0)
        gender_row.addWidget(QLabel("Gender:"))
        gender_row.addWidget(self.gender_box)
        buttons = FlowLayout()  # wraps in a narrow dock instead of cutting the last buttons off
        for widget in (self.merge_button, self.suggest_button, self.split_button, self.rename_button,
                       gender, self.show_button):
            buttons.addWidget(widget)
        search_row = QHBoxLayout()
        search_row.addWidget(self.search, 1)
        search_row.addWidget(self.shown)
        layout = QVBoxLayout(self)
        layout.addLayout(buttons)
        layout.addLayout(search_row)
        layout.addWidget(self.table, 1)
        focus_search = QShortcut(QKeySequence("Ctrl+Shift+F"), self)
        focus_search.setContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
        focus_search.activated.connect(self.search.setFocus)

        self.merge_button.clicked.connect(self._on_merge_clicked)
        self.split_button.clicked.connect(self._on_split_clicked)
        self.rename_button.clicked.connect(self._on_rename_clicked)
        self.gender_box.activated.connect(self._on_gender_chosen)
        self.show_button.clicked.connect(self._on_show_clicked)
        self.suggest_button.clicked.connect(self.suggest_merges)
        self.table.itemSelectionChanged.connect(self._on_selection_changed)
        self.search.textChanged.connect(self._apply_search)
        self._rows_timer = QTimer(self, singleShot=True, interval=0, timeout=self.table.resizeRowsToContents)
        self.table.horizontalHeader().sectionResized.connect(self._on_section_resized)
        self.when_shown = WhenShown(self, self.refresh)  # a tab behind another refreshes when chosen
        state.book_changed.connect(self.when_shown)
        state.data_changed.connect(self.when_shown)
        self.when_shown()

    # -- view -------------------------------------------------------------------------
    def refresh(self) -> None:
        session = self.state.session
        keep = set(self.selected_ids())
        with signals_blocked(self.table):
            self.table.setSortingEnabled(False)  # fill first, sort once
            rows = session.characters if session else []
            self.table.setRowCount(len(rows))
            for r, row in enumerate(rows):
                c = row.character
                values = [c.name, c.gender, c.mention_count, c.quote_count, "; ".join(c.aliases)]
                for col, value in enumerate(values):
                    item = QTableWidgetItem()
                    item.setData(Qt.ItemDataRole.DisplayRole, value)  # numbers sort as numbers
                    item.setData(Qt.ItemDataRole.UserRole, row.id)
                    if isinstance(value, int):
                        item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
                    if col == ALIASES:
                        tip = "; ".join(c.aliases)
                        if c.ambiguous_aliases:
                            tip += "\nAmbiguous: " + ", ".join(c.ambiguous_aliases)
                        item.setToolTip(tip)
                    self.table.setItem(r, col, item)
            self.table.setSortingEnabled(True)
            self._size_columns()
            self._apply_search()
            self.select_ids([i for i in keep if self.row_of(i) >= 0])
        self._on_selection_changed()

    def _size_columns(self) -> None:
        """Name, gender and counts as wide as their contents; the aliases take the rest and wrap."""
        for col in range(len(COLUMNS)):
            if col != ALIASES:
                self.table.resizeColumnToContents(col)
        name_width = min(self.table.columnWidth(0), 220)  # a very long name wraps rather than squeezing aliases
        self.table.setColumnWidth(0, name_width)
        self._fit_aliases()
        self.table.resizeRowsToContents()

    def _fit_aliases(self) -> None:
        """The aliases take the width the other columns leave, but never less than
        ``MIN_ALIASES_WIDTH``: in a narrow dock the table scrolls sideways instead of wrapping
        every alias onto its own line."""
        header = self.table.horizontalHeader()
        left = self.table.viewport().width() - sum(self.table.columnWidth(c) for c in range(ALIASES))
        if left >= MIN_ALIASES_WIDTH:
            header.setSectionResizeMode(ALIASES, QHeaderView.ResizeMode.Stretch)
        else:
            header.setSectionResizeMode(ALIASES, QHeaderView.ResizeMode.Interactive)
            self.table.setColumnWidth(ALIASES, MIN_ALIASES_WIDTH)

    def resizeEvent(self, event) -> None:  # noqa: N802 (Qt API)
        super().resizeEvent(event)
        QTimer.singleShot(0, self, self._fit_aliases)  # once the table has its new width (not if the panel is gone)

    def _on_section_resized(self, column: int, old: int, new: int) -> None:
        if column == ALIASES:  # the panel changed width: aliases wrap differently, once the layout settles
            self._rows_timer.start()

    def _apply_search(self) -> None:
        needle = self.search.text().strip().casefold()
        shown = 0
        for r in range(self.table.rowCount()):
            name, aliases = self.table.item(r, 0), self.table.item(r, ALIASES)
            hide = bool(needle) and needle not in name.text().casefold() and needle not in aliases.text().casefold()
            self.table.setRowHidden(r, hide)
            shown += not hide
        total = self.table.rowCount()
        self.shown.setText(f"{shown} of {total}" if needle else f"{total} characters")

    def visible_names(self) -> list[str]:
        """Names in the order the table shows them, hidden rows left out."""
        return [self.table.item(r, 0).text() for r in range(self.table.rowCount()) if not self.table.isRowHidden(r)]

    def row_of(self, character_id: int) -> int:
        for r in range(self.table.rowCount()):
            if self.table.item(r, 0).data(Qt.ItemDataRole.UserRole) == character_id:
                return r
        return -1

    def selected_ids(self) -> list[int]:
        rows = sorted({index.row() for index in self.table.selectionModel().selectedRows()}) if self.table.selectionModel() else []
        return [self.table.item(r, 0).data(Qt.ItemDataRole.UserRole) for r in rows]

    def select_ids(self, ids: list[int]) -> None:
        self.table.clearSelection()
        for character_id in ids:
            r = self.row_of(character_id)
            if r >= 0:
                self.table.selectionModel().select(
                    self.table.model().index(r, 0),
                    self.table.selectionModel().SelectionFlag.Select | self.table.selectionModel().SelectionFlag.Rows,
                )

    def _character(self, character_id: int):
        return next(row.character for row in self.state.session.characters if row.id == character_id)

    def _on_selection_changed(self) -> None:
        ids = self.selected_ids()
        one = len(ids) == 1
        for button in (self.split_button, self.rename_button, self.show_button):
            button.setEnabled(one)
        self.gender_box.setEnabled(one)
        self.merge_button.setEnabled(bool(ids))
        if one:
            with signals_blocked(self.gender_box):
                self.gender_box.setCurrentIndex(max(self.gender_box.findData(self._character(ids[0]).gender), 0))

    # -- intents ----------------------------------------------------------------------
    def merge(self, source_ids: list[int], target_id: int) -> None:
        for source_id in source_ids:
            if source_id != target_id:
                self.state.edit("merge_characters", source_id, target_id)

    def _on_merge_clicked(self) -> None:
        sources = self.selected_ids()
        others = [row for row in self.state.session.characters if row.id not in sources]
        if not sources or not others:
            return
        labels = [f"{row.character.name} ({row.character.mention_count} mentions)" for row in others]
        choice, ok = QInputDialog.getItem(self, "Merge characters",
                                          "Merge the selected character(s) into:", labels, 0, False)
        if ok:
            self.merge(sources, others[labels.index(choice)].id)

    def _on_split_clicked(self) -> None:
        ids = self.selected_ids()
        if len(ids) != 1:
            return
        character = self._character(ids[0])
        aliases = [a for a in character.aliases]
        if len(aliases) < 2:
            self.state.error.emit(f"{character.name} has a single alias; there is nothing to split off")
            return
        alias, ok = QInputDialog.getItem(self, "Split alias", f"Make a separate character of this alias of {character.name}:",
                                         aliases, 0, False)
        if ok:
            self.state.edit("split_alias", ids[0], alias)

    def _on_rename_clicked(self) -> None:
        ids = self.selected_ids()
        if len(ids) != 1:
            return
        character = self._character(ids[0])
        name, ok = QInputDialog.getText(self, "Rename character", "New name:", text=character.name)
        if ok:
            self.state.edit("rename_character", ids[0], name)

    def _on_gender_chosen(self) -> None:
        ids = self.selected_ids()
        if len(ids) == 1:
            self.state.edit("set_gender", ids[0], self.gender_box.currentData())

    def suggest_merges(self) -> None:
        """Open the list of characters that may be one person; it fills in the background."""
        from litlens.gui.merge_suggestions import SuggestMergesDialog

        if self.state.session is None:
            return
        if self.suggest_dialog is not None:
            self.suggest_dialog.close()
        self.suggest_dialog = SuggestMergesDialog(self.state, self)
        self.suggest_dialog.show()
        self.suggest_dialog.start()

    def _on_show_clicked(self) -> None:
        ids = self.selected_ids()
        if len(ids) == 1:
            self.state.set_filters(speaker=self._character(ids[0]).name)


if __name__ == "__main__":
    from litlens.gui.preview import preview

    preview(CharacterPanel, "characters")
