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


def test_panel_hybrid_search_shows_bm25_and_offers_the_build_instead_of_running_it(panel, qtbot, short_project):
    assert panel.method.currentText() == "bm25"  # the default needs no index
    assert "[MASK]" in panel.preview.toPlainText()  # the empty state explains the mask
    panel.query.setPlainText("Darcy says Elizabeth is tolerable but not handsome enough: [MASK]")
    panel.method.setCurrentText("hybrid")
    with qtbot.waitSignal(panel.results_changed, timeout=120_000):
        qtbot.mouseClick(panel.search_button, Qt.MouseButton.LeftButton)
    assert panel.results.count() == 20 and all(h.method == "bm25" for h in panel.hits)
    assert not panel.build_note.isHidden() and "Build vectors" in panel.build_note.text()
    assert panel.plan["passages"] > 500 and panel.plan["seconds"] > 0
    assert panel.progress.isHidden()  # cleared when the results arrived
    with open_project(short_project) as p:
        assert RetrievalStore(p).embedding_keys(1) == []  # nothing was built unasked
    spans = sorted((h.start, h.end) for h in panel.hits)
    assert all(a[1] <= b[0] for a, b in zip(spans, spans[1:]))
    panel.results.setCurrentRow(1)
    shown = panel.preview.toPlainText()
    assert panel.hits[1].before[:20] in shown and panel.hits[1].text[:20] in shown


def test_panel_cancelled_build_keeps_its_vectors_and_resumes(panel, qtbot, short_project, monkeypatch):
    import litlens.services.retrieval as retrieval
    from litlens.retrieval.dense import DenseEncoder

    monkeypatch.setattr(retrieval, "VECTOR_CHUNK", 100)
    key = DenseEncoder().cache_key
    panel.method.setCurrentText("dense")
    with qtbot.waitSignal(panel.builder.cancelled, timeout=120_000):
        qtbot.mouseClick(panel.build_button, Qt.MouseButton.LeftButton)
        qtbot.waitUntil(lambda: panel.progress.value() > 300, timeout=120_000)
        qtbot.mouseClick(panel.cancel_button, Qt.MouseButton.LeftButton)
    panel.builder.wait(30_000)
    with open_project(short_project) as p:
        store = RetrievalStore(p)
        assert store.embedding_keys(1) == []
        kept = sum(c[0] for c in store.chunk_summary(1, key).values())
    assert kept >= 100 and "paused" in panel.status.text()
    panel.query.setPlainText("Darcy says Elizabeth is tolerable but not handsome enough: [MASK]")
    with qtbot.waitSignal(panel.builder.finished, timeout=240_000):
        qtbot.mouseClick(panel.build_button, Qt.MouseButton.LeftButton)
    with qtbot.waitSignal(panel.results_changed, timeout=120_000):
        pass  # the finished build re-runs the search with the chosen method
    assert panel.hits and all(h.method == "dense" for h in panel.hits) and panel.build_note.isHidden()
    with open_project(short_project) as p:
        assert RetrievalStore(p).embedding_keys(1) == [key]


def test_panel_essay_quotations_link_to_the_novel(panel, qtbot):
    with qtbot.waitSignal(panel.runner.finished, timeout=120_000):
        panel.load_essay(ESSAY)
    assert panel.essay_list.count() == 2
    with qtbot.waitSignal(panel.state.jump_requested) as jump:
        panel.essay_list.itemClicked.emit(panel.essay_list.item(1))
    assert jump.args == [panel.essay_items[1]["novel_start"]]
