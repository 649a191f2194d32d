"""Annotator view and dashboard for a study lead on a laptop (issue 36 item 9): labels that follow
the number of annotators, progress per annotator, the list of disagreements, axis titles,
intervals that rest on too few items, and long passages that scroll from the keyboard."""

from __future__ import annotations

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import pytest  # noqa: E402

pytest.importorskip("PySide6", reason="the GUI tests need PySide6 (pip install -e '.[test]')")

from PySide6.QtCore import Qt  # noqa: E402

from litlens.gui.annotate import ELLIPSIS, AnnotatorView, as_excerpt  # noqa: E402
from litlens.gui.dashboard import AgreementPanel, ci_text, majority_label  # noqa: E402
from litlens.services.studies import AnnotationSession, assign, create_proxy_study  # noqa: E402
from tests.studies.conftest import BEIR_MINI  # noqa: E402


@pytest.fixture
def pair_project(tmp_path):
    """A proxy study rated by two annotators: A always picks the gold, B differs on items 1 and 3."""
    project = tmp_path / "pair.litlens"
    create_proxy_study(project, beir=BEIR_MINI, distractors="bm25", per_item=3, name="pair")
    assign(project, "pair", ["A", "B"], overlap=2)
    for name in "AB":
        session = AnnotationSession.open(project, "pair", name)
        for i, entry in enumerate(session.queue):
            gold = entry.item.gold_position
            value = gold if name == "A" or i not in (1, 3) else 1 + gold % 3
            if name == "B" and i == 4:
                continue  # B has one item left
            session.answer(i, value)
        session.close()
    return project


@pytest.fixture
def dashboard(qtbot, pair_project):
    panel = AgreementPanel(pair_project, "pair", poll=False)
    qtbot.addWidget(panel)
    with qtbot.waitSignal(panel.ci_refreshed, timeout=30000):
        pass
    return panel


def _labels(panel) -> list[str]:
    return [panel.table.item(r, 0).text() for r in range(panel.table.rowCount())]


def test_dashboard_labels_follow_two_annotators(dashboard):
    labels = _labels(dashboard)
    assert "majority accuracy (majority of 2: both chose gold)" in labels
    assert "both agree" in labels and not any("of 3" in label for label in labels)
    assert "(2 per item)" in dashboard.status.text()


@pytest.mark.parametrize("raters, text", [(2, "majority of 2: both chose gold"), (3, "majority of 3: ≥ 2 of 3 chose gold"),
                                          (4, "majority of 4: ≥ 3 of 4 chose gold"), (1, "needs 2 or more")])
def test_majority_label_names_the_number_of_annotators(raters, text):
    assert text in majority_label(raters)


def test_dashboard_shows_progress_per_annotator(dashboard):
    table = dashboard.progress_table
    rows = {table.item(r, 0).text(): (table.item(r, 1).text(), table.cellWidget(r, 2).value()) for r in range(table.rowCount())}
    assert rows == {"A": ("5 of 5", 5), "B": ("4 of 5", 4)}


def test_dashboard_lists_the_disagreements_and_shows_each(qtbot, dashboard, pair_project):
    numbers = dashboard.numbers
    keys = [d["item"] for d in numbers["disagreements"]]
    assert len(keys) == 2 and dashboard.disagreement_list.count() == 2
    assert dashboard.side_tabs.tabText(1) == "Disagreements (2)"
    dashboard.show_disagreement(1)
    assert dashboard.side_tabs.currentIndex() == 1
    detail = dashboard.disagreement_detail.toPlainText()
    assert f"Item {keys[1]}" in detail and "A chose" in detail and "B chose" in detail and "(gold)" in detail
    dashboard.disagreement_list.setFocus()
    qtbot.keyClick(dashboard.disagreement_list, Qt.Key.Key_Up)  # the keyboard moves through them
    assert f"Item {keys[0]}" in dashboard.disagreement_detail.toPlainText()


def test_dashboard_flags_intervals_on_fewer_than_20_items_and_titles_axes(dashboard):
    ci = dashboard.table.item(0, 2).text()
    assert ci.startswith("[") and "only 4 items" in ci  # Fleiss' κ rests on the 4 items both rated
    assert ci_text(type(dashboard.numbers["summary"].fleiss_kappa)(0.5, 0.4, 0.6), 25) == "[0.400, 0.600]"
    for plot in (dashboard.time_plot, dashboard.acc_plot):
        item = plot.getPlotItem()
        assert item.getAxis("bottom").labelText and item.getAxis("left").labelText
    assert all(dashboard.time_plot.getPlotItem().vb.autoRangeEnabled())


def test_annotator_view_scrolls_a_long_passage_with_page_keys(qtbot, pair_project):
    view = AnnotatorView(pair_project)
    view.show_dialogs = False
    qtbot.addWidget(view)
    view.resize(900, 600)
    view.show()
    view.start("pair", "B")
    text = view.task.toPlainText()
    assert "Source:" in text and "not named in the data set" in text and "Excerpt" in text
    view.task.setHtml("<p>line</p>" * 300)
    bar = view.task.verticalScrollBar()
    assert bar.maximum() > 0 and bar.value() == 0
    qtbot.keyClick(view, Qt.Key.Key_PageDown)
    assert bar.value() == bar.pageStep()
    qtbot.keyClick(view, Qt.Key.Key_PageUp)
    assert bar.value() == 0
    assert view.index is not None and view.session.done == 4  # scrolling answered nothing


@pytest.mark.parametrize("text, shown", [
    ("They struck at each other.", "They struck at each other."),
    ("struck at each other, and", f"{ELLIPSIS} struck at each other, and {ELLIPSIS}"),
    ('"Ah," said the other', f'"Ah," said the other {ELLIPSIS}'),
])
def test_candidates_are_marked_as_excerpts(text, shown):
    assert as_excerpt(text) == shown
