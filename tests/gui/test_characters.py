"""The character table: sortable by any column, searchable by name or alias, aliases never cut off."""

from __future__ import annotations

from PySide6.QtCore import Qt

from litlens.gui.characters import ALIASES, COLUMNS


def _open(window, qtbot, project):
    with qtbot.waitSignal(window.book_opened, timeout=10000):
        assert window.open_project(project)
    window.docks["characters"].raise_()
    return window.characters


def test_characters_sort_by_counts_numerically_and_by_name(window, qtbot, gold_project):
    panel = _open(window, qtbot, gold_project)
    table = panel.table
    quotations = COLUMNS.index("Quotations")
    table.sortByColumn(quotations, Qt.SortOrder.DescendingOrder)
    counts = [table.item(r, quotations).data(Qt.ItemDataRole.DisplayRole) for r in range(table.rowCount())]
    assert counts == sorted(counts, reverse=True) and counts[0] > 100
    assert table.item(0, 0).text() == "Elizabeth"
    table.sortByColumn(0, Qt.SortOrder.AscendingOrder)
    names = [table.item(r, 0).text() for r in range(table.rowCount())]
    assert names == sorted(names, key=lambda n: n)


def test_characters_search_matches_names_and_aliases(window, qtbot, gold_project):
    panel = _open(window, qtbot, gold_project)
    darcy = next(row.character for row in window.state.session.characters if row.character.name == "Mr. Darcy")
    alias = next(a for a in darcy.aliases if a != darcy.name)
    panel.search.setText(alias.lower())
    assert "Mr. Darcy" in panel.visible_names()
    assert all(alias.lower() in (name + "; ".join(row.character.aliases)).lower()
               for name in panel.visible_names()
               for row in window.state.session.characters if row.character.name == name)
    assert panel.shown.text().startswith(f"{len(panel.visible_names())} of ")
    panel.search.clear()
    assert len(panel.visible_names()) == len(window.state.session.characters)


def test_characters_selection_survives_sorting_and_edits_follow(window, qtbot, fresh_gold):
    panel = _open(window, qtbot, fresh_gold)
    darcy = next(row.id for row in window.state.session.characters if row.character.name == "Mr. Darcy")
    panel.select_ids([darcy])
    panel.table.sortByColumn(COLUMNS.index("Mentions"), Qt.SortOrder.AscendingOrder)
    assert panel.selected_ids() == [darcy]
    window.state.edit("set_gender", darcy, "female")
    assert panel.selected_ids() == [darcy]
    assert panel.table.item(panel.row_of(darcy), COLUMNS.index("Gender")).text() == "female"


def test_characters_aliases_are_not_cut_off(window, qtbot, gold_project):
    panel = _open(window, qtbot, gold_project)
    table = panel.table
    metrics = table.fontMetrics()
    for r in range(table.rowCount()):
        text = table.item(r, ALIASES).text()
        lines = max(1, table.rowHeight(r) // metrics.height())
        assert metrics.horizontalAdvance(text) <= lines * table.columnWidth(ALIASES) + metrics.averageCharWidth() * 20, (
            f"aliases of row {r} need more room than their cell has")
