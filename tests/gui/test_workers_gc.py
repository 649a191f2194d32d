"""Background tasks never run a cyclic garbage collection in the worker thread."""

from __future__ import annotations

import gc
import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import pytest  # noqa: E402

pytest.importorskip("pytestqt", reason="the GUI tests need pytest-qt")

from litlens.gui.workers import TaskRunner  # noqa: E402


def test_collector_is_off_while_a_task_runs_and_back_after(qtbot):
    runner = TaskRunner()
    seen = []

    def work(progress, cancelled):
        seen.append(gc.isenabled())
        return 1

    assert gc.isenabled()
    with qtbot.waitSignal(runner.finished, timeout=10_000):
        runner.start("probe", work)
    assert seen == [False] and gc.isenabled()
    with qtbot.waitSignal(runner.failed, timeout=10_000):
        runner.start("broken", lambda progress, cancelled: 1 / 0)
    assert gc.isenabled()
