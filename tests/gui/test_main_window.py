"""Drive the reader window as a user would (offscreen)."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtGui import QTextCursor

from litlens.services.session import BookSession
from litlens.store.project import open_project


def _point_of(window, offset: int) -> QPoint:
    """Widget point (in the viewport) of a character offset, scrolling it into view."""
    view = window.reader.view
    view.scroll_to(offset)
    cursor = QTextCursor(view.document())
    cursor.setPosition(view.offsets.to_qt(offset))
    return view.cursorRect(cursor).center() + QPoint(2, 0)


def _open(window, qtbot, project: Path) -> None:
    with qtbot.waitSignal(window.book_opened, timeout=10000):
        assert window.open_project(project)


def test_window_click_quotation_shows_it_in_the_inspector(window, qtbot, gold_project):
    _open(window, qtbot, gold_project)
    session = window.state.session
    row = next(r for r in session.quotes if r.quotation.type == "explicit" and r.end - r.start > 30)
    point = _point_of(window, row.start + 5)
    qtbot.mouseClick(window.reader.view.viewport(), Qt.MouseButton.LeftButton, pos=point)
    assert window.state.selected is not None and window.state.selected.id == row.id
    inspector = window.inspector
    assert f"Quotation {row.id}" in inspector.heading.text()
    assert inspector.type_box.currentData() == "explicit"
    assert inspector.speaker_box.currentData() == row.quotation.speaker
    assert inspector.referring.text() == row.quotation.referring_expression
    assert session.text[row.quotation.spans[0][0]:row.quotation.spans[0][1]][:20].replace("\n", " ") in (
        inspector.parts.toPlainText())


def test_window_type_filter_leaves_only_matching_highlights(window, qtbot, gold_project):
    _open(window, qtbot, gold_project)
    window.reader.view.scroll_to(window.state.session.chapters[3].start)
    assert {r.quotation.type for r in window.reader.view.highlighted} == {"explicit", "anaphoric", "implicit"}
    window.reader.legend.boxes["implicit"].click()
    window.reader.legend.boxes["anaphoric"].click()
    shown = window.reader.view.highlighted
    assert shown and {r.quotation.type for r in shown} == {"explicit"}
    assert len(window.reader.view.extraSelections()) >= len(shown)
    assert "of 1,270 quotations shown" in window.reader.count.text()


def test_window_speaker_filter_shows_one_characters_speech(window, qtbot, gold_project):
    _open(window, qtbot, gold_project)
    combo = window.reader.speaker_filter
    combo.setCurrentIndex(combo.findData("Mr. Darcy"))
    assert window.state.filters.speaker == "Mr. Darcy"
    visible = window.state.visible_quotes()
    assert len(visible) > 50 and {r.quotation.speaker for r in visible} == {"Mr. Darcy"}


def test_window_merge_characters_changes_counts_and_undo_restores(window, qtbot, fresh_gold):
    _open(window, qtbot, fresh_gold)
    panel = window.characters
    rows = {r.character.name: r for r in window.state.session.characters}
    target, source = rows["Elizabeth"], rows["Jane"]
    before_rows = panel.table.rowCount()
    panel.merge([source.id], target.id)
    merged = next(r for r in window.state.session.characters if r.id == target.id).character
    assert panel.table.rowCount() == before_rows - 1
    assert merged.quote_count == target.character.quote_count + source.character.quote_count
    assert set(source.character.aliases) <= set(merged.aliases)
    assert window.state.session.quote(next(r.id for r in window.state.session.quotes
                                           if r.quotation.speaker == "Elizabeth"))

    # persisted at once: another connection sees it
    with open_project(fresh_gold) as project:
        assert "Jane" not in {c.name for _, c in project.characters(1)}

    window.undo_action.trigger()
    restored = {r.character.name: r.character for r in window.state.session.characters}
    assert panel.table.rowCount() == before_rows
    assert restored["Jane"].quote_count == source.character.quote_count
    assert restored["Elizabeth"].quote_count == target.character.quote_count

    window.redo_action.trigger()
    assert "Jane" not in {r.character.name for r in window.state.session.characters}


def test_window_undo_works_after_a_restart(qtbot, fresh_gold):
    session = BookSession(fresh_gold)
    darcy = next(r for r in session.characters if r.character.name == "Mr. Darcy")
    session.rename_character(darcy.id, "Fitzwilliam Darcy")
    session.close()

    reopened = BookSession(fresh_gold)
    names = reopened.character_names()
    assert "Fitzwilliam Darcy" in names and "Mr. Darcy" not in names
    assert any(r.quotation.speaker == "Fitzwilliam Darcy" for r in reopened.quotes)
    reopened.undo()
    assert "Mr. Darcy" in reopened.character_names()
    assert not any(r.quotation.speaker == "Fitzwilliam Darcy" for r in reopened.quotes)
    reopened.close()


def test_window_correct_type_and_speaker_are_kept_as_human_edits(window, qtbot, fresh_gold):
    _open(window, qtbot, fresh_gold)
    row = next(r for r in window.state.session.quotes if r.quotation.type == "implicit")
    window.state.select(row)
    inspector = window.inspector
    inspector.type_box.setCurrentIndex(inspector.type_box.findData("anaphoric"))
    inspector.speaker_box.setCurrentIndex(inspector.speaker_box.findData("Mr. Collins"))
    qtbot.keyClick(inspector.speaker_box, Qt.Key.Key_Return)  # the speaker box commits on Enter
    stored = window.state.session.quote(row.id).quotation
    assert (stored.type, stored.speaker, stored.edited) == ("anaphoric", "Mr. Collins", True)
    assert "corrected by hand" in inspector.origin.text()
    window.undo_action.trigger()
    window.undo_action.trigger()
    stored = window.state.session.quote(row.id).quotation
    assert (stored.type, stored.speaker) == ("implicit", row.quotation.speaker)


def test_window_mark_and_delete_quotations_by_hand(window, qtbot, fresh_gold):
    _open(window, qtbot, fresh_gold)
    session = window.state.session
    start = session.text.index("It is a truth universally acknowledged")
    end = start + len("It is a truth universally acknowledged")
    view = window.reader.view
    cursor = view.textCursor()
    cursor.setPosition(start)
    cursor.setPosition(end, QTextCursor.MoveMode.KeepAnchor)
    view.setTextCursor(cursor)
    n = len(session.quotes)
    window._on_mark_clicked()
    added = session.quote_at(start + 3)
    assert len(session.quotes) == n + 1 and added.quotation.origin == "human"
    window.state.select(added)
    window.inspector.delete_button.click()
    assert len(session.quotes) == n and session.quote_at(start + 3) is None
    window.undo_action.trigger()
    assert session.quote_at(start + 3) is not None


def test_window_search_moves_to_next_and_previous_match(window, qtbot, gold_project):
    _open(window, qtbot, gold_project)
    bar = window.reader.search
    window.reader.find_action.trigger()
    assert bar.isVisible()
    bar.field.setText("Netherfield")
    assert bar.find_next()
    first = window.reader.view.textCursor().selectionStart()
    assert bar.find_next()
    second = window.reader.view.textCursor().selectionStart()
    assert second > first
    assert bar.find_previous()
    assert window.reader.view.textCursor().selectionStart() == first
    bar.field.setText("zzqqxx")
    assert not bar.find_next() and bar.status.text() == "not found"


def test_window_chapter_navigator_jumps(window, qtbot, gold_project):
    _open(window, qtbot, gold_project)
    nav = window.reader.navigator
    items = [nav.item(i) for i in range(nav.count())]
    chapters = [item for item in items if "·" in item.text()]
    headers = [item.text() for item in items if "·" not in item.text()]
    assert len(chapters) == len(window.state.session.chapters)
    assert headers == ["Vol. II", "Vol. III"]  # a heading per volume above its chapters
    last = nav.item(nav.count() - 1)
    nav.itemClicked.emit(last)
    start, end = window.reader.view.visible_range()
    chapter = window.state.session.chapters[-1]
    assert start <= chapter.start + 200 and end > chapter.start


def test_window_chart_click_filters_the_reader(window, qtbot, gold_project):
    _open(window, qtbot, gold_project)
    charts = window.charts
    assert charts.counts.sum() == 1270
    chapter = int(charts.counts.sum(axis=1).argmax())
    plot = charts.chapters_plot
    vb = plot.getPlotItem().vb
    height = charts.counts[chapter].sum()
    scene_point = vb.mapViewToScene(pg_point(chapter, height / 2))
    qtbot.mouseClick(plot.viewport(), Qt.MouseButton.LeftButton, pos=plot.mapFromScene(scene_point))
    assert window.state.filters.chapter == chapter
    assert {r.quotation.chapter for r in window.state.visible_quotes()} == {chapter}

    name, _ = charts.speakers[0]
    assert charts.speaker_at(len(charts.speakers) - 1) == name
    assert name == "Elizabeth"


def test_chapter_chart_keys_its_colours_in_the_title_not_over_the_bars(window, qtbot, gold_project):
    from litlens.gui.style import TYPE_COLOURS, TYPE_LABELS

    _open(window, qtbot, gold_project)
    item = window.charts.chapters_plot.getPlotItem()
    assert item.legend is None  # an overlaid legend hid the tallest chapters' bars
    title = item.titleLabel.text
    for quote_type, label in TYPE_LABELS.items():
        assert f'color:{TYPE_COLOURS[quote_type]}">&#9632;</span>&nbsp;{label}' in title


def test_window_speaker_chart_shows_only_the_names_it_has_room_for(window, qtbot, gold_project):
    from litlens.gui.charts import TOP_SPEAKERS, bars_that_fit

    assert bars_that_fit(120, 15) == 3 and bars_that_fit(150, 15) == 4 and bars_that_fit(400, 15) == TOP_SPEAKERS and bars_that_fit(200, 15) == 7
    _open(window, qtbot, gold_project)
    charts = window.charts
    line = charts.speakers_plot.fontMetrics().height()
    for height in (160, 600):
        charts.resize(charts.width(), height)
        qtbot.waitUntil(lambda: charts.shown_limit == bars_that_fit(charts.speakers_plot.height(), line))
        assert len(charts.speakers) == charts.shown_limit
        labels = charts.speakers_plot.getAxis("left")._tickLevels[0]
        assert [name for _, name in labels] == [name for name, _ in charts.speakers]
        # each name has at least a line of its own
        assert charts.speakers_plot.height() / len(charts.speakers) >= line


def pg_point(x: float, y: float):
    from PySide6.QtCore import QPointF

    return QPointF(x, y)


def test_window_ingest_in_background_then_cancel_leaves_project_unchanged(window, qtbot, gold_project, tmp_path):
    project = tmp_path / "p.litlens"
    import shutil

    shutil.copy(gold_project, project)
    novel = tmp_path / "novel.txt"
    novel.write_text(_long_novel(), encoding="utf-8")
    with qtbot.waitSignal(window.runner.cancelled, timeout=60000):
        window.ingest(novel, project)
        assert window.progress.isVisible() and window.cancel_button.isVisible()
        qtbot.waitUntil(lambda: window.progress.value() > 0, timeout=30000)
        window.cancel_button.click()
    with open_project(project) as p:
        assert [b.id for b in p.books()] == [1]
    assert not window.progress.isVisible()


def _long_novel() -> str:
    para = '"I have not the pleasure of understanding you," said Elizabeth. "Pray explain it."\n\n'
    return "".join(f"CHAPTER {i}.\n\n" + para * 40 for i in range(1, 60))


def test_window_failing_ingest_shows_the_error(window, qtbot, tmp_path):
    empty = tmp_path / "empty.txt"
    empty.write_text("")
    with qtbot.waitSignal(window.error_shown, timeout=20000) as blocker:
        window.open_path(empty)
    assert str(empty) in blocker.args[0] and "empty" in blocker.args[0].lower()
    assert window.state.session is None


def test_window_opening_a_file_that_is_not_a_project_shows_the_error(window, qtbot, tmp_path):
    bogus = tmp_path / "notes.litlens"
    bogus.write_text("not a database")
    with qtbot.waitSignal(window.error_shown, timeout=5000) as blocker:
        window.open_path(bogus)
    assert "not a LitLens project" in blocker.args[0]


def test_window_remembers_recent_projects(window, qtbot, gold_project):
    _open(window, qtbot, gold_project)
    assert window.recent()[0] == str(Path(gold_project).resolve())
    assert window.recent_menu.actions()[0].text() == str(Path(gold_project).resolve())


@pytest.mark.parametrize("panel", ["window", "reader", "inspector", "characters", "charts"])
def test_window_screenshot_of_every_panel_is_not_blank(window, qtbot, detected_project, panel, tmp_path):
    _open(window, qtbot, detected_project)
    window.resize(1400, 900)
    qtbot.wait(50)
    rows = [r for r in window.reader.view.highlighted if r.quotation.type == "explicit"]
    window.state.select(rows[0] if rows else None)
    widget = {"window": window, "reader": window.reader, "inspector": window.inspector,
              "characters": window.characters, "charts": window.charts}[panel]
    image = widget.grab().toImage()
    out = tmp_path / f"{panel}.png"
    assert image.save(str(out))
    colours = {image.pixel(x, y) for x in range(0, image.width(), 7) for y in range(0, image.height(), 7)}
    assert image.width() > 200 and image.height() > 100
    assert len(colours) > 20, f"{panel} looks blank ({len(colours)} colours)"


def test_window_analyse_again_keeps_corrections(window, qtbot, detected_project, tmp_path):
    import shutil

    project = tmp_path / "pp.litlens"
    shutil.copy(detected_project, project)
    _open(window, qtbot, project)
    row = next(r for r in window.state.session.quotes if r.quotation.type == "implicit")
    window.state.select(row)
    window.inspector.type_box.setCurrentIndex(window.inspector.type_box.findData("anaphoric"))
    n = len(window.state.session.quotes)
    with qtbot.waitSignal(window.book_opened, timeout=60000):
        window.reanalyse_action.trigger()
    session = window.state.session
    kept = session.quote_at(row.start)
    assert (kept.quotation.type, kept.quotation.edited) == ("anaphoric", True)
    assert len(session.quotes) == n


def test_window_analyse_again_refuses_gold_books(window, qtbot, fresh_gold):
    _open(window, qtbot, fresh_gold)
    with qtbot.waitSignal(window.error_shown, timeout=60000) as shown:
        window.reanalyse_action.trigger()
    assert "gold (PDNC) quotations" in shown.args[0]
    assert len(window.state.session.quotes) == 1270


@pytest.mark.parametrize("panel", ["reader", "inspector", "characters", "charts"])
def test_each_panel_runs_alone_on_the_sample(panel, tmp_path, detected_project, monkeypatch):
    import os
    import shutil
    import subprocess
    import sys

    from PySide6.QtGui import QImage

    from litlens.resources import sample_project

    shutil.copy(detected_project, sample_project())  # the sample, already ingested
    out = tmp_path / f"{panel}.png"
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    run = subprocess.run([sys.executable, "-m", f"litlens.gui.{panel}", "--screenshot", str(out)],
                         capture_output=True, text=True, env=env, timeout=120)
    assert run.returncode == 0, run.stderr[-2000:]
    image = QImage(str(out))
    assert image.width() > 200 and image.height() > 200
    colours = {image.pixel(x, y) for x in range(0, image.width(), 7) for y in range(0, image.height(), 7)}
    assert len(colours) > 8  # more than a blank background


def test_window_dropping_a_project_file_opens_it(window, qtbot, gold_project):
    from PySide6.QtCore import QMimeData, QPointF, QUrl
    from PySide6.QtGui import QDragEnterEvent, QDropEvent

    data = QMimeData()
    data.setUrls([QUrl.fromLocalFile(str(gold_project))])
    enter = QDragEnterEvent(QPoint(50, 50), Qt.DropAction.CopyAction, data, Qt.MouseButton.LeftButton,
                            Qt.KeyboardModifier.NoModifier)
    window.dragEnterEvent(enter)
    assert enter.isAccepted()
    drop = QDropEvent(QPointF(50, 50), Qt.DropAction.CopyAction, data, Qt.MouseButton.LeftButton,
                      Qt.KeyboardModifier.NoModifier)
    with qtbot.waitSignal(window.book_opened, timeout=10000):
        window.dropEvent(drop)
    assert window.state.session is not None and len(window.state.session.quotes) == 1270
