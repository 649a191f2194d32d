"""The window on a laptop screen: minimum size, layout, exact-size screenshots, charts that
keep their labels apart, and a one-line message where there is no display (issue 36)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

LITLENS = str(Path(sys.executable).with_name("litlens"))


def _open(window, qtbot, project: Path) -> None:
    with qtbot.waitSignal(window.book_opened, timeout=10000):
        assert window.open_project(project)


def test_window_minimum_size_fits_a_1280_by_720_screen(window, qtbot, gold_project):
    _open(window, qtbot, gold_project)
    for laptop in (False, True):
        window.arrange_docks(laptop=laptop)
        qtbot.wait(20)
        low = window.minimumSizeHint().expandedTo(window.minimumSize())
        assert low.width() <= 1280 and low.height() <= 720, (laptop, low)
    window.resize(1280, 720)
    qtbot.wait(20)
    assert (window.width(), window.height()) == (1280, 720)


def test_window_laptop_layout_puts_the_panels_below_the_text(window, qtbot, gold_project):
    from PySide6.QtCore import Qt

    _open(window, qtbot, gold_project)
    window.resize(1366, 768)
    window.laptop_action.trigger()
    assert window.laptop_layout and window.laptop_action.isChecked()
    bottom = Qt.DockWidgetArea.BottomDockWidgetArea
    assert {name for name, dock in window.docks.items() if window.dockWidgetArea(dock) == bottom} == set(window.docks)
    # the inspector stays beside the tabbed group; the others are tabs of one group
    tabbed = window.tabifiedDockWidgets(window.docks["charts"])
    assert window.docks["inspector"] not in tabbed
    assert {window.docks[n] for n in ("characters", "evidence", "speakers")} <= set(tabbed)
    window.laptop_action.trigger()
    assert window.dockWidgetArea(window.docks["inspector"]) == Qt.DockWidgetArea.RightDockWidgetArea


def test_window_a_panel_can_be_hidden_from_the_view_menu_and_stays_hidden_on_relayout(window, qtbot, gold_project):
    _open(window, qtbot, gold_project)
    action = window.docks["charts"].toggleViewAction()
    assert action in window.view_menu.actions()
    action.trigger()
    assert not window.docks["charts"].isVisible()
    window.arrange_docks(laptop=True)
    assert not window.docks["charts"].isVisible() and window.docks["inspector"].isVisible()


def test_charts_follow_the_filters_and_mark_the_current_chapter_and_speaker(window, qtbot, gold_project):
    _open(window, qtbot, gold_project)
    charts = window.charts
    assert charts.counts.sum() == 1270
    window.state.set_filters(types=frozenset({"explicit"}))
    explicit = sum(1 for r in window.state.session.quotes if r.quotation.type == "explicit")
    assert charts.counts.sum() == explicit and charts.counts[:, 1:].sum() == 0
    assert "Anaphoric" not in charts.chapters_plot.getPlotItem().titleLabel.text
    window.state.set_filters(types=frozenset({"explicit", "anaphoric", "implicit"}), speaker="Mr. Darcy", chapter=3)
    darcy = sum(1 for r in window.state.session.quotes if r.quotation.speaker == "Mr. Darcy")
    assert charts.counts.sum() == darcy
    assert charts.marked_chapter == 3 and charts.marked_speaker == "Mr. Darcy"
    assert "Mr. Darcy" in [name for name, _ in charts.speakers]
    window.state.set_filters(speaker=None, chapter=None)
    row = next(r for r in window.state.session.quotes if r.quotation.speaker == "Jane")
    window.state.select(row)
    assert (charts.marked_chapter, charts.marked_speaker) == (row.quotation.chapter, "Jane")


def test_speaker_chart_is_stacked_by_type_and_titles_its_axes(window, qtbot, gold_project):
    from litlens.model import QUOTE_TYPES

    _open(window, qtbot, gold_project)
    charts = window.charts
    charts.resize(900, 400)
    qtbot.wait(20)
    name, counts = charts.speaker_types[0]
    assert name == "Elizabeth" and len(counts) == len(QUOTE_TYPES) and (counts > 0).sum() >= 2
    assert sum(counts) == charts.speakers[0][1]
    axis = charts.speakers_plot.getPlotItem()
    assert axis.getAxis("bottom").labelText == "quotations" and axis.getAxis("left").labelText == "speaker"
    assert charts.chapters_plot.getPlotItem().getAxis("left").labelText == "quotations"


def test_short_or_narrow_charts_hide_or_thin_their_labels(window, qtbot, gold_project):
    from litlens.gui.charts import ROOM_FOR_AXIS_TITLES, chapter_tick_step

    assert chapter_tick_step(61, 1000, 14) == 2 and chapter_tick_step(61, 400, 14) == 4 and chapter_tick_step(5, 900, 14) == 1
    from litlens.gui.charts import ChartsPanel

    _open(window, qtbot, gold_project)
    charts = ChartsPanel(window.state)  # alone: in the window its dock's scroll area sets its size
    qtbot.addWidget(charts)
    charts.show()
    charts.resize(560, ROOM_FOR_AXIS_TITLES - 20)
    qtbot.waitUntil(lambda: not charts.axis_titles_shown)
    assert not charts.chapters_plot.getPlotItem().getAxis("bottom").label.isVisible()
    ticks = charts.chapters_plot.getAxis("bottom")._tickLevels[0]
    assert charts.tick_step > 1 and len(ticks) <= len(charts.counts) // 2 + 1
    charts.resize(1300, 400)
    qtbot.waitUntil(lambda: charts.axis_titles_shown)
    assert charts.chapters_plot.getPlotItem().getAxis("bottom").label.isVisible()


@pytest.mark.parametrize("size", ["1366x768", "1280x720"])
def test_gui_screenshot_with_size_is_exactly_that_size(gold_project, tmp_path, size):
    from PySide6.QtGui import QImage

    out = tmp_path / "w.png"
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "LITLENS_HOME": str(tmp_path)}
    run = subprocess.run([LITLENS, "gui", str(gold_project), "--screenshot", str(out), "--size", size],
                         capture_output=True, text=True, env=env, timeout=180)
    assert run.returncode == 0, run.stderr[-2000:]
    image = QImage(str(out))
    assert f"{image.width()}x{image.height()}" == size
    colours = {image.pixel(x, y) for x in range(0, image.width(), 9) for y in range(0, image.height(), 9)}
    assert len(colours) > 30


def test_gui_size_smaller_than_the_minimum_is_one_error_line(gold_project, tmp_path):
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "LITLENS_HOME": str(tmp_path)}
    run = subprocess.run([LITLENS, "gui", str(gold_project), "--screenshot", str(tmp_path / "w.png"), "--size", "500x300"],
                         capture_output=True, text=True, env=env, timeout=180)
    assert run.returncode == 2
    assert [line for line in run.stderr.splitlines() if line.strip()][-1].startswith("litlens: error: --size 500x300")


def test_gui_without_a_display_says_so_in_one_line_and_exits_2(tmp_path):
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM")}
    env["LITLENS_HOME"] = str(tmp_path)
    run = subprocess.run([LITLENS, "gui"], capture_output=True, text=True, env=env, timeout=120)
    assert run.returncode == 2  # a Qt abort would be -6 (SIGABRT)
    lines = [line for line in run.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("litlens: error: no display")
    assert "litlens sample" in lines[0] and "QT_QPA_PLATFORM=offscreen" in lines[0]
    assert not list(tmp_path.iterdir())  # nothing was ingested


def test_display_problem_only_when_nothing_can_show_a_window(monkeypatch):
    from litlens.gui import app
    from litlens.gui.app import display_problem

    monkeypatch.setattr(app, "missing_qt_libraries", lambda: [])
    assert display_problem(env={}, platform="linux")
    assert display_problem(env={"DISPLAY": ":0"}, platform="linux") is None
    assert display_problem(env={"WAYLAND_DISPLAY": "wayland-0"}, platform="linux") is None
    assert display_problem(env={"QT_QPA_PLATFORM": "offscreen"}, platform="linux") is None
    assert display_problem(env={}, platform="linux", screenshot=True) is None
    assert display_problem(env={}, platform="darwin") is None


def test_missing_qt_libraries_are_named_with_their_packages(monkeypatch):
    from litlens.gui import app

    ldd = ("\tlibxcb-cursor.so.0 => /lib/x86_64-linux-gnu/libxcb-cursor.so.0 (0x7f)\n"
           "\tlibxcb-icccm.so.4 => not found\n\tlibxcb-keysyms.so.1 => not found\n\tlibxcb-icccm.so.4 => not found\n")
    assert app.not_found_in_ldd(ldd) == ["libxcb-icccm.so.4", "libxcb-keysyms.so.1"]
    monkeypatch.setattr(app, "missing_qt_libraries", lambda: app.not_found_in_ldd(ldd))
    message = app.display_problem(env={"DISPLAY": ":0"}, platform="linux")
    assert "libxcb-icccm.so.4" in message and "apt-get install libxcb-icccm4 libxcb-keysyms1" in message
    assert app.display_problem(env={"DISPLAY": ":0", "QT_QPA_PLATFORM": "offscreen"}, platform="linux") is None


def test_missing_qt_libraries_reads_the_real_plugin():
    from litlens.gui.app import missing_qt_libraries

    missing = missing_qt_libraries()  # on this machine or another: a list of sonames, never an error
    assert isinstance(missing, list) and all(name.startswith("lib") and ".so" in name for name in missing)


def test_window_alt_number_brings_a_panel_behind_a_tab_to_the_front(window, qtbot, gold_project):
    from PySide6.QtWidgets import QApplication

    _open(window, qtbot, gold_project)
    number = list(window.docks).index("quotations") + 1
    action = window.panel_actions["quotations"]
    assert action.shortcut().toString() == f"Alt+{number}"
    window.docks["charts"].raise_()
    qtbot.wait(10)
    assert window.docks["quotations"].visibleRegion().isEmpty()  # behind the charts' tab
    action.trigger()
    qtbot.wait(10)
    dock = window.docks["quotations"]
    assert dock.isVisible() and not dock.visibleRegion().isEmpty()
    assert window.quotations.isAncestorOf(QApplication.focusWidget())
    assert window.quotations.model.rowCount() == 1270  # it loaded when it came to the front
    dock.close()
    action.trigger()  # a closed panel opens again
    qtbot.wait(10)
    assert dock.isVisible() and not dock.visibleRegion().isEmpty()


def test_reader_filters_wrap_when_the_side_panels_leave_the_text_little_room(window, qtbot, gold_project):
    from PySide6.QtWidgets import QPushButton

    _open(window, qtbot, gold_project)
    window.resize(1366, 768)
    window.arrange_docks(laptop=False)  # the wide layout chosen by hand on a laptop screen
    reader = window.reader
    clear = next(b for b in reader.findChildren(QPushButton) if b.text() == "Clear filters")
    qtbot.waitUntil(lambda: reader.width() < 1000)
    qtbot.wait(50)
    for widget in (clear, reader.count, reader.chapter_filter):
        corner = widget.mapTo(reader, widget.rect().bottomRight())
        assert corner.x() < reader.width(), widget
        assert corner.y() < reader.view.mapTo(reader, reader.view.rect().topLeft()).y()  # above the text, not over it


def test_speakers_controls_wrap_in_the_narrow_right_dock(window, qtbot, gold_project):
    _open(window, qtbot, gold_project)
    window.resize(1366, 768)
    window.arrange_docks(laptop=False)
    window.docks["speakers"].raise_()
    speakers, dock = window.speakers, window.docks["speakers"]
    qtbot.waitUntil(lambda: 0 < dock.width() < 500)
    qtbot.wait(50)
    for widget in (speakers.attribute_button, speakers.colour_box, speakers.names_box):
        corner = widget.mapTo(dock, widget.rect().bottomRight())  # the dock is what the user sees
        assert corner.x() < dock.width(), widget.text()
    assert speakers.width() <= dock.width()  # the panel fits: it does not scroll sideways
