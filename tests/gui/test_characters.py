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


def test_characters_buttons_wrap_in_a_narrow_dock_and_aliases_keep_their_width(window, qtbot, gold_project):
    from PySide6.QtWidgets import QPushButton

    from litlens.gui.characters import MIN_ALIASES_WIDTH

    panel = _open(window, qtbot, gold_project)
    window.resize(1366, 768)
    window.arrange_docks(laptop=False)  # the wide layout on a laptop screen: a narrow right dock
    window.docks["characters"].raise_()
    qtbot.waitUntil(lambda: panel.width() < 500)
    qtbot.wait(50)
    buttons = [b for b in panel.findChildren(QPushButton) if b.isVisible()]
    assert len(buttons) == 5
    dock = window.docks["characters"]
    for button in buttons:  # every button whole inside the dock the user sees
        corner = button.mapTo(dock, button.rect().bottomRight())
        assert 0 <= corner.x() < dock.width(), button.text()
    assert panel.width() <= dock.width()  # the panel fits: it does not scroll sideways
    rows = {button.mapTo(panel, button.rect().topLeft()).y() for button in buttons}
    assert len(rows) >= 2  # they wrapped
    assert panel.search.mapTo(panel, panel.search.rect().topLeft()).y() > max(rows)  # below, not over them
    qtbot.waitUntil(lambda: panel.table.columnWidth(ALIASES) >= MIN_ALIASES_WIDTH)
    window.arrange_docks(laptop=True)  # the panel below the text: one row, the aliases take the room left
    window.docks["characters"].raise_()
    qtbot.waitUntil(lambda: panel.width() > 900)
    qtbot.wait(50)
    assert len({button.mapTo(panel, button.rect().topLeft()).y() for button in buttons}) == 1
    table = panel.table
    used = sum(table.columnWidth(c) for c in range(len(COLUMNS)))
    assert abs(used - table.viewport().width()) <= 2


def test_suggested_merges_list_a_split_name_and_merge_it_back(window, qtbot, fresh_gold):
    panel = _open(window, qtbot, fresh_gold)
    session = window.state.session
    darcy = next(row for row in session.characters if row.character.name == "Mr. Darcy")
    alias = next(a for a in darcy.character.aliases if a != darcy.character.name)
    before = len(session.characters)
    assert window.state.edit("split_alias", darcy.id, alias)
    assert len(window.state.session.characters) == before + 1
    panel.suggest_button.click()
    dialog = panel.suggest_dialog
    qtbot.waitUntil(lambda: dialog.progress.isHidden(), timeout=60000)  # computed off the GUI thread
    rows = [(dialog.table.item(r, 0).text(), dialog.table.item(r, 1).text(), dialog.table.item(r, 2).text())
            for r in range(dialog.table.rowCount())]
    assert (alias, "Mr. Darcy", "the names are one person's") in rows, rows
    dialog.tick(rows.index((alias, "Mr. Darcy", "the names are one person's")))
    assert dialog.merge_ticked() == 1
    assert len(window.state.session.characters) == before
    merged = next(row.character for row in window.state.session.characters if row.character.name == "Mr. Darcy")
    assert alias in merged.aliases
    assert window.state.edit("undo")  # a merge from the list is an ordinary, undoable edit
    assert len(window.state.session.characters) == before + 1


def test_suggested_merges_can_be_cancelled(window, qtbot, fresh_gold):
    panel = _open(window, qtbot, fresh_gold)
    panel.suggest_button.click()
    dialog = panel.suggest_dialog
    with qtbot.waitSignal(dialog.runner.idle, timeout=60000):
        dialog.cancel_button.click()  # a task cancelled before it reports is cancelled even if it got to the end
    assert dialog.progress.isHidden() and dialog.cancel_button.isHidden()
    assert dialog.message.text() == "Cancelled; nothing was changed."
    assert dialog.table.rowCount() == 0 and not dialog.merge_button.isEnabled()


def _suggested_rows(window, qtbot, tmp_path, text: str) -> list[tuple[str, str, str]]:
    """The rows (merge, into, why) *Suggest merges* shows for ``text`` ingested as a book."""
    from litlens.cli import main

    path = tmp_path / "book.txt"
    path.write_text("CHAPTER I.\n\n" + text, encoding="utf-8")
    project = tmp_path / "book.litlens"
    assert main(["ingest", str(path), "-p", str(project)]) == 0
    panel = _open(window, qtbot, project)
    panel.suggest_button.click()
    dialog = panel.suggest_dialog
    qtbot.waitUntil(lambda: dialog.progress.isHidden(), timeout=60000)
    return [tuple(dialog.table.item(r, c).text() for c in range(3)) for r in range(dialog.table.rowCount())]


def test_suggested_merges_say_what_the_dialogue_shows(window, qtbot, tmp_path):
    from tests.quotes.test_dialogue_leads import SPOUSES

    rows = _suggested_rows(window, qtbot, tmp_path, SPOUSES)
    why = 'Mr. Hall says "Janet" (2 of 2); the one woman of the family with no first name'
    assert ("Janet", "Mrs. Hall", why) in rows, rows


def test_suggested_merges_offer_a_shorter_name_to_each_name_it_may_be(window, qtbot, tmp_path):
    from tests.quotes.test_dialogue_leads import TWO_TOMS

    assert set(_suggested_rows(window, qtbot, tmp_path, TWO_TOMS)) == {
        ("Tom", "Tom Chitling", '"Tom" is a shorter form of "Tom Chitling" (and of "Tom White")'),
        ("Tom", "Tom White", '"Tom" is a shorter form of "Tom White" (and of "Tom Chitling")'),
    }


def test_characters_panel_closed_right_after_a_resize_leaves_no_late_call(qtbot, gold_project):
    import shiboken6
    from PySide6.QtWidgets import QApplication

    from litlens.gui.characters import CharacterPanel
    from litlens.gui.state import BookState
    from litlens.services.session import BookSession

    state = BookState()
    panel = CharacterPanel(state)
    panel.show()
    state.open_session(BookSession(gold_project, 1))
    panel.resize(380, 500)  # queues the aliases fit and a wrapped button row
    shiboken6.delete(panel)  # gone before the event loop runs them
    with qtbot.captureExceptions() as raised:
        QApplication.processEvents()
        QApplication.processEvents()
    assert raised == []
