"""The quotation table: filters, sorting, type-to-search, and a selected row moves the reader."""

from __future__ import annotations

import bisect

from PySide6.QtCore import Qt

from litlens.gui.quotations import CHAPTER, CONFIDENCE, SPEAKER, TEXT


def _open(window, qtbot, project):
    window.resize(1280, 720)
    with qtbot.waitSignal(window.book_opened, timeout=10000):
        assert window.open_project(project)
    window.docks["quotations"].raise_()
    qtbot.waitUntil(lambda: not window.quotations.when_shown.pending)  # loads when its tab is chosen
    return window.quotations


def test_quotations_table_lists_every_quotation_in_text_order(window, qtbot, gold_project):
    table = _open(window, qtbot, gold_project)
    rows = table.shown_rows()
    assert len(rows) == len(window.state.session.quotes) == 1270
    assert [r.start for r in rows] == sorted(r.start for r in rows)
    assert table.count.text() == "1,270 of 1,270"
    first = table.proxy.index(0, CHAPTER).data()
    assert first == window.state.chapter_label(rows[0].quotation.chapter)


def test_quotations_table_filters_by_type_speaker_chapter_and_search(window, qtbot, gold_project):
    table = _open(window, qtbot, gold_project)
    quotes = window.state.session.quotes
    table.type_box.setCurrentIndex(table.type_box.findData("anaphoric"))
    assert {r.quotation.type for r in table.shown_rows()} == {"anaphoric"}
    table.speaker_box.setCurrentIndex(table.speaker_box.findData("Mr. Darcy"))
    table.speaker_box.activated.emit(table.speaker_box.currentIndex())
    expected = [r.id for r in quotes if r.quotation.type == "anaphoric" and r.quotation.speaker == "Mr. Darcy"]
    assert [r.id for r in table.shown_rows()] == expected and expected
    table.type_box.setCurrentIndex(0)
    chapter = next(r.quotation.chapter for r in quotes[500:] if r.quotation.speaker == "Mr. Darcy")
    table.chapter_box.setCurrentIndex(table.chapter_box.findData(chapter))
    shown = table.shown_rows()
    assert shown and all(r.quotation.chapter == chapter and r.quotation.speaker == "Mr. Darcy" for r in shown)
    table.speaker_box.setCurrentIndex(0)
    table.speaker_box.activated.emit(0)
    table.chapter_box.setCurrentIndex(0)
    table.search.setText("pemberley")
    shown = table.shown_rows()
    text = window.state.session.text
    assert shown and all("pemberley" in " ".join(text[s:e] for s, e in r.quotation.spans).lower()
                         or "pemberley" in (r.quotation.speaker or "").lower() for r in shown)
    assert table.count.text() == f"{len(shown)} of 1,270"


def test_quotations_table_confidence_below_and_corrected_only(window, qtbot, fresh_gold):
    table = _open(window, qtbot, fresh_gold)
    row = window.state.session.quotes[30]
    window.state.edit("set_quote_speaker", row.id, "Jane")
    table.edited_box.setChecked(True)
    assert [r.id for r in table.shown_rows()] == [row.id]
    assert table.proxy.index(0, 0).data() == "✎"
    table.edited_box.setChecked(False)
    table.below_value.setValue(0.5)
    table.below_box.setChecked(True)
    # Gold speakers carry no confidence: nothing is below any value.
    assert all(r.quotation.speaker_confidence is not None and r.quotation.speaker_confidence < 0.5
               for r in table.shown_rows())
    table.below_box.setChecked(False)
    assert table.proxy.rowCount() == 1270


def test_quotations_table_sorts_by_speaker_and_by_text_order(window, qtbot, gold_project):
    table = _open(window, qtbot, gold_project)
    table.table.sortByColumn(SPEAKER, Qt.SortOrder.AscendingOrder)
    speakers = [table.proxy.index(r, SPEAKER).data() for r in range(table.proxy.rowCount())]
    assert speakers == sorted(speakers, key=str.casefold)
    table.table.sortByColumn(CONFIDENCE, Qt.SortOrder.DescendingOrder)
    table.table.sortByColumn(TEXT, Qt.SortOrder.DescendingOrder)
    starts = [r.start for r in table.shown_rows()]
    assert starts == sorted(starts, reverse=True)


def test_quotations_table_row_selection_moves_the_reader(window, qtbot, gold_project):
    table = _open(window, qtbot, gold_project)
    view = window.reader.view
    starts = window.state.paragraph_starts
    table.table.setFocus()
    table.select_row(700)
    row = table.shown_rows()[700]
    assert window.state.selected.id == row.id
    top, bottom = view.visible_range()
    assert top <= row.start < bottom
    i = bisect.bisect_right(starts, row.start) - 1
    chapter_start = window.state.session.chapter_of(row.start).start
    assert top <= max(starts[i - 3], chapter_start)
    qtbot.keyClick(table.table, Qt.Key.Key_Down)  # arrow keys walk the reader through the quotations
    assert window.state.selected.id == table.shown_rows()[701].id
    # A click in the text selects the row.
    other = window.state.session.quotes[100]
    window.state.select(other)
    assert table.current_row().id == other.id


def test_quotations_table_typing_searches(window, qtbot, gold_project):
    table = _open(window, qtbot, gold_project)
    table.table.setFocus()
    qtbot.keyClicks(table.table, "lydia")
    assert table.search.text() == "lydia" and table.search.hasFocus()
    assert 0 < table.proxy.rowCount() < 1270
