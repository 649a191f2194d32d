"""The reader on a laptop screen: context above a quotation, hover text, speaker colours and key,
margin names, the chapter navigator following the text, search counts, next/previous keys."""

from __future__ import annotations

import bisect

from PySide6.QtCore import QEvent, QPoint, Qt
from PySide6.QtGui import QColor, QHelpEvent, QTextCursor
from PySide6.QtWidgets import QApplication, QToolTip

from litlens.gui.state import OTHER_SPEAKER_COLOUR, SPEAKER_COLOURS


def _open(window, qtbot, project) -> None:
    window.resize(1280, 720)
    with qtbot.waitSignal(window.book_opened, timeout=10000):
        assert window.open_project(project)


def _paragraph(window, offset: int) -> int:
    return bisect.bisect_right(window.state.paragraph_starts, offset) - 1


def _mid_chapter_quote(window, nth: int):
    """A quotation at least five paragraphs into its chapter."""
    session = window.state.session
    starts = window.state.paragraph_starts
    rows = [r for r in session.quotes
            if _paragraph(window, r.start) >= 5 and starts[_paragraph(window, r.start) - 5] >= session.chapter_of(r.start).start]
    return rows[nth]


def _point_of(view, offset: int) -> QPoint:
    cursor = QTextCursor(view.document())
    cursor.setPosition(view.offsets.to_qt(offset))
    return view.cursorRect(cursor).center() + QPoint(2, 0)


def _relative_luminance(hex_colour: str) -> float:
    def channel(c: float) -> float:
        return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4

    colour = QColor(hex_colour)
    return 0.2126 * channel(colour.redF()) + 0.7152 * channel(colour.greenF()) + 0.0722 * channel(colour.blueF())


def test_reader_showing_a_quotation_keeps_three_paragraphs_above_it_in_view(window, qtbot, gold_project):
    _open(window, qtbot, gold_project)
    view = window.reader.view
    starts = window.state.paragraph_starts
    for nth in (40, 400, 900):
        row = _mid_chapter_quote(window, nth)
        window.state.show_quote(row)
        top, bottom = view.visible_range()
        i = _paragraph(window, row.start)
        assert top <= starts[i - 3], f"fewer than three paragraphs above quotation {row.id} are on screen"
        assert row.start < bottom and view.line_top(row.start) >= 0
        assert window.state.selected.id == row.id


def test_reader_scroll_to_a_chapter_puts_its_heading_on_top(window, qtbot, gold_project):
    _open(window, qtbot, gold_project)
    chapter = window.state.session.chapters[20]
    window.state.jump_requested.emit(chapter.start)
    top, _ = window.reader.view.visible_range()
    assert chapter.start <= top + 40 and window.state.session.chapter_of(top).index in (chapter.index - 1, chapter.index)


def test_reader_hover_shows_speaker_type_and_confidence(window, qtbot, gold_project):
    _open(window, qtbot, gold_project)
    view = window.reader.view
    row = next(r for r in window.state.session.quotes
               if r.quotation.type == "explicit" and r.quotation.speaker == "Elizabeth" and r.end - r.start > 40)
    text = view.tooltip_at(row.start + 10)
    assert text.splitlines()[:2] == ["Speaker: Elizabeth", f"Type: Explicit — “{row.quotation.referring_expression}”"]
    assert text.splitlines()[2].startswith("Confidence:")
    narration = next(o for o in range(row.end + 2, row.end + 2000) if window.state.session.quote_at(o) is None)
    assert view.tooltip_at(narration) == ""
    # The tooltip event over the quotation shows that text.
    window.state.show_quote(row)
    point = _point_of(view, row.start + 10)
    event = QHelpEvent(QEvent.Type.ToolTip, point, view.viewport().mapToGlobal(point))
    QApplication.sendEvent(view.viewport(), event)
    assert QToolTip.text() == text
    QToolTip.hideText()


def test_speaker_colours_are_twelve_distinct_readable_colours_then_grey():
    assert len(set(SPEAKER_COLOURS)) == 12 and OTHER_SPEAKER_COLOUR not in SPEAKER_COLOURS
    for colour in (*SPEAKER_COLOURS, OTHER_SPEAKER_COLOUR):
        contrast = 1.05 / (_relative_luminance(colour) + 0.05)
        assert contrast >= 3.0, f"{colour} has contrast {contrast:.2f} on white"


def test_reader_colour_by_speaker_shows_a_key_and_hides_the_type_legend(window, qtbot, gold_project):
    _open(window, qtbot, gold_project)
    reader = window.reader
    assert reader.legend.isVisible() and not reader.speaker_key.isVisible()
    window.speakers.colour_box.setChecked(True)
    colours = window.state.speaker_colours
    assert len(colours) == 12 and list(colours.values()) == list(SPEAKER_COLOURS)
    assert reader.speaker_key.isVisible() and not reader.legend.isVisible()
    key = reader.speaker_key.text()
    assert "Elizabeth" in key and "everyone&nbsp;else" in key
    counts: dict[str, int] = {}
    for row in window.state.session.quotes:
        counts[row.quotation.speaker] = counts.get(row.quotation.speaker, 0) + 1
    rare = min((n for n in counts if n), key=lambda n: counts[n])
    assert window.state.speaker_colour(rare) == OTHER_SPEAKER_COLOUR
    assert window.state.speaker_colour(max(counts, key=lambda n: counts[n] if n else -1)) == SPEAKER_COLOURS[0]
    window.speakers.colour_box.setChecked(False)
    assert window.state.speaker_colours is None and reader.legend.isVisible() and not reader.speaker_key.isVisible()


def test_reader_corrected_quotation_is_marked_and_the_mark_is_keyed(window, qtbot, fresh_gold):
    _open(window, qtbot, fresh_gold)
    row = _mid_chapter_quote(window, 100)
    window.state.show_quote(row)
    window.state.edit("set_quote_speaker", row.id, "Jane")
    assert "corrected by hand" in window.reader.view.tooltip_at(row.start + 2)
    assert "corrected" in window.reader.corrected_key.text() and window.reader.corrected_key.isVisible()
    edited = [s for s in window.reader.view.extraSelections()
              if s.format.underlineStyle() != s.format.underlineStyle().NoUnderline]
    assert edited, "the corrected quotation is underlined"


def test_reader_margin_names_widen_the_margin(window, qtbot, gold_project):
    _open(window, qtbot, gold_project)
    view = window.reader.view
    narrow = view.viewport().x()
    window.speakers.names_box.setChecked(True)
    assert view.show_names and view.viewport().x() > narrow + 80
    assert view.margin.width() == view.viewport().x() - view.contentsRect().left()
    assert not view.margin.grab().toImage().isNull()


def test_reader_navigator_follows_the_scroll_position(window, qtbot, gold_project):
    _open(window, qtbot, gold_project)
    nav = window.reader.navigator
    row = _mid_chapter_quote(window, 600)
    window.state.show_quote(row)
    window.reader.view.refresh_highlights()
    chapter = window.state.session.chapter_of(window.reader.view.visible_range()[0])
    assert nav.currentItem() is not None and nav.currentItem().data(Qt.ItemDataRole.UserRole) == chapter.index
    assert nav.currentItem().text().startswith(window.state.chapter_label(chapter.index))


def test_reader_search_counts_matches_and_a_miss_keeps_the_view(window, qtbot, gold_project):
    _open(window, qtbot, gold_project)
    bar, view = window.reader.search, window.reader.view
    window.reader.find_action.trigger()
    bar.field.setText("Netherfield")
    total = window.state.session.text.lower().count("netherfield")
    assert bar.status.text() == f"{total} matches"
    assert bar.find_next() and bar.status.text() == f"1 of {total}"
    assert bar.find_next() and bar.status.text() == f"2 of {total}"
    assert bar.find_previous() and bar.status.text() == f"1 of {total}"
    assert bar.find_previous() and bar.status.text() == f"{total} of {total}"  # wraps to the last
    where = view.verticalScrollBar().value()
    selection = view.textCursor().selectionStart()
    bar.field.setText("zzqqxx")
    assert not bar.find_next() and bar.status.text() == "not found"
    assert view.verticalScrollBar().value() == where and view.textCursor().selectionStart() == selection


def test_reader_alt_down_and_up_step_through_quotations(window, qtbot, gold_project):
    _open(window, qtbot, gold_project)
    quotes = window.state.session.quotes
    window.state.show_quote(quotes[10])
    window.reader.next_action.trigger()
    assert window.state.selected.id == quotes[11].id
    window.reader.previous_action.trigger()
    window.reader.previous_action.trigger()
    assert window.state.selected.id == quotes[9].id
    window.reader.legend.boxes["implicit"].click()  # only what the filters show
    window.reader.next_action.trigger()
    assert window.state.selected.quotation.type != "implicit" and window.state.selected.start > quotes[9].start


def test_reader_short_window_still_shows_the_lines_before_a_quotation(window, qtbot, gold_project):
    _open(window, qtbot, gold_project)
    window.resize(1024, 640)  # the smallest window: a short reader
    qtbot.wait(50)
    view = window.reader.view
    line = view.fontMetrics().height()
    for nth in (120, 303, 700, 1100):
        row = _mid_chapter_quote(window, nth)
        window.state.show_quote(row)
        top = view.line_top(row.start)
        assert line * 2 <= top <= view.viewport().height() - line, (
            f"quotation {row.id} is at y={top} of {view.viewport().height()}: no turns above it, or off screen")
