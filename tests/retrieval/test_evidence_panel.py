"""The GUI evidence panel, driven as a user would (pytest-qt, offscreen)."""

from __future__ import annotations

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import pytest  # noqa: E402

pytest.importorskip("PySide6", reason="the GUI tests need PySide6")
pytest.importorskip("pytestqt", reason="the GUI tests need pytest-qt")

from PySide6.QtCore import Qt  # noqa: E402

from litlens.gui.evidence import EvidencePanel  # noqa: E402
from litlens.gui.state import BookState  # noqa: E402
from litlens.services.session import BookSession  # noqa: E402
from litlens.store.project import open_project  # noqa: E402
from litlens.store.retrieval import RetrievalStore  # noqa: E402

from .conftest import ESSAY  # noqa: E402


@pytest.fixture
def panel(qtbot, short_project):
    state = BookState()
    widget = EvidencePanel(state)
    qtbot.addWidget(widget)
    state.open_session(BookSession(short_project, None))
    yield widget
    widget.runner.cancel()
    widget.runner.wait(30_000)
    state.close()


def test_panel_search_highlight_jump_pin_export(panel, qtbot, tmp_path):
    panel.query.setPlainText("Darcy coldly says Elizabeth is tolerable but not handsome enough to tempt him")
    panel.method.setCurrentText("bm25")
    with qtbot.waitSignal(panel.results_changed, timeout=120_000):
        qtbot.mouseClick(panel.search_button, Qt.MouseButton.LeftButton)
    assert panel.results.count() == 20
    assert "<b" in panel.preview.toHtml() or "font-weight" in panel.preview.toHtml()
    row = next(i for i, h in enumerate(panel.hits) if "tolerable" in h.text)
    item = panel.results.item(row)
    with qtbot.waitSignal(panel.state.jump_requested) as jump:
        panel.results.itemClicked.emit(item)
    assert jump.args == [panel.hits[row].start]
    panel.results.setCurrentRow(row)
    panel.claim.setText("first impressions")
    with qtbot.waitSignal(panel.evidence_changed):
        qtbot.mouseClick(panel.pin_button, Qt.MouseButton.LeftButton)
    assert panel.pinned.count() == 1 and "first impressions" in panel.pinned.item(0).text()
    out = tmp_path / "evidence.md"
    assert panel.export(out) == 1 and "tolerable" in out.read_text(encoding="utf-8")
    panel.pinned.setCurrentRow(0)
    qtbot.mouseClick(panel.unpin_button, Qt.MouseButton.LeftButton)
    assert panel.pinned.count() == 0


def test_panel_cancelled_index_build_stores_no_vectors(panel, qtbot, short_project):
    panel.method.setCurrentText("dense")
    with qtbot.waitSignal(panel.runner.cancelled, timeout=120_000):
        qtbot.mouseClick(panel.build_button, Qt.MouseButton.LeftButton)
        qtbot.waitUntil(lambda: panel.progress.value() > 100, timeout=120_000)
        qtbot.mouseClick(panel.cancel_button, Qt.MouseButton.LeftButton)
    panel.runner.wait(30_000)
    with open_project(short_project) as p:
        assert RetrievalStore(p).embedding_keys(1) == []
    assert "cancelled" in panel.status.text()


def test_panel_essay_quotations_link_to_the_novel(panel, qtbot):
    with qtbot.waitSignal(panel.runner.finished, timeout=120_000):
        panel.load_essay(ESSAY)
    assert panel.essay_list.count() == 2
    with qtbot.waitSignal(panel.state.jump_requested) as jump:
        panel.essay_list.itemClicked.emit(panel.essay_list.item(1))
    assert jump.args == [panel.essay_items[1]["novel_start"]]
