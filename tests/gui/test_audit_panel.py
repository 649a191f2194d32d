"""Audit panel: the real probes on the packaged model in the background, stored and shown per book."""

from __future__ import annotations

import shutil

import pytest

from litlens.gui.audit_panel import TASK_NAME, AuditDialog, ask_and_audit

SMALL = {"probes": ["name-cloze", "csg", "mink"], "limit": 1, "chapter_tokens": 12, "backend": "transformers",
         "model": "", "base_url": "", "api_key_env": ""}


@pytest.fixture(scope="module")
def packaged():
    from litlens.llm import packaged_model_path

    try:
        return packaged_model_path()
    except Exception as exc:  # noqa: BLE001
        pytest.skip(f"the packaged SmolLM2 model is not installed: {exc}")


@pytest.fixture(scope="module")
def daisy_project(tmp_path_factory):
    """DaisyMiller (PDNC gold), short enough for real probes in a test."""
    from litlens.services.books import import_pdnc
    from tests.conftest import require_shared

    path = tmp_path_factory.mktemp("audit_gui") / "dm.litlens"
    import_pdnc(path, require_shared() / "DaisyMiller")
    return path


@pytest.fixture
def daisy(daisy_project, tmp_path):
    copy = tmp_path / "dm.litlens"
    shutil.copy(daisy_project, copy)
    return copy


def _open(window, qtbot, project):
    with qtbot.waitSignal(window.book_opened, timeout=10000):
        window.open_path(project)
    window.docks["audit"].raise_()  # the panel reads the project when its tab is chosen
    qtbot.waitUntil(lambda: not window.audit.when_shown.pending)


def test_audit_dialog_needs_a_probe_and_asks_for_a_server_only_for_openai(qtbot):
    dialog = AuditDialog(settings={"probes": ["mink"], "limit": 20})
    qtbot.addWidget(dialog)
    ok = dialog.buttons.button(dialog.buttons.StandardButton.Ok)
    assert ok.isEnabled() and not dialog.url_edit.isEnabled()
    dialog.probe_boxes["mink"].setChecked(False)
    assert not ok.isEnabled()
    dialog.probe_boxes["csg"].setChecked(True)
    dialog.backend_box.setCurrentIndex(dialog.backend_box.findData("openai"))
    dialog.url_edit.setText("http://127.0.0.1:9/v1")
    assert dialog.url_edit.isEnabled()
    assert dialog.settings() == {"probes": ["csg"], "limit": 20, "chapter_tokens": 2048, "backend": "openai",
                                 "model": "", "base_url": "http://127.0.0.1:9/v1", "api_key_env": ""}


def test_audit_panel_runs_the_probes_in_the_background_and_shows_the_verdict(window, qtbot, daisy, packaged):
    from litlens.services.audit import stored_audits

    _open(window, qtbot, daisy)
    panel = window.audit
    assert panel.model.rowCount() == 1 and panel.model.books[0].verdict() == "not audited"
    assert "No probe has run" in panel.details.text()
    seen: list[str] = []
    window.runner.progress.connect(lambda fraction, message: seen.append(message))
    with qtbot.waitSignal(window.runner.finished, timeout=900000):
        assert ask_and_audit(window, SMALL)
        assert window.task_label.text() == TASK_NAME and not window.progress.isHidden()
        assert not window.cancel_button.isHidden()
    assert any(m.startswith("name cloze:") for m in seen) and any(m.startswith("Min-K%:") for m in seen)
    assert window.last_error is None
    # Stored with model, date and settings ...
    runs = {r.probe: r for r in stored_audits(daisy)}
    assert set(runs) == {"name-cloze", "csg", "mink"}
    for run in runs.values():
        assert run.model == "SmolLM2-135M-Instruct" and run.created_at and run.settings["backend"] == "transformers"
    assert runs["name-cloze"].settings["limit"] == 1 and runs["mink"].settings["chapter_tokens"] == 12
    # ... and shown: the verdict beside the book's speakers.
    [book] = panel.model.books
    accuracy = runs["name-cloze"].result["accuracy"]
    assert book.verdict() == ("likely memorised" if accuracy >= 0.10 else "no sign of memorisation")
    row = [panel.model.index(0, c).data() for c in range(panel.model.columnCount())]
    assert row[1] == book.verdict() and row[2].startswith(f"{accuracy:.2f} (") and row[2].endswith("n=1")
    assert row[4].startswith(f"{runs['mink'].result['min_k']:.2f} vs ")
    assert row[5].startswith(f"{book.with_speaker:,}/{book.quotations:,}") and book.quotations > 0
    assert "SmolLM2-135M-Instruct" in panel.details.text() and "name cloze:" in panel.details.text()
    assert book.verdict() in window.statusBar().currentMessage()


def test_audit_panel_cancel_stores_nothing_unfinished(window, qtbot, fresh_gold, packaged):
    from litlens.services.audit import stored_audits

    _open(window, qtbot, fresh_gold)
    with qtbot.waitSignal(window.runner.cancelled, timeout=300000):
        ask_and_audit(window, {**SMALL, "probes": ["name-cloze"], "limit": 50})
        window.cancel_button.click()
    assert stored_audits(fresh_gold) == []
    assert window.audit.model.books[0].verdict() == "not audited"


def test_audit_panel_without_a_book_says_so(window, qtbot):
    with qtbot.waitSignal(window.error_shown, timeout=5000) as shown:
        assert not ask_and_audit(window, SMALL)
    assert shown.args == ["Open a book first."]


def test_audit_panel_reports_a_probe_that_cannot_run(window, qtbot, fresh_gold, packaged):
    """A server that does not answer: one message that names it, and nothing stored."""
    _open(window, qtbot, fresh_gold)
    with qtbot.waitSignal(window.error_shown, timeout=60000) as shown:
        ask_and_audit(window, {**SMALL, "probes": ["mink"], "backend": "openai", "base_url": "http://127.0.0.1:9/v1"})
    assert "127.0.0.1:9" in shown.args[0]
