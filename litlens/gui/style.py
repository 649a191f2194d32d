"""Colours and small helpers shared by the panels."""

from __future__ import annotations

from contextlib import contextmanager
from collections.abc import Iterator

from PySide6.QtCore import QObject, QSize
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QLabel, QSizePolicy

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


class WrappedLabel(QLabel):
    """A word-wrapped label that is always as tall as its lines, inside a dock's scroll area too.

    A plain wrapped label asks its layout for height-for-width; a scroll area then takes the
    whole panel's preferred height as its minimum and scrolls a panel that would fit, and a
    tab page gives the label a single line and cuts the rest. This one keeps its minimum height
    equal to the height its text needs at its present width instead."""

    def __init__(self, text: str = "", parent=None):
        super().__init__(text, parent)
        self.setWordWrap(True)
        self.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Fixed)  # no blank lines below

    def hasHeightForWidth(self) -> bool:  # noqa: N802 (Qt API)
        return False

    def sizeHint(self) -> QSize:  # noqa: N802 (Qt API)
        # QLabel guesses a narrow width and many lines; the lines at the present width are the truth
        return QSize(super().sizeHint().width(), self.minimumHeight())

    def setText(self, text: str) -> None:  # noqa: N802 (Qt API)
        super().setText(text)
        self._fit()

    def resizeEvent(self, event) -> None:  # noqa: N802 (Qt API)
        super().resizeEvent(event)
        self._fit()

    def _fit(self) -> None:
        height = super().heightForWidth(max(1, self.width())) if self.text() else 0
        if height != self.minimumHeight():
            self.setMinimumHeight(max(0, height))
