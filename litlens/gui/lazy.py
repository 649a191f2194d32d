"""Panels that do their work only when a person can see them.

A panel behind another tab, or in a closed dock, still hears every change of the book; with
``WhenShown`` it notes that it is out of date and refreshes once, the next time it is shown.
Opening a book then pays only for what is on screen (the quotation table's first load and
sort, the speakers' review list and so on wait until their tab is chosen).

Qt keeps a dock whose tab is not chosen "visible" (it only moves it off screen), so inside a
dock the panel follows the dock's ``visibilityChanged`` signal, which does follow the tabs;
alone (``python -m litlens.gui.quotations``) it follows its own show events. While the window
rearranges its docks (the laptop layout) every dock flickers through "shown", so a refresh
waits for the event loop and happens only if the dock is still shown then.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QEvent, QObject, QTimer
from PySide6.QtWidgets import QDockWidget, QWidget


class WhenShown(QObject):
    """Call ``refresh`` now if ``panel`` is visible, else the next time it is shown.

    Connect signals to the instance instead of to ``refresh``:
    ``state.book_changed.connect(self.when_shown)``.
    """

    def __init__(self, panel: QWidget, refresh: Callable[[], None]):
        super().__init__(panel)
        self._panel = panel
        self._refresh = refresh
        self.pending = False
        self._dock: QDockWidget | None = None
        self._dock_shown = False
        panel.installEventFilter(self)

    def follow(self, dock: QDockWidget) -> None:
        """Take the panel as shown exactly while ``dock``'s tab is chosen and the dock open."""
        self._dock = dock
        # In a dock the dock's signal says when the panel is seen: drop the Python event filter,
        # which Qt would call for every event of the panel. With a worker thread running Python
        # at the same time, that filter deadlocked the window once (GIL against Qt's event
        # dispatch: both threads idle, an export never finished).
        self._panel.removeEventFilter(self)
        self._dock_shown = dock.isVisible() and not dock.visibleRegion().isEmpty()
        dock.visibilityChanged.connect(self._on_dock_visibility_changed)

    def shown(self) -> bool:
        if self._dock is not None:
            return self._dock_shown
        return self._panel.isVisible()

    def __call__(self, *_args) -> None:
        if self.shown():
            self.pending = False
            self._refresh()
        else:
            self.pending = True

    def ensure(self) -> None:
        """Refresh now if a change is waiting (for code that reads the panel while it is hidden)."""
        if self.pending:
            self.pending = False
            self._refresh()

    def _on_dock_visibility_changed(self, visible: bool) -> None:
        self._dock_shown = visible
        if visible and self.pending:
            QTimer.singleShot(0, self._settle)

    def _settle(self) -> None:
        if self._dock_shown:
            self.ensure()

    def eventFilter(self, obj, event) -> bool:  # noqa: N802 (Qt API)
        if obj is self._panel and self._dock is None and event.type() == QEvent.Type.Show:
            self.ensure()
        return False
