"""The inspector's speaker box: sorted names, type to search, commits on Enter or a click only."""

from __future__ import annotations

from PySide6.QtCore import Qt

from litlens.gui.inspector import NOBODY


def _select_first_explicit(window, qtbot, project):
    with qtbot.waitSignal(window.book_opened, timeout=10000):
        assert window.open_project(project)
    row = next(r for r in window.state.session.quotes if r.quotation.type == "explicit" and r.quotation.speaker)
    window.state.show_quote(row)
    return row


def test_inspector_speaker_box_is_sorted(window, qtbot, gold_project):
    _select_first_explicit(window, qtbot, gold_project)
    box = window.inspector.speaker_box
    names = [box.itemText(i) for i in range(box.count())]
    assert names[0] == NOBODY and names[1:] == sorted(names[1:], key=str.casefold)


def test_inspector_speaker_box_commits_on_enter_not_on_arrow_keys(window, qtbot, fresh_gold):
    row = _select_first_explicit(window, qtbot, fresh_gold)
    box = window.inspector.speaker_box
    box.setFocus()
    before = len(window.state.session.history())
    for _ in range(3):
        qtbot.keyClick(box, Qt.Key.Key_Down)
    assert box.currentText() != row.quotation.speaker  # the box shows another name…
    assert window.state.session.quote(row.id).quotation.speaker == row.quotation.speaker  # …nothing is stored
    assert len(window.state.session.history()) == before
    shown = box.currentText()
    qtbot.keyClick(box, Qt.Key.Key_Return)
    assert window.state.session.quote(row.id).quotation.speaker == shown
    assert len(window.state.session.history()) == before + 1


def test_inspector_speaker_box_type_to_search_then_enter(window, qtbot, fresh_gold):
    row = _select_first_explicit(window, qtbot, fresh_gold)
    target = "Charlotte Lucas" if row.quotation.speaker != "Charlotte Lucas" else "Jane"
    box = window.inspector.speaker_box
    box.setFocus()
    box.lineEdit().selectAll()
    qtbot.keyClicks(box.lineEdit(), target.split()[0].lower())  # part of the name, any case
    assert window.state.session.quote(row.id).quotation.speaker == row.quotation.speaker
    if box.completer().popup().isVisible():
        box.completer().popup().hide()
    qtbot.keyClick(box, Qt.Key.Key_Return)
    assert window.state.session.quote(row.id).quotation.speaker == target
    assert window.state.session.quote(row.id).quotation.edited


def test_inspector_speaker_box_commits_on_a_click_in_the_list(window, qtbot, fresh_gold):
    row = _select_first_explicit(window, qtbot, fresh_gold)
    box = window.inspector.speaker_box
    i = next(i for i in range(1, box.count()) if box.itemData(i) != row.quotation.speaker)
    box.activated.emit(i)  # what a click on a name in the open list sends
    assert window.state.session.quote(row.id).quotation.speaker == box.itemData(i)


def test_inspector_chapter_uses_the_chapter_label(window, qtbot, gold_project):
    row = _select_first_explicit(window, qtbot, gold_project)
    assert window.inspector.chapter.text() == window.state.chapter_label(row.quotation.chapter)
    assert "Chapter" in window.inspector.chapter.text()
