"""The reader window (PySide6 + pyqtgraph). Nothing outside this package imports Qt."""
