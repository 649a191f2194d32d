"""Long work off the GUI thread: a task reports progress, can be cancelled, and
sends its result or its error back to the GUI thread through signals."""

from __future__ import annotations

import gc
import threading
import traceback
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject, QRunnable, QThreadPool, Signal

from litlens.errors import Cancelled, LitLensError

# fn(progress, cancelled) -> result
Work = Callable[[Callable[[float, str], None], Callable[[], bool]], Any]


_RUNNING = [0]  # tasks started and not yet ended, counted in the GUI thread


def _hold_collector() -> None:
    """No cyclic garbage collection while a task runs: a collection in the worker thread can
    destroy Qt objects' wrappers there while the GUI thread waits for the interpreter, and the
    window then hangs (seen once: an export's worker and an event filter, both idle for good).
    The GUI thread turns the collector back on when the last task ends, so collections happen
    there. Called from the GUI thread only."""
    _RUNNING[0] += 1
    gc.disable()


def _release_collector() -> None:
    _RUNNING[0] = max(0, _RUNNING[0] - 1)
    if _RUNNING[0] == 0:
        gc.enable()


class TaskSignals(QObject):
    progress = Signal(float, str)
    finished = Signal(object)
    failed = Signal(str)
    cancelled = Signal()


class Task(QRunnable):
    """One unit of background work; ``cancel()`` asks it to stop at the next check."""

    def __init__(self, name: str, work: Work):
        super().__init__()
        self.name = name
        self.work = work
        self.signals = TaskSignals()
        self._cancel = threading.Event()
        self.setAutoDelete(False)

    def cancel(self) -> None:
        self._cancel.set()

    def is_cancelled(self) -> bool:
        return self._cancel.is_set()

    def run(self) -> None:
        try:
            result = self.work(self.signals.progress.emit, self._cancel.is_set)
        except Cancelled:
            self.signals.cancelled.emit()
        except LitLensError as exc:
            self.signals.failed.emit(str(exc))
        except Exception as exc:  # an unexpected bug: still shown, never a silent death
            self.signals.failed.emit(
                f"{self.name} failed unexpectedly: {exc.__class__.__name__}: {exc}\n\n{traceback.format_exc(limit=3)}"
            )
        else:
            if self._cancel.is_set():
                self.signals.cancelled.emit()
            else:
                self.signals.finished.emit(result)


class TaskRunner(QObject):
    """Runs one task at a time for a window; starting a new one cancels the previous."""

    started = Signal(str)
    progress = Signal(float, str)
    finished = Signal(str, object)
    failed = Signal(str, str)
    cancelled = Signal(str)
    idle = Signal()

    def __init__(self, parent: QObject | None = None):
        super().__init__(parent)
        self.pool = QThreadPool(self)
        self.pool.setMaxThreadCount(1)
        self.current: Task | None = None

    def start(self, name: str, work: Work) -> Task:
        self.cancel()
        task = Task(name, work)
        task.signals.progress.connect(self.progress)
        task.signals.finished.connect(lambda result: self._end(task, self.finished, name, result))
        task.signals.failed.connect(lambda message: self._end(task, self.failed, name, message))
        task.signals.cancelled.connect(lambda: self._end(task, self.cancelled, name))
        self.current = task
        self.started.emit(name)
        _hold_collector()
        self.pool.start(task)
        return task

    def cancel(self) -> None:
        if self.current is not None:
            self.current.cancel()

    def busy(self) -> bool:
        return self.current is not None

    def wait(self, msecs: int = -1) -> bool:
        return self.pool.waitForDone(msecs)

    def _end(self, task: Task, signal: Signal, *args: object) -> None:
        _release_collector()  # every task ends exactly once: finished, failed or cancelled
        if self.current is not task:
            return  # superseded by a newer task: its outcome no longer matters
        self.current = None
        signal.emit(*args)
        self.idle.emit()
