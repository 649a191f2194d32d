"""Colours and small helpers shared by the panels."""

from __future__ import annotations

from contextlib import contextmanager
from collections.abc import Iterator

from PySide6.QtCore import QObject
from PySide6.QtGui import QColor

# Okabe–Ito palette (safe for the common colour-vision deficiencies).
TYPE_COLOURS = {
    "explicit": "#0072B2",  # blue
    "anaphoric": "#E69F00",  # orange
    "implicit": "#009E73",  # bluish green
}
TYPE_LABELS = {"explicit": "Explicit", "anaphoric": "Anaphoric", "implicit": "Implicit"}
HUMAN_EDIT_COLOUR = "#CC79A7"  # reddish purple: outline of corrected quotations
MARK_COLOUR = "#F0E442"  # yellow: the current chapter or speaker on a chart, drawn behind the bars


def tint(hex_colour: str, alpha: int = 70) -> QColor:
    colour = QColor(hex_colour)
    colour.setAlpha(alpha)
    return colour


@contextmanager
def signals_blocked(obj: QObject) -> Iterator[None]:
    """Refresh a widget without it re-emitting the change it is being told about."""
    previous = obj.blockSignals(True)
    try:
        yield
    finally:
        obj.blockSignals(previous)
