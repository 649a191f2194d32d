"""File ▸ Export: the open book's quotations, characters and evidence, a study's judgments, and
the book as TEI P5 or as a PDNC folder.

Each action asks where to save, then calls the same service function as ``litlens export
quotes|tei|pdnc`` / ``litlens evidence export`` / ``litlens study export``, in a worker thread. CSV
cells that a spreadsheet would run as a formula are written as text
(:mod:`litlens.services.csv_cells`).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from PySide6.QtCore import QObject, Signal
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QFileDialog, QInputDialog, QMainWindow, QMenu

from litlens.gui.workers import TaskRunner


@dataclass(frozen=True)
class ExportKind:
    label: str  # menu text
    noun: str  # "quotations", used in messages and default file names
    suffix: str
    file_filter: str
    needs_study: bool = False
    folder: bool = False  # writes several files into a folder the user picks


EXPORTS: dict[str, ExportKind] = {
    "quotations-jsonl": ExportKind("&Quotations (JSON lines)…", "quotations", ".jsonl", "JSON lines (*.jsonl)"),
    "quotations-csv": ExportKind("Quotations (&CSV)…", "quotations", ".csv", "CSV (*.csv)"),
    "characters-csv": ExportKind("C&haracters (CSV)…", "characters", ".csv", "CSV (*.csv)"),
    "evidence-csv": ExportKind("&Evidence (CSV)…", "evidence", ".csv", "CSV (*.csv)"),
    "evidence-md": ExportKind("Evidence (&Markdown)…", "evidence", ".md", "Markdown (*.md)"),
    "judgments-csv": ExportKind("Study &judgments (CSV)…", "judgments", ".csv", "CSV (*.csv)", needs_study=True),
    "tei-xml": ExportKind("Book as &TEI P5 (XML)…", "quotations", ".xml", "TEI XML (*.xml)"),
    "pdnc-folder": ExportKind("Book as &PDNC folder…", "quotations", "", "", folder=True),
}


def _service(kind: str) -> Callable[..., int]:
    """(project, out, book_id, study) -> rows written, through the CLI's own service functions."""
    if kind == "quotations-jsonl":
        from litlens.services.books import export_quotations

        return lambda project, out, book_id, study: export_quotations(project, out, book_id)
    if kind == "quotations-csv":
        from litlens.services.books import export_quotations_csv

        return lambda project, out, book_id, study: export_quotations_csv(project, out, book_id)
    if kind == "characters-csv":
        from litlens.services.books import export_characters_csv

        return lambda project, out, book_id, study: export_characters_csv(project, out, book_id)
    if kind in ("evidence-csv", "evidence-md"):
        from litlens.services.retrieval import export_evidence

        fmt = kind.split("-")[1]
        return lambda project, out, book_id, study: export_evidence(project, out, fmt=fmt, book_id=book_id)
    if kind == "judgments-csv":
        from litlens.services.studies import export_study

        return lambda project, out, book_id, study: export_study(project, study, out)["judgments"]
    if kind == "tei-xml":
        from litlens.services.export_formats import export_tei

        return lambda project, out, book_id, study: export_tei(project, out, book_id).quotations
    if kind == "pdnc-folder":
        from litlens.services.export_formats import export_pdnc

        return lambda project, out, book_id, study: export_pdnc(project, out, book_id).quotations
    raise KeyError(kind)


class Exporter(QObject):
    """Runs exports for a window, one at a time, beside (never cancelling) its other tasks."""

    done = Signal(str, str, int)  # kind, path, rows written
    failed = Signal(str)

    def __init__(self, window: QMainWindow):
        super().__init__(window)
        self.window = window
        self.runner = TaskRunner(self)
        self.runner.finished.connect(self._on_finished)
        self.runner.failed.connect(lambda name, message: self._on_failed(message))
        self._pending: tuple[str, str] | None = None

    def export(self, kind: str, path: str | Path, study: str | None = None) -> bool:
        """Write the export ``kind`` (a key of EXPORTS) of the open book to ``path`` in the background."""
        session = self.window.state.session
        if session is None:
            self._on_failed("Open a book first: exports are of the open book and its project.")
            return False
        spec = EXPORTS[kind]
        if spec.needs_study and not study:
            self._on_failed("Choose the study whose judgments to export.")
            return False
        service = _service(kind)
        project, book_id, out = session.path, session.book_id, str(path)

        def work(progress, cancelled):
            progress(0.0, f"exporting {spec.noun}")
            return service(project, out, book_id, study)

        self._pending = (kind, out)
        self.window.statusBar().showMessage(f"Exporting {spec.noun} to {out}…")
        self.runner.start(f"Export {spec.noun}", work)
        return True

    def _on_finished(self, name: str, count: object) -> None:
        kind, path = self._pending or ("", "")
        spec = EXPORTS.get(kind)
        extra = " (agreement.json beside it)" if spec and spec.needs_study else ""
        noun = spec.noun if spec else "rows"
        self.window.statusBar().showMessage(f"Exported {int(count):,} {noun} to {path}{extra}", 10000)
        self.done.emit(kind, path, int(count))

    def _on_failed(self, message: str) -> None:
        self.failed.emit(message)
        self.window.show_error(message)


def install_export_menu(window: QMainWindow, file_menu: QMenu) -> QMenu:
    """Add File ▸ Export with one action per export; ``window.exporter`` runs them."""
    window.exporter = Exporter(window)
    menu = file_menu.addMenu("&Export")
    window.export_actions = {}
    for kind, spec in EXPORTS.items():
        action = QAction(spec.label, window, triggered=lambda _=False, kind=kind: ask_and_export(window, kind))
        menu.addAction(action)
        window.export_actions[kind] = action
    return menu


def ask_and_export(window: QMainWindow, kind: str) -> bool:
    """Ask for the file (and the study, for judgments) and start the export."""
    session = window.state.session
    if session is None:
        window.show_error("Open a book first: exports are of the open book and its project.")
        return False
    spec = EXPORTS[kind]
    study = None
    if spec.needs_study:
        study = _choose_study(window, session.path)
        if study is None:
            return False
    if spec.folder:
        path = QFileDialog.getExistingDirectory(window, "Export into folder (PDNC files)", str(session.path.parent))
        return bool(path) and window.exporter.export(kind, path, study)
    suggested = session.path.with_name(f"{session.path.stem}_{study or spec.noun}{spec.suffix}")
    path, _ = QFileDialog.getSaveFileName(window, f"Export {spec.noun}", str(suggested), spec.file_filter)
    if not path:
        return False
    if not Path(path).suffix:
        path += spec.suffix
    return window.exporter.export(kind, path, study)


def _choose_study(window: QMainWindow, project: Path) -> str | None:
    from litlens.services.studies import list_studies

    names = [s["name"] for s in list_studies(project)]
    if not names:
        window.show_error(f"{project.name} has no annotation studies yet; create one with Studies ▸ New study…")
        return None
    if len(names) == 1:
        return names[0]
    name, ok = QInputDialog.getItem(window, "Export study judgments", "Study:", names, 0, False)
    return name if ok else None
