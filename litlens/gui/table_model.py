"""A read-only table model over a list of rows, for the panels' lists (review list, audit)."""

from __future__ import annotations

from typing import Any, ClassVar

from PySide6.QtCore import QAbstractTableModel, QModelIndex, Qt


class RowsModel(QAbstractTableModel):
    """Rows drawn only when they come into view; a subclass names its ``HEADERS`` and writes ``data``."""

    HEADERS: ClassVar[tuple[str, ...]] = ()

    def __init__(self, parent=None):
        super().__init__(parent)
        self.rows: list[Any] = []

    def set_rows(self, rows: list[Any]) -> None:
        self.beginResetModel()
        self.rows = rows
        self.endResetModel()

    def rowCount(self, parent: QModelIndex = QModelIndex()) -> int:  # noqa: N802, B008 (Qt API)
        return 0 if parent.isValid() else len(self.rows)

    def columnCount(self, parent: QModelIndex = QModelIndex()) -> int:  # noqa: N802, B008 (Qt API)
        return 0 if parent.isValid() else len(self.HEADERS)

    def headerData(self, section: int, orientation, role: int = Qt.ItemDataRole.DisplayRole):  # noqa: N802 (Qt API)
        if role == Qt.ItemDataRole.DisplayRole and orientation == Qt.Orientation.Horizontal:
            return self.HEADERS[section]
        return None

    def row(self, index: QModelIndex) -> Any | None:
        """The row of a valid index, else None."""
        if not index.isValid() or index.row() >= len(self.rows):
            return None
        return self.rows[index.row()]
