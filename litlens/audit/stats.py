"""Small statistics shared by the probes."""

from __future__ import annotations

import math
from collections.abc import Callable

# Name-cloze accuracy at or above this reads as "likely memorised" (Chang et al. 2023 saw
# near-zero accuracy on books a model cannot have read).
MEMORISED_AT = 0.10
_Z95 = 1.959963984540054


def wilson_interval(successes: int, trials: int, z: float = _Z95) -> tuple[float, float]:
    """The Wilson score interval of a proportion (95% by default); (0, 0) for no trials."""
    if trials <= 0:
        return (0.0, 0.0)
    p = successes / trials
    denom = 1 + z * z / trials
    centre = (p + z * z / (2 * trials)) / denom
    half = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials)) / denom
    return (round(max(0.0, centre - half), 6), round(min(1.0, centre + half), 6))


def check_cancelled(cancelled: Callable[[], bool] | None, what: str = "memorization audit") -> None:
    """Raise :class:`litlens.errors.Cancelled` when the caller's cancel check turns true."""
    if cancelled is not None and cancelled():
        from litlens.errors import Cancelled

        raise Cancelled(what)
