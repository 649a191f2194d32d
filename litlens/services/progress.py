"""Progress reporting helpers shared by the services (Orange-style sub-ranges)."""

from __future__ import annotations

from litlens.errors import Cancelled as CancelledError
from litlens.model import Cancelled, Progress


def sub_progress(progress: Progress | None, start: float, end: float) -> Progress | None:
    """Map a stage's own [0, 1] progress onto [start, end] of the caller's range."""
    if progress is None:
        return None

    def report(fraction: float, message: str) -> None:
        progress(start + (end - start) * min(max(fraction, 0.0), 1.0), message)

    return report


def check_cancelled(cancelled: Cancelled | None, what: str) -> None:
    if cancelled is not None and cancelled():
        raise CancelledError(what)
