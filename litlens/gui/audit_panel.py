"""Audit: does the LLM already know this book? (memorization probes, issue 38)

- ``AuditDialog`` asks which probes to run (name cloze, CSG, Min-K%), how many passages, and
  the LLM backend, model and server.
- ``AuditPanel`` lists every book of the project with its verdict beside its speaker
  attributions, and the stored runs of the selected book (figures, model, date, settings).
- ``install_audit(window)`` adds the dock and the Speakers ▸ "Audit the model's memory…" entry;
  a run goes through the window's TaskRunner (progress bar and Cancel in the status bar), and
  each probe is stored as it ends.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QModelIndex, Qt, Signal
from PySide6.QtGui import QAction, QColor
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QSpinBox,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from litlens.gui.lazy import WhenShown
from litlens.gui.llm_form import LLMFields, ask_then_run
from litlens.gui.state import BookState
from litlens.gui.style import WrappedLabel, signals_blocked
from litlens.gui.table_model import RowsModel

if TYPE_CHECKING:
    from litlens.services.audit import BookAudit

TASK_NAME = "Memorization audit"
MEMORISED_COLOUR = "#D55E00"  # Okabe–Ito vermillion
CLEAR_COLOUR = "#009E73"  # bluish green
DEFAULT_SETTINGS: dict[str, Any] = {"probes": ["name-cloze", "csg", "mink"], "limit": 100, "chapter_tokens": 2048,
                                    "backend": "transformers", "model": "", "base_url": "", "api_key_env": ""}


class AuditDialog(QDialog):
    """Probes and backend of an audit run."""

    def __init__(self, parent: QWidget | None = None, settings: dict | None = None):
        super().__init__(parent)
        self.setWindowTitle("Audit the model's memory of this book")
        settings = {**DEFAULT_SETTINGS, **(settings or {})}
        form = QFormLayout(self)
        self.probe_boxes = {
            "name-cloze": QCheckBox("Name cloze (fill in a masked character name)"),
            "csg": QCheckBox("Corrupted-speaker guessing (who speaks after a renaming)"),
            "mink": QCheckBox("Min-K% and Min-K%++ per chapter, beside shuffled words"),
        }
        for probe, box in self.probe_boxes.items():
            box.setChecked(probe in settings["probes"])
            form.addRow("" if probe != "name-cloze" else "Probes:", box)
        self.limit_spin = QSpinBox(minimum=1, maximum=10_000, value=int(settings["limit"]))
        self.limit_spin.setToolTip("Passages for name cloze and quotations for CSG (fewer: faster, wider interval)")
        self.tokens_spin = QSpinBox(minimum=0, maximum=1_000_000, singleStep=256, value=int(settings["chapter_tokens"]))
        self.tokens_spin.setSpecialValueText("whole chapters")
        self.tokens_spin.setToolTip("Min-K% scores the first N tokens of each chapter")
        form.addRow("Passages:", self.limit_spin)
        form.addRow("Min-K% tokens per chapter:", self.tokens_spin)
        self.llm = LLMFields(form, settings)
        self.backend_box, self.url_edit = self.llm.backend_box, self.llm.url_edit
        note = WrappedLabel("The packaged model took 27 s a passage on a busy 2-core machine; "
                            "start with 20 passages. Each probe is stored as it ends.")
        form.addRow(note)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        form.addRow(self.buttons)
        for box in self.probe_boxes.values():
            box.toggled.connect(self._on_probes_changed)
        self.backend_box.currentIndexChanged.connect(self._on_backend_changed)
        self._on_backend_changed()

    def settings(self) -> dict[str, Any]:
        return {"probes": [p for p, box in self.probe_boxes.items() if box.isChecked()],
                "limit": self.limit_spin.value(), "chapter_tokens": self.tokens_spin.value(), **self.llm.values()}

    def _on_probes_changed(self) -> None:
        ok = self.buttons.button(QDialogButtonBox.StandardButton.Ok)
        ok.setEnabled(any(box.isChecked() for box in self.probe_boxes.values()))

    def _on_backend_changed(self) -> None:
        self.llm.enable()


def _cloze_cell(book: BookAudit) -> str:
    run = book.latest.get("name-cloze")
    if run is None:
        return "—"
    lo, hi = run.result["ci"]
    return f"{run.result['accuracy']:.2f} ({lo:.2f}–{hi:.2f}), n={run.result['passages']}"


def _csg_cell(book: BookAudit) -> str:
    run = book.latest.get("csg")
    if run is None:
        return "—"
    r = run.result
    return f"text {r['followed_text']:.2f} · memory {r['followed_memory']:.2f}, n={r['items']}"


def _mink_cell(book: BookAudit) -> str:
    run = book.latest.get("mink")
    if run is None:
        return "—"
    control = run.result.get("control") or {}
    text = f"{run.result['min_k']:.2f}"
    return text + (f" vs {control['min_k']:.2f}" if control.get("min_k") is not None else "")


class AuditModel(RowsModel):
    """One row a book (:class:`litlens.services.audit.BookAudit`): verdict, the probes' figures, its speakers."""

    HEADERS = ("book", "verdict", "name cloze (95% CI)", "CSG", "Min-K% book vs control", "speakers given")

    @property
    def books(self) -> list[BookAudit]:
        return self.rows

    def data(self, index: QModelIndex, role: int = Qt.ItemDataRole.DisplayRole):
        book = self.row(index)
        if book is None:
            return None
        column = index.column()
        if role in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.ToolTipRole):
            if column == 5:
                how = ", ".join(book.attribution_methods) or "gold or hand-set"
                return (f"{book.with_speaker:,}/{book.quotations:,} ({how})" if role == Qt.ItemDataRole.DisplayRole
                        else book.speakers())
            return (book.title, book.verdict(), _cloze_cell(book), _csg_cell(book), _mink_cell(book))[column]
        if role == Qt.ItemDataRole.ForegroundRole and column == 1 and book.memorised is not None:
            return QColor(MEMORISED_COLOUR if book.memorised else CLEAR_COLOUR)
        return None


class AuditPanel(QWidget):
    """Each book's verdict beside its speaker attributions, and the stored runs of the selected book."""

    run_requested = Signal()

    def __init__(self, state: BookState, parent: QWidget | None = None):
        super().__init__(parent)
        self.state = state
        self.project = None
        layout = QVBoxLayout(self)
        top = QHBoxLayout()
        self.run_button = QPushButton("Audit the model's memory…")
        self.run_button.setToolTip("Does the LLM already know this book? Run name cloze, CSG and Min-K% on it")
        self.run_button.clicked.connect(self.run_requested)
        self.summary = QLabel("")
        top.addWidget(self.run_button)
        top.addStretch(1)
        top.addWidget(self.summary)
        layout.addLayout(top)
        self.model = AuditModel(self)
        self.table = QTableView()
        self.table.setModel(self.model)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.verticalHeader().hide()
        self.table.setMinimumHeight(70)
        self.table.selectionModel().selectionChanged.connect(self._on_row_changed)
        layout.addWidget(self.table, 1)
        self.details = WrappedLabel("")
        self.details.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        layout.addWidget(self.details)
        self.when_shown = WhenShown(self, self.refresh)  # reads the project when its tab is first shown
        state.book_changed.connect(self.when_shown)
        state.data_changed.connect(self.when_shown)
        self.when_shown()

    def refresh(self) -> None:
        from litlens.services.audit import audit_overview

        session = self.state.session
        books = audit_overview(session.path) if session is not None else []
        with signals_blocked(self.table.selectionModel()):
            self.model.set_rows(books)
            self.table.resizeColumnsToContents()
            self.table.horizontalHeader().setSectionResizeMode(len(AuditModel.HEADERS) - 1,
                                                               QHeaderView.ResizeMode.Stretch)
        flagged = sum(1 for b in books if b.memorised)
        audited = sum(1 for b in books if b.memorised is not None)
        self.summary.setText(f"{audited} of {len(books)} books audited, {flagged} likely memorised" if books else "")
        self.run_button.setEnabled(session is not None)
        current = session.book_id if session is not None else None
        row = next((r for r, b in enumerate(books) if b.book_id == current), 0 if books else None)
        if row is not None:
            self.table.selectRow(row)
        self._on_row_changed()

    def current_book(self) -> BookAudit | None:
        rows = self.table.selectionModel().selectedRows()
        if not rows or rows[0].row() >= len(self.model.books):
            return None
        return self.model.books[rows[0].row()]

    def _on_row_changed(self) -> None:
        from litlens.services.audit import PROBES, notes, verdict

        book = self.current_book()
        if book is None:
            self.details.setText("Open a book to audit it." if self.state.session is None else "")
            return
        lines = [f"{book.title}: {book.verdict()}. {book.speakers()}."]
        for probe in PROBES:
            run = book.latest.get(probe)
            if run is None:
                continue
            settings = ", ".join(f"{k} {v}" for k, v in run.settings.items() if k != "seconds")
            lines.append(f"{verdict(probe, run.result)} — {run.model}, {run.created_at.replace('T', ' ')[:16]} UTC, "
                         f"{run.settings.get('seconds', '?')} s ({settings})")
            lines += [f"    note: {note}" for note in notes(probe, run.result)]
        if not book.latest:
            lines.append("No probe has run on this book yet: “Audit the model's memory…” runs them in the background.")
        self.details.setText("\n".join(lines))


def audit_work(project, book_id: int, settings: dict[str, Any]):
    """The background work of one audit run (for ``TaskRunner.start``)."""
    from litlens.services.audit import run_audit

    settings = {**DEFAULT_SETTINGS, **settings}

    def work(progress, cancelled):
        return run_audit(project, book_id, tuple(settings["probes"]), limit=settings["limit"],
                         chapter_tokens=settings["chapter_tokens"] or None, backend=settings["backend"],
                         model=settings["model"] or None, base_url=settings["base_url"] or None,
                         api_key_env=settings["api_key_env"] or None, progress=progress, cancelled=cancelled)

    return work


def install_audit(window) -> None:
    """Add the Audit dock (a tab beside the Characters) and its entry in the Speakers menu."""
    panel = AuditPanel(window.state)
    window.audit = panel
    window.docks["audit"] = window._dock("Audit", panel, Qt.DockWidgetArea.RightDockWidgetArea)
    if "characters" in window.docks:
        window.tabifyDockWidget(window.docks["characters"], window.docks["audit"])
        window.docks["characters"].raise_()
    window.audit_settings = dict(DEFAULT_SETTINGS)
    window.audit_action = QAction("Audit the model's &memory of this book…", window,
                                  triggered=lambda: ask_and_audit(window))
    menu = next((a.menu() for a in window.menuBar().actions() if a.menu() and a.text().replace("&", "") == "Speakers"),
                None)
    if menu is not None:
        menu.addSeparator()
        menu.addAction(window.audit_action)
    panel.run_requested.connect(lambda: ask_and_audit(window))
    window.runner.finished.connect(lambda name, result: _on_finished(window, name, result))
    window.runner.cancelled.connect(lambda name: panel.refresh() if name == TASK_NAME else None)


def ask_and_audit(window, settings: dict | None = None) -> bool:
    """Show the settings dialog (unless ``settings`` are given) and start the run in the background."""
    return ask_then_run(window, TASK_NAME, AuditDialog, "audit_settings", audit_work, settings)


def _on_finished(window, name: str, result: object) -> None:
    if name != TASK_NAME:
        return
    window.audit.refresh()
    if not isinstance(result, dict):
        return
    errors = result.get("errors") or {}
    if errors:
        from litlens.services.audit import PROBE_TITLES

        window.show_error("\n".join(f"{PROBE_TITLES[p]}: {message}" for p, message in errors.items()))
    book = window.audit.current_book()
    if book is not None:
        window.statusBar().showMessage(f"Audit of {book.title} with {result.get('model')}: {book.verdict()}", 10000)


if __name__ == "__main__":
    from litlens.gui.preview import preview

    preview(AuditPanel, "audit")
