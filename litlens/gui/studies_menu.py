"""The main window's Studies menu: create/assign, annotate, watch agreement.

Each action works on the project of the open book, or asks for a project file when
none is open. The annotator and dashboard windows are separate top-level windows, so a
study lead can watch the dashboard while annotating in the same process; a judgment
made in an annotator window refreshes every open dashboard at once.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtGui import QAction
from PySide6.QtWidgets import QFileDialog, QMainWindow

from litlens.errors import LitLensError

PROJECT_FILTER = "LitLens projects (*.litlens *.sqlite *.db);;All files (*)"


def install_studies_menu(window: QMainWindow) -> None:
    menu = window.menuBar().addMenu("&Studies")
    window.study_windows = []
    menu.addAction(QAction("&New study or assign annotators…", window, triggered=lambda: _open(window, "dialog")))
    menu.addAction(QAction("&Annotate…", window, triggered=lambda: _open(window, "annotate")))
    menu.addAction(QAction("Agreement &dashboard…", window, triggered=lambda: _open(window, "dashboard")))


def _project_of(window: QMainWindow) -> Path | None:
    session = getattr(getattr(window, "state", None), "session", None)
    project = getattr(session, "project_path", None) or getattr(getattr(session, "project", None), "path", None)
    if project:
        return Path(project)
    chosen, _ = QFileDialog.getOpenFileName(window, "Choose a project with studies", "", PROJECT_FILTER)
    return Path(chosen) if chosen else None


def _open(window: QMainWindow, what: str) -> None:
    project = _project_of(window)
    if project is None:
        return
    try:
        if what == "dialog":
            from litlens.gui.study_dialog import StudyDialog

            widget = StudyDialog(project, window)
        elif what == "annotate":
            from litlens.gui.annotate import AnnotatorView

            widget = AnnotatorView(project)
            widget.judgment_recorded.connect(lambda _uid: _refresh_dashboards(window))
            widget.resize(1100, 780)
        else:
            from litlens.gui.dashboard import AgreementPanel

            widget = AgreementPanel(project)
            widget.resize(1400, 820)
    except LitLensError as exc:
        window.show_error(str(exc))
        return
    window.study_windows.append(widget)
    widget.show()


def _refresh_dashboards(window: QMainWindow) -> None:
    from litlens.gui.dashboard import AgreementPanel

    for w in window.study_windows:
        if isinstance(w, AgreementPanel) and w.isVisible():
            w.refresh()
