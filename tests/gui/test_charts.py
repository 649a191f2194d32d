"""The charts name chapters as every panel does (chapter_label) in their tooltips and axis title."""

from __future__ import annotations

from PySide6.QtCore import QPointF

from litlens.services.books import chapter_label


def test_charts_chapter_tooltip_and_axis_title_use_the_chapter_label(window, qtbot, gold_project):
    window.resize(1400, 900)
    with qtbot.waitSignal(window.book_opened, timeout=10000):
        assert window.open_project(gold_project)
    window.docks["charts"].raise_()
    charts, session = window.charts, window.state.session
    busiest = int(charts.counts.sum(axis=1).argmax())
    tip = charts.chapter_tooltip(busiest)
    label = chapter_label(session.chapters, busiest)
    assert tip.splitlines()[0] == label and "·" in label
    assert tip.splitlines()[1].startswith(f"{int(charts.counts[busiest].sum()):,} quotations: ")
    assert charts.chapters_plot.getAxis("bottom").labelText == "chapter"
    row = next(r for r in session.quotes if r.quotation.chapter == busiest)
    window.state.select(row)
    assert charts.chapters_plot.getAxis("bottom").labelText == f"chapter · marked: {label}"
    name, counts = charts.speaker_types[0]
    assert charts.speaker_tooltip(name).splitlines() == [name, f"{int(counts.sum()):,} quotations: "
                                                         + charts.speaker_tooltip(name).split(": ", 1)[1]]


def test_charts_hover_over_a_bar_shows_its_chapter(window, qtbot, gold_project, monkeypatch):
    from litlens.gui import charts as charts_module

    window.resize(1400, 900)
    with qtbot.waitSignal(window.book_opened, timeout=10000):
        assert window.open_project(gold_project)
    charts = window.charts
    shown = []
    monkeypatch.setattr(charts_module.QToolTip, "showText", lambda pos, text, widget=None: shown.append(text))
    vb = charts.chapters_plot.getPlotItem().vb
    charts._on_chapters_hovered(vb.mapViewToScene(QPointF(2, 1)))  # the mouse over chapter 2's bar
    assert shown and shown[-1].splitlines()[0] == window.state.chapter_label(2)
    charts._on_chapters_hovered(vb.mapViewToScene(QPointF(2.5, 1)))  # between two bars: no tip
    assert len(shown) == 1
