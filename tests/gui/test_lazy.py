"""Hidden tabs wait: the quotation table, the speakers' review list and the evidence panel load
when their tab is first chosen, and a change made while they are hidden shows when they are."""

from __future__ import annotations

from PySide6.QtCore import Qt

from litlens.gui.quotations import SPEAKER


def _open(window, qtbot, project):
    with qtbot.waitSignal(window.book_opened, timeout=10000):
        assert window.open_project(project)


def _choose(window, qtbot, name):
    """Choose a dock's tab as a click on it would, and let the event loop run."""
    window.docks[name].raise_()
    qtbot.wait(10)


def test_lazy_hidden_tabs_load_when_first_shown(window, qtbot, gold_project):
    _open(window, qtbot, gold_project)
    # switching layouts shows every dock for a moment: that alone loads nothing
    window.arrange_docks(laptop=True)
    window.arrange_docks(laptop=False)
    qtbot.wait(10)
    assert window.quotations.model.rowCount() == 0 and window.quotations.when_shown.pending
    assert window.speakers.items == [] and window.speakers.when_shown.pending
    assert window._evidence is None  # not even built
    assert window.characters.table.rowCount() == len(window.state.session.characters)  # on screen: loaded
    _choose(window, qtbot, "quotations")
    assert window.quotations.model.rowCount() == 1270 and window.quotations.count.text() == "1,270 of 1,270"
    _choose(window, qtbot, "speakers")
    assert len(window.speakers.items) == 1270 and window.speakers.summary.text()
    _choose(window, qtbot, "evidence")
    assert window._evidence is not None and window.docks["evidence"].widget().widget() is window.evidence


def test_lazy_change_while_hidden_shows_when_the_tab_is_chosen(window, qtbot, fresh_gold):
    _open(window, qtbot, fresh_gold)
    _choose(window, qtbot, "quotations")
    table = window.quotations
    _choose(window, qtbot, "charts")  # the table is behind the charts again
    row = window.state.session.quotes[40]
    window.state.edit("set_quote_speaker", row.id, "Jane" if row.quotation.speaker != "Jane" else "Elizabeth")
    assert table.when_shown.pending
    _choose(window, qtbot, "quotations")
    assert not table.when_shown.pending
    table.edited_box.setChecked(True)
    assert [r.id for r in table.shown_rows()] == [row.id]


def test_lazy_sorting_keeps_the_selected_quotation(window, qtbot, gold_project):
    _open(window, qtbot, gold_project)
    _choose(window, qtbot, "quotations")
    table = window.quotations
    table.select_row(500)
    chosen = table.current_row()
    table.table.sortByColumn(SPEAKER, Qt.SortOrder.DescendingOrder)
    names = [r.quotation.speaker or "(nobody)" for r in table.shown_rows()]
    assert names == sorted(names, key=str.casefold, reverse=True)
    assert table.current_row().id == chosen.id == window.state.selected.id
    same = [r.start for r in table.shown_rows() if r.quotation.speaker == chosen.quotation.speaker]
    assert same == sorted(same)  # one speaker's quotations stay in text order
