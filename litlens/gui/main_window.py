"""MainWindow: the reader with its docks, menus, background ingest and error display."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QSettings, QSize, Qt, Signal
from PySide6.QtGui import QAction, QGuiApplication, QKeySequence
from PySide6.QtWidgets import (
    QDockWidget,
    QFileDialog,
    QFrame,
    QLabel,
    QMainWindow,
    QMessageBox,
    QProgressBar,
    QPushButton,
    QScrollArea,
    QTabWidget,
    QWidget,
)

from litlens.services.session import BookSession
from litlens.gui.characters import CharacterPanel
from litlens.gui.charts import ChartsPanel
from litlens.gui.inspector import QuoteInspector
from litlens.gui.lazy import WhenShown
from litlens.gui.reader import ReaderPanel
from litlens.gui.state import BookState
from litlens.gui.workers import TaskRunner

BOOK_SUFFIXES = {".txt", ".text", ".html", ".htm", ".xhtml", ".epub"}
PROJECT_SUFFIXES = {".litlens", ".sqlite", ".db"}
OPEN_FILTER = "Novels and projects (*.txt *.html *.htm *.xhtml *.epub *.litlens);;All files (*)"
MAX_RECENT = 8
MINIMUM_SIZE = QSize(1024, 640)  # fits every laptop screen (1280×720 and up) with room for the task bar
WIDE_LAYOUT_FROM = 1700  # narrower windows put the panels below the text ("laptop layout")
RIGHT_DOCKS = ("inspector", "characters", "evidence", "speakers")
BOTTOM_DOCKS = ("charts", "quotations")


def project_for(book_file: Path) -> Path:
    """Where a book opened from a file is stored: a project beside it, same name."""
    return book_file.with_suffix(".litlens")


class MainWindow(QMainWindow):
    book_opened = Signal()  # a book is loaded and shown (after a background ingest too)
    error_shown = Signal(str)

    def __init__(self, settings: QSettings | None = None):
        super().__init__()
        self.setWindowTitle("LitLens")
        self.setDockOptions(QMainWindow.DockOption.AnimatedDocks | QMainWindow.DockOption.AllowTabbedDocks
                            | QMainWindow.DockOption.AllowNestedDocks | QMainWindow.DockOption.GroupedDragging)
        self.setTabPosition(Qt.DockWidgetArea.AllDockWidgetAreas, QTabWidget.TabPosition.North)
        self.setAcceptDrops(True)
        self.settings = settings or QSettings("LitLens", "LitLens")
        self.state = BookState(self)
        self.runner = TaskRunner(self)
        self.show_dialogs = True  # tests turn modal dialogs off and read error_shown instead
        self.last_error: str | None = None

        self.reader = ReaderPanel(self.state)
        self.setCentralWidget(scrolling(self.reader))
        self.inspector = QuoteInspector(self.state)
        self.characters = CharacterPanel(self.state)
        self.charts = ChartsPanel(self.state)
        self.docks = {
            "inspector": self._dock("Quotation", self.inspector, Qt.DockWidgetArea.RightDockWidgetArea),
            "characters": self._dock("Characters", self.characters, Qt.DockWidgetArea.RightDockWidgetArea),
            "charts": self._dock("Charts", self.charts, Qt.DockWidgetArea.BottomDockWidgetArea),
        }
        # The evidence panel (and the retrieval code it imports) is built when its tab is first chosen.
        self._evidence = None
        placeholder = QWidget()
        placeholder.when_shown = WhenShown(placeholder, lambda: self.evidence)
        placeholder.when_shown.pending = True
        self.docks["evidence"] = self._dock("Evidence", placeholder, Qt.DockWidgetArea.RightDockWidgetArea)
        self.tabifyDockWidget(self.docks["characters"], self.docks["evidence"])
        from litlens.gui.quotations import QuotationTable  # every quotation as a table (issue 36)

        self.quotations = QuotationTable(self.state)
        self.docks["quotations"] = self._dock("Quotations", self.quotations, Qt.DockWidgetArea.BottomDockWidgetArea)
        self.tabifyDockWidget(self.docks["charts"], self.docks["quotations"])
        self.docks["charts"].raise_()

        self.progress = QProgressBar(maximum=1000, textVisible=True)
        self.progress.setFixedWidth(260)
        self.cancel_button = QPushButton("Cancel")
        self.task_label = QLabel("")
        for widget in (self.task_label, self.progress, self.cancel_button):
            self.statusBar().addPermanentWidget(widget)
            widget.hide()
        self.cancel_button.clicked.connect(self.runner.cancel)
        self.runner.started.connect(self._on_task_started)
        self.runner.progress.connect(self._on_task_progress)
        self.runner.finished.connect(self._on_task_finished)
        self.runner.failed.connect(lambda name, message: self.show_error(message))
        self.runner.cancelled.connect(lambda name: self.statusBar().showMessage(f"{name} cancelled; nothing was changed", 8000))
        self.runner.idle.connect(self._on_task_idle)
        self.state.error.connect(self.show_error)
        self.state.status.connect(lambda message: self.statusBar().showMessage(message, 6000))
        self.state.book_changed.connect(self._on_book_changed)
        self._build_menus()
        # after every dock exists (the Speakers dock comes with its menu): the charts keep their height
        self.resizeDocks([self.docks["inspector"], self.docks["characters"]], [420, 420], Qt.Orientation.Horizontal)
        self.resizeDocks([self.docks["charts"]], [230], Qt.Orientation.Vertical)
        # Every panel scrolls inside its dock when it lacks room, so no panel sets the window's
        # minimum size: it is MINIMUM_SIZE, and a laptop screen holds the whole window.
        self.setMinimumSize(MINIMUM_SIZE)
        self.resize(1400, 900)
        self.laptop_layout = False

    @property
    def evidence(self):
        """The Evidence panel, built the first time it is shown or asked for."""
        if self._evidence is None:
            from litlens.gui.evidence import EvidencePanel

            self._evidence = EvidencePanel(self.state)
            area = self.docks["evidence"].widget()
            area.takeWidget().deleteLater()  # the empty placeholder
            area.setWidget(self._evidence)
            if self.state.session is not None:
                self._evidence.refresh_evidence()
        return self._evidence

    def _dock(self, title: str, widget: QWidget, area: Qt.DockWidgetArea) -> QDockWidget:
        dock = QDockWidget(title, self)
        dock.setObjectName(title)
        dock.setWidget(scrolling(widget))
        self.addDockWidget(area, dock)
        if hasattr(widget, "when_shown"):  # a panel that refreshes only while its tab is chosen
            widget.when_shown.follow(dock)
        return dock

    # -- layout ---------------------------------------------------------------------------
    def fit_layout(self, width: int | None = None) -> None:
        """Choose the layout for a window ``width`` pixels wide (default: the screen's free width):
        side panels beside the text when there is room, below it otherwise."""
        if width is None:
            screen = QGuiApplication.primaryScreen()
            width = screen.availableGeometry().width() if screen is not None else 1366
        self.arrange_docks(laptop=width < WIDE_LAYOUT_FROM)

    def arrange_docks(self, laptop: bool) -> None:
        """Wide: the inspector and the tabbed lists right of the text, the charts below it.
        Laptop: the text keeps the window's width; below it the inspector sits beside one
        tabbed group of every other panel. (Splits come before tabs: Qt turns a split
        beside a tabbed dock into one more tab.)"""
        docks = self.docks
        inspector = docks.get("inspector")
        lists = [d for name, d in docks.items() if name in RIGHT_DOCKS and d is not inspector]
        bottom = [docks[name] for name in BOTTOM_DOCKS if name in docks]
        others = [d for name, d in docks.items() if name not in RIGHT_DOCKS + BOTTOM_DOCKS]
        hidden = {d for d in docks.values() if self.isVisible() and not d.isVisible()}
        if laptop:
            group = bottom + lists + others
            first = group[0]
            for dock in group:
                self.addDockWidget(Qt.DockWidgetArea.BottomDockWidgetArea, dock)
            if inspector is not None:
                self.addDockWidget(Qt.DockWidgetArea.BottomDockWidgetArea, inspector)
                self.splitDockWidget(inspector, first, Qt.Orientation.Horizontal)
            for dock in group[1:]:
                self.tabifyDockWidget(first, dock)
        else:
            group = lists + others
            for dock in bottom:
                self.addDockWidget(Qt.DockWidgetArea.BottomDockWidgetArea, dock)
            if inspector is not None:
                self.addDockWidget(Qt.DockWidgetArea.RightDockWidgetArea, inspector)
            for dock in group:
                self.addDockWidget(Qt.DockWidgetArea.RightDockWidgetArea, dock)
            if inspector is not None and group:
                self.splitDockWidget(inspector, group[0], Qt.Orientation.Vertical)
            for dock in bottom[1:]:
                self.tabifyDockWidget(bottom[0], dock)
            for dock in group[1:]:
                self.tabifyDockWidget(group[0], dock)
            first = bottom[0] if bottom else None
        for dock in docks.values():
            dock.setVisible(dock not in hidden)
        for dock in (group[:1] + bottom[:1]):
            dock.raise_()
        if laptop:
            if inspector is not None:
                self.resizeDocks([inspector, first], [max(320, self.width() // 3), self.width()], Qt.Orientation.Horizontal)
            self.resizeDocks([first], [max(240, int(self.height() * 0.4))], Qt.Orientation.Vertical)
        else:
            if inspector is not None:
                self.resizeDocks([inspector], [420], Qt.Orientation.Horizontal)
            if bottom:
                self.resizeDocks(bottom[:1], [230], Qt.Orientation.Vertical)
        self.laptop_layout = laptop
        if hasattr(self, "laptop_action"):
            self.laptop_action.setChecked(laptop)

    def _build_menus(self) -> None:
        file_menu = self.menuBar().addMenu("&File")
        file_menu.addAction(QAction("&Open…", self, shortcut=QKeySequence.StandardKey.Open, triggered=self._on_open_clicked))
        self.recent_menu = file_menu.addMenu("Open &recent")
        self._fill_recent()
        file_menu.addSeparator()
        self.reanalyse_action = QAction("&Analyse again (keeps your corrections)", self, triggered=self.reanalyse)
        file_menu.addAction(self.reanalyse_action)
        from litlens.gui.export_menu import install_export_menu  # File ▸ Export (issue 36)

        install_export_menu(self, file_menu)
        file_menu.addSeparator()
        file_menu.addAction(QAction("&Quit", self, shortcut=QKeySequence.StandardKey.Quit, triggered=self.close))
        edit_menu = self.menuBar().addMenu("&Edit")
        self.undo_action = QAction("&Undo", self, shortcut=QKeySequence("Ctrl+Z"), triggered=lambda: self.state.edit("undo"))
        self.redo_action = QAction("&Redo", self, shortcut=QKeySequence("Ctrl+Shift+Z"), triggered=lambda: self.state.edit("redo"))
        edit_menu.addAction(self.undo_action)
        edit_menu.addAction(self.redo_action)
        edit_menu.addSeparator()
        edit_menu.addAction(self.reader.find_action)
        mark = QAction("&Mark selection as quotation", self, shortcut=QKeySequence("Ctrl+M"), triggered=self._on_mark_clicked)
        edit_menu.addAction(mark)
        self.view_menu = self.menuBar().addMenu("&View")
        from litlens.gui.studies_menu import install_studies_menu  # annotation studies (issue 6)

        install_studies_menu(self)
        from litlens.gui.speakers import install_speakers  # speaker attribution (issue 4)

        install_speakers(self)
        from litlens.gui.audit_panel import install_audit  # memorization audit (issue 38)

        install_audit(self)
        self._fill_view_menu()

    def _fill_view_menu(self) -> None:
        view_menu = self.view_menu
        for dock in self.docks.values():  # ticked: open; unticked: closed (collapsed)
            view_menu.addAction(dock.toggleViewAction())
        go_menu = view_menu.addMenu("&Go to panel")
        self.panel_actions: dict[str, QAction] = {}
        for n, (name, dock) in enumerate(self.docks.items(), start=1):
            # Alt+n, not the tick above: a tick would close a panel that is only behind another tab
            action = QAction(dock.windowTitle(), self, triggered=lambda _=False, name=name: self.go_to_panel(name))
            if n <= 9:
                action.setShortcut(QKeySequence(f"Alt+{n}"))
            go_menu.addAction(action)
            self.panel_actions[name] = action
        view_menu.addSeparator()
        self.laptop_action = QAction("&Laptop layout (panels below the text)", self, checkable=True,
                                     shortcut=QKeySequence("Ctrl+Shift+L"))
        self.laptop_action.triggered.connect(lambda on: self.arrange_docks(laptop=on))
        view_menu.addAction(self.laptop_action)

    def go_to_panel(self, name: str) -> None:
        """Open the panel (also one closed or behind another tab), bring it to the front and give
        it the keyboard focus."""
        dock = self.docks[name]
        dock.show()
        dock.raise_()
        panel = dock.widget().widget() if isinstance(dock.widget(), QScrollArea) else dock.widget()
        target = panel.focusProxy() or next((w for w in panel.findChildren(QWidget)
                                             if w.focusPolicy() & Qt.FocusPolicy.TabFocus and w.isEnabled()), panel)
        target.setFocus(Qt.FocusReason.ShortcutFocusReason)

    # -- opening ------------------------------------------------------------------------
    def open_path(self, path: str | Path) -> None:
        """Open a project, or ingest a novel file (in the background) and open it."""
        path = Path(path)
        if path.suffix.lower() in PROJECT_SUFFIXES or (path.exists() and _is_sqlite(path)):
            self.open_project(path)
        else:
            self.ingest(path, project_for(path))

    def open_project(self, project: Path, book_id: int | None = None) -> bool:
        try:
            session = BookSession(project, book_id)
        except Exception as exc:  # typed LitLens errors and SQLite's own
            self.show_error(str(exc))
            return False
        self.state.open_session(session)
        self._remember(project)
        self.book_opened.emit()
        return True

    def ingest(self, book_file: Path, project: Path) -> None:
        from litlens.services.books import ingest_file

        def work(progress, cancelled):
            return ingest_file(project, book_file, progress=progress, cancelled=cancelled)

        self._pending = project
        self.runner.start(f"Reading {book_file.name}", work)

    def reanalyse(self) -> None:
        """Run the pipeline again on the open book in the background; corrections are kept."""
        session = self.state.session
        if session is None:
            self.show_error("Open a book first.")
            return
        from litlens.services.books import reanalyse_book

        project, book_id = session.path, session.book_id

        def work(progress, cancelled):
            return reanalyse_book(project, book_id, progress=progress, cancelled=cancelled)

        self._pending = project
        self.runner.start("Analysing again", work)

    def _on_task_finished(self, name: str, result: object) -> None:
        book = getattr(result, "book", result)  # ingest returns a result holding the book; re-analysis the book
        book_id = getattr(book, "id", None)
        if book_id is not None:
            self.open_project(self._pending, book_id)

    def _on_open_clicked(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "Open a novel or a LitLens project", "", OPEN_FILTER)
        if path:
            self.open_path(path)

    def _on_mark_clicked(self) -> None:
        selection = self.reader.view.selection_offsets()
        if selection is None:
            self.show_error("Select the words of the quotation in the text first, then mark it.")
        else:
            self.state.edit("add_quote", *selection)

    # -- drag and drop ------------------------------------------------------------------
    def dragEnterEvent(self, event) -> None:  # noqa: N802 (Qt API)
        if event.mimeData().hasUrls():
            event.acceptProposedAction()

    def dropEvent(self, event) -> None:  # noqa: N802
        urls = [u for u in event.mimeData().urls() if u.isLocalFile()]
        if urls:
            self.open_path(urls[0].toLocalFile())
            event.acceptProposedAction()

    # -- recent projects ----------------------------------------------------------------
    def recent(self) -> list[str]:
        value = self.settings.value("recent", [])
        return [value] if isinstance(value, str) else list(value or [])

    def _remember(self, project: Path) -> None:
        entries = [str(project.resolve())] + [p for p in self.recent() if p != str(project.resolve())]
        self.settings.setValue("recent", entries[:MAX_RECENT])
        self._fill_recent()

    def _fill_recent(self) -> None:
        self.recent_menu.clear()
        for entry in self.recent():
            self.recent_menu.addAction(entry, lambda entry=entry: self.open_path(entry))
        self.recent_menu.setEnabled(bool(self.recent()))

    # -- progress and errors ------------------------------------------------------------
    def _on_task_started(self, name: str) -> None:
        self.task_label.setText(name)
        self.progress.setValue(0)
        for widget in (self.task_label, self.progress, self.cancel_button):
            widget.show()

    def _on_task_progress(self, fraction: float, message: str) -> None:
        self.progress.setValue(int(fraction * 1000))
        self.progress.setFormat(f"{message} %p%")

    def _on_task_idle(self) -> None:
        for widget in (self.task_label, self.progress, self.cancel_button):
            widget.hide()

    def show_error(self, message: str) -> None:
        self.last_error = message
        self.statusBar().showMessage(message.splitlines()[0], 15000)
        self.error_shown.emit(message)
        if self.show_dialogs:
            QMessageBox.warning(self, "LitLens", message)

    def _on_book_changed(self) -> None:
        session = self.state.session
        if session is not None:
            record = session.record
            title = record.title or Path(record.source_path).stem
            self.setWindowTitle(f"{title} — LitLens ({session.path.name})")

    def closeEvent(self, event) -> None:  # noqa: N802
        self.runner.cancel()
        self.runner.wait(5000)
        self.state.close()
        super().closeEvent(event)


def scrolling(panel: QWidget) -> QScrollArea:
    """``panel`` inside a frameless scroll area: it fills the area when there is room and scrolls
    instead of being squeezed below its own minimum when there is not."""
    area = QScrollArea()
    area.setObjectName(f"{panel.__class__.__name__}Scroll")
    area.setWidgetResizable(True)
    area.setFrameShape(QFrame.Shape.NoFrame)
    area.setMinimumSize(120, 80)
    area.setWidget(panel)
    return area


def _is_sqlite(path: Path) -> bool:
    try:
        with open(path, "rb") as fh:
            return fh.read(16) == b"SQLite format 3\x00"
    except OSError:
        return False
