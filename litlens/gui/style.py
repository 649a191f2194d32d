"""Colours and small helpers shared by the panels."""

from __future__ import annotations

from contextlib import contextmanager
from collections.abc import Iterator

from PySide6.QtCore import QObject, QPoint, QRect, QSize, Qt, QTimer
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QLabel, QLayout, QSizePolicy

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


class FlowLayout(QLayout):
    """A row of widgets that wraps onto more rows when its width runs out, like words in a line:
    a panel's button row in a narrow dock stays whole instead of being cut at the right edge.

    Like :class:`WrappedLabel` it does not answer height-for-width (a dock's scroll area would
    then take the panel's preferred height as its minimum); its minimum height is the height its
    rows take at the width it was last given, updated when that changes."""

    def __init__(self, parent=None, spacing: int = 6):
        super().__init__(parent)
        self._items: list = []
        self._height = 0  # the rows' height at the last width laid out; 0 before the first
        self.setSpacing(spacing)
        self.setContentsMargins(0, 0, 0, 0)

    def addItem(self, item) -> None:  # noqa: N802 (Qt API)
        self._items.append(item)
        self.invalidate()

    def count(self) -> int:
        return len(self._items)

    def itemAt(self, index: int):  # noqa: N802 (Qt API)
        return self._items[index] if 0 <= index < len(self._items) else None

    def takeAt(self, index: int):  # noqa: N802 (Qt API)
        return self._items.pop(index) if 0 <= index < len(self._items) else None

    def expandingDirections(self) -> Qt.Orientation:  # noqa: N802 (Qt API)
        return Qt.Orientation(0)

    def rows(self, width: int) -> list[list]:
        """The visible items, row by row, as they fit in ``width`` pixels."""
        rows: list[list] = [[]]
        used = 0
        for item in self._items:
            if item.isEmpty():
                continue
            w = item.sizeHint().width()
            if rows[-1] and used + self.spacing() + w > width:
                rows.append([])
                used = 0
            used += (self.spacing() if rows[-1] else 0) + w
            rows[-1].append(item)
        return [row for row in rows if row]

    def _rows_height(self, rows: list[list]) -> int:
        margins = self.contentsMargins()
        heights = [max(item.sizeHint().height() for item in row) for row in rows]
        return sum(heights) + self.spacing() * max(len(rows) - 1, 0) + margins.top() + margins.bottom()

    def setGeometry(self, rect: QRect) -> None:  # noqa: N802 (Qt API)
        super().setGeometry(rect)
        margins = self.contentsMargins()
        area = rect.adjusted(margins.left(), margins.top(), -margins.right(), -margins.bottom())
        rows = self.rows(area.width())
        y = area.y()
        for row in rows:
            height = max(item.sizeHint().height() for item in row)
            x = area.x()
            for item in row:
                hint = item.sizeHint()
                item.setGeometry(QRect(QPoint(x, y + (height - hint.height()) // 2), hint))
                x += hint.width() + self.spacing()
            y += height + self.spacing()
        height = self._rows_height(rows)
        if height != self._height:  # one row more or fewer: the parent layout makes room
            self._height = height
            QTimer.singleShot(0, self, self.invalidate)  # with self as context: dropped if the layout is gone

    def _height_now(self) -> int:
        return self._height or self._rows_height(self.rows(self._one_row_width()))

    def _one_row_width(self) -> int:
        hints = [item.sizeHint() for item in self._items if not item.isEmpty()]
        margins = self.contentsMargins()
        return (sum(h.width() for h in hints) + self.spacing() * max(len(hints) - 1, 0)
                + margins.left() + margins.right())

    def sizeHint(self) -> QSize:  # noqa: N802 (Qt API)
        return QSize(self._one_row_width(), self._height_now())

    def minimumSize(self) -> QSize:  # noqa: N802 (Qt API)
        widest = max((item.sizeHint().width() for item in self._items if not item.isEmpty()), default=0)
        margins = self.contentsMargins()
        return QSize(widest + margins.left() + margins.right(), self._height_now())
