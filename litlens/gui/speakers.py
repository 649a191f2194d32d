"""Speakers: attribute them (CPU or LLM) in the background, review the least certain ones
with the keyboard, and read any character's quotations.

- ``AttributeDialog`` asks for the method (cpu | llm) and, for an LLM, the backend,
  model, server URL and API-key variable.
- ``SpeakersPanel`` has a review list sorted by confidence (least certain first):
  number keys 1-9 give the selected quotation the n-th speaker of the numbered list,
  0 sets "nobody", and the next quotation is selected; every correction is a human edit
  (undoable, never overwritten by a later attribution). The "By character" tab lists all
  the quotations of one character. "Names in margin" writes speakers beside the text;
  "Colour by speaker" tints the reader by speaker
  (``BookState.set_speaker_colouring``: the twelve most frequent in their own colours, the
  rest grey, with a key above the text).
- ``install_speakers(window)`` adds the dock and the Speakers menu to the main window.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QModelIndex, Qt, Signal
from PySide6.QtGui import QAction, QColor, QKeySequence
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QTableView,
    QTabWidget,
    QVBoxLayout,
    QWidget,
    QAbstractItemView,
    QHeaderView,
)

from litlens.gui.lazy import WhenShown
from litlens.gui.llm_form import LLMFields, ask_then_run
from litlens.gui.state import BookState, speaker_colours
from litlens.gui.style import HUMAN_EDIT_COLOUR, FlowLayout, WrappedLabel, signals_blocked
from litlens.gui.table_model import RowsModel

if TYPE_CHECKING:
    from litlens.services.attribution import ReviewItem

NOBODY = "(nobody)"
QUICK_KEYS = 9


class AttributeDialog(QDialog):
    """Method and backend settings for a speaker-attribution run."""

    def __init__(self, parent: QWidget | None = None, settings: dict | None = None):
        super().__init__(parent)
        self.setWindowTitle("Attribute speakers")
        settings = settings or {}
        form = QFormLayout(self)
        self.method_box = QComboBox()
        self.method_box.addItem("CPU attributor (rules + ranker, about a minute)", "cpu")
        self.method_box.addItem("LLM (seed-003 protocol; a GPU or an LLM server is recommended)", "llm")
        form.addRow("Method:", self.method_box)
        self.llm = LLMFields(form, settings)
        self.backend_box, self.model_edit, self.url_edit, self.key_edit = (
            self.llm.backend_box, self.llm.model_edit, self.llm.url_edit, self.llm.key_edit)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        form.addRow(buttons)
        if settings.get("method"):
            self.method_box.setCurrentIndex(max(0, self.method_box.findData(settings["method"])))
        self.method_box.currentIndexChanged.connect(self._on_method_changed)
        self.backend_box.currentIndexChanged.connect(self._on_method_changed)
        self._on_method_changed()

    def _on_method_changed(self) -> None:
        self.llm.enable(self.method_box.currentData() == "llm")

    def settings(self) -> dict:
        return {"method": self.method_box.currentData(), **{k: v or None for k, v in self.llm.values().items()}}


def attribution_work(project, book_id: int, settings: dict):
    """The background work of one attribution run (for TaskRunner)."""

    def work(progress, cancelled):
        if settings.get("method") == "llm":
            from litlens.services.llm_attribution import attribute_book_llm

            return attribute_book_llm(project, book_id, backend=settings.get("backend") or "transformers",
                                      model=settings.get("model"), base_url=settings.get("base_url"),
                                      api_key_env=settings.get("api_key_env"), progress=progress, cancelled=cancelled)
        from litlens.services.attribution import attribute_book  # the ranker's libraries load only for a run

        return attribute_book(project, book_id, progress=progress, cancelled=cancelled)

    return work


class ReviewModel(RowsModel):
    """The review list as a table model: rows are drawn only when they come into view, so a
    long novel's thousands of quotations fill the list at once."""

    HEADERS = ("confidence", "speaker", "type", "quotation")

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.colours: dict[str, str] = {}
        self.edited: set[int] | frozenset[int] = frozenset()  # quotations corrected by hand

    def set_items(self, items: list[ReviewItem], colours: dict[str, str],
                  edited: set[int] | frozenset[int] = frozenset()) -> None:
        self.colours, self.edited = colours, edited
        self.set_rows(items)

    @property
    def items(self) -> list[ReviewItem]:
        return self.rows

    def data(self, index: QModelIndex, role: int = Qt.ItemDataRole.DisplayRole):
        item = self.row(index)
        if item is None:
            return None
        if role == Qt.ItemDataRole.DisplayRole:
            if index.column() == 0:
                if item.quotation_id in self.edited:
                    return "✎ corrected"
                if item.method is None and item.speaker:
                    return "gold"
                return "—" if item.confidence is None else f"{item.confidence:.2f}"
            return (None, item.speaker or NOBODY, item.type, item.excerpt)[index.column()]
        if role == Qt.ItemDataRole.ForegroundRole and index.column() == 0 and item.quotation_id in self.edited:
            return QColor(HUMAN_EDIT_COLOUR)
        if role == Qt.ItemDataRole.ForegroundRole and index.column() == 1 and item.speaker in self.colours:
            return QColor(self.colours[item.speaker])
        return None


class SpeakersPanel(QWidget):
    """Review list (least certain first, keyboard correction) and per-character quotations."""

    attribute_requested = Signal()
    colouring_changed = Signal(bool)

    def __init__(self, state: BookState, parent: QWidget | None = None):
        super().__init__(parent)
        self.state = state
        self.items: list[ReviewItem] = []
        self.quick: list[str] = []
        layout = QVBoxLayout(self)
        top = FlowLayout()  # wraps in a narrow dock rather than cutting the last box off
        self.attribute_button = QPushButton("Attribute speakers…")
        self.attribute_button.clicked.connect(self.attribute_requested)
        self.colour_box = QCheckBox("Colour by speaker")
        self.colour_box.setToolTip("Tint the text by speaker: the 12 most frequent in their own colours, the rest grey")
        self.colour_box.toggled.connect(self.colouring_changed)
        self.colour_box.toggled.connect(self.state.set_speaker_colouring)
        self.names_box = QCheckBox("Names in margin")
        self.names_box.setToolTip("Write each quotation's speaker in the reader's margin, beside its first line")
        self.names_box.toggled.connect(self.state.set_speaker_names)
        self.summary = QLabel("")
        top.addWidget(self.attribute_button)
        top.addWidget(self.colour_box)
        top.addWidget(self.names_box)
        top.addWidget(self.summary)
        layout.addLayout(top)
        # Above the tabs: in a tab page a wrapped label is given one line and the rest is cut off.
        self.keys_label = WrappedLabel("")  # every line shown, and the panel scrolls only if it must
        self.keys_label.setToolTip("In the review list, a number key gives the selected quotation that speaker")
        layout.addWidget(self.keys_label)
        self.tabs = QTabWidget()
        layout.addWidget(self.tabs, 1)

        review = QWidget()
        rl = QVBoxLayout(review)
        self.model = ReviewModel(self)
        self.table = QTableView()
        self.table.setModel(self.model)
        self.table.horizontalHeader().setResizeContentsPrecision(0)  # size columns by the rows in view
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.horizontalHeader().setSectionResizeMode(3, QHeaderView.ResizeMode.Stretch)
        self.table.verticalHeader().hide()
        self.table.selectionModel().selectionChanged.connect(self._on_row_changed)
        self.table.installEventFilter(self)
        rl.addWidget(self.table)
        self.tabs.addTab(review, "Review")

        by_char = QWidget()
        cl = QVBoxLayout(by_char)
        self.character_box = QComboBox()
        self.character_box.currentIndexChanged.connect(self._on_character_changed)
        self.character_quotes = QListWidget()
        self.character_quotes.itemActivated.connect(self._on_character_quote_activated)
        self.character_quotes.itemClicked.connect(self._on_character_quote_activated)
        cl.addWidget(self.character_box)
        cl.addWidget(self.character_quotes)
        self.tabs.addTab(by_char, "By character")

        self.when_shown = WhenShown(self, self.refresh)  # the review list fills when its tab is first shown
        state.book_changed.connect(self.when_shown)
        state.data_changed.connect(self.when_shown)
        state.colouring_changed.connect(self._on_colouring_changed)
        self.when_shown()

    # -- content ------------------------------------------------------------------------
    def refresh(self) -> None:
        session = self.state.session
        selected = self.current_item()
        from litlens.services.attribution import review_items  # imported with the first refresh, not at start-up

        self.items = review_items(session.path, session.book_id) if session is not None else []
        speakers: dict[str, int] = {}
        for item in self.items:
            if item.speaker:
                speakers[item.speaker] = speakers.get(item.speaker, 0) + 1
        names = session.character_names() if session is not None else []
        self.quick = sorted(names, key=lambda n: -speakers.get(n, 0))[:QUICK_KEYS]
        self.keys_label.setText(
            # no-break spaces: a line ends between two keys, never inside a key or a name
            "Keys: " + "   ".join(f"{i + 1}\u00a0{n}".replace(" ", "\u00a0") for i, n in enumerate(self.quick))
            + f"   0\u00a0{NOBODY}" if self.quick else ""
        )
        attributed = [i for i in self.items if i.method]
        low = sum(1 for i in attributed if i.confidence is not None and i.confidence < 0.5)
        given = sum(1 for i in self.items if not i.method and i.speaker)  # gold (PDNC) or set by hand
        if attributed:
            self.summary.setText(f"{len(attributed):,} attributed, {low:,} below 0.5")
        else:
            self.summary.setText(f"{given:,} gold or hand-set speakers" if given else "not attributed yet")
        with signals_blocked(self.table.selectionModel()):
            edited = {row.id for row in session.quotes if row.quotation.edited} if session is not None else set()
            self.model.set_items(self.items, self.colours(), edited)  # colours once: it counts every quotation
            self.table.resizeColumnsToContents()
            self.table.horizontalHeader().setSectionResizeMode(3, QHeaderView.ResizeMode.Stretch)
            if selected is not None:
                self.select_quotation(selected.quotation_id)
        with signals_blocked(self.character_box):
            current = self.character_box.currentData()
            self.character_box.clear()
            for name in sorted(names, key=lambda n: -speakers.get(n, 0)):
                self.character_box.addItem(f"{name} ({speakers.get(name, 0)})", name)
            if current is not None:
                self.character_box.setCurrentIndex(max(0, self.character_box.findData(current)))
        self._on_character_changed()

    def colours(self) -> dict[str, str]:
        """Speaker name -> colour, most frequent speakers first (the reader's colour-by-speaker key)."""
        return speaker_colours(self.state.session) if self.state.session is not None else {}

    def _on_colouring_changed(self) -> None:
        with signals_blocked(self.colour_box), signals_blocked(self.names_box):
            self.colour_box.setChecked(self.state.speaker_colours is not None)
            self.names_box.setChecked(self.state.speaker_names)

    def current_item(self) -> ReviewItem | None:
        rows = self.table.selectionModel().selectedRows() if self.table.selectionModel() else []
        if not rows or rows[0].row() >= len(self.items):
            return None
        return self.items[rows[0].row()]

    def select_quotation(self, quotation_id: int) -> None:
        for r, item in enumerate(self.items):
            if item.quotation_id == quotation_id:
                self.table.selectRow(r)
                self.table.scrollTo(self.model.index(r, 0))
                return

    # -- keyboard correction ------------------------------------------------------------
    def eventFilter(self, obj, event) -> bool:  # noqa: N802 (Qt API)
        from PySide6.QtCore import QEvent

        if obj is self.table and event.type() == QEvent.Type.KeyPress:
            text = event.text()
            if text.isdigit():
                self.correct(int(text))
                return True
        return super().eventFilter(obj, event)

    def correct(self, key: int) -> bool:
        """Give the selected quotation the ``key``-th quick speaker (0: nobody), then move on."""
        item = self.current_item()
        if item is None or (key > len(self.quick)):
            return False
        speaker = None if key == 0 else self.quick[key - 1]
        row = self.table.currentIndex().row()
        ok = self.state.edit("set_quote_speaker", item.quotation_id, speaker)
        if ok:
            # The corrected one moves to the end of the list; select what is now at its place.
            target = min(row, len(self.items) - 1)
            if target >= 0:
                self.table.selectRow(target)
        return ok

    # -- selection ----------------------------------------------------------------------
    def _on_row_changed(self) -> None:
        item = self.current_item()
        session = self.state.session
        if item is None or session is None:
            return
        row = session.quote(item.quotation_id)
        if row is not None:
            self.state.show_quote(row)

    def _on_character_changed(self) -> None:
        self.character_quotes.clear()
        session = self.state.session
        name = self.character_box.currentData()
        if session is None or name is None:
            return
        for row in session.quotes:
            if row.quotation.speaker == name:
                text = " … ".join(" ".join(session.text[s:e].split()) for s, e in row.quotation.spans)
                conf = row.quotation.speaker_confidence
                label = f"[{'—' if conf is None else f'{conf:.2f}'}] {text[:200]}"
                entry = QListWidgetItem(label)
                entry.setData(Qt.ItemDataRole.UserRole, row.id)
                self.character_quotes.addItem(entry)

    def _on_character_quote_activated(self, entry: QListWidgetItem) -> None:
        session = self.state.session
        row = session.quote(entry.data(Qt.ItemDataRole.UserRole)) if session else None
        if row is not None:
            self.state.show_quote(row)


def install_speakers(window) -> None:
    """Add the Speakers dock and menu to a MainWindow."""
    panel = SpeakersPanel(window.state)
    window.speakers = panel
    window.docks["speakers"] = window._dock("Speakers", panel, Qt.DockWidgetArea.RightDockWidgetArea)
    if "characters" in window.docks:  # a tab beside the character list: the charts keep their height
        window.tabifyDockWidget(window.docks["characters"], window.docks["speakers"])
        window.docks["characters"].raise_()
    window.attribution_settings = {"method": "cpu", "backend": "transformers"}
    menu = window.menuBar().addMenu("S&peakers")
    window.attribute_action = QAction("&Attribute speakers…", window, shortcut=QKeySequence("Ctrl+Shift+A"),
                                      triggered=lambda: ask_and_attribute(window))
    menu.addAction(window.attribute_action)
    colour_action = QAction("&Colour quotations by speaker", window, checkable=True)
    colour_action.toggled.connect(panel.colour_box.setChecked)
    panel.colour_box.toggled.connect(colour_action.setChecked)
    menu.addAction(colour_action)
    names_action = QAction("Speaker &names in the margin", window, checkable=True)
    names_action.toggled.connect(panel.names_box.setChecked)
    panel.names_box.toggled.connect(names_action.setChecked)
    menu.addAction(names_action)
    show = QAction("Show the &review list", window, triggered=lambda: (window.docks["speakers"].show(), window.docks["speakers"].raise_()))
    menu.addAction(show)
    panel.attribute_requested.connect(lambda: ask_and_attribute(window))
    window.runner.finished.connect(lambda name, result: _on_finished(window, name, result))


def ask_and_attribute(window, settings: dict | None = None) -> bool:
    """Show the settings dialog (unless ``settings`` are given) and start the run."""
    return ask_then_run(window, "Attributing speakers", AttributeDialog, "attribution_settings", attribution_work,
                        settings)


def _on_finished(window, name: str, result: object) -> None:
    if name != "Attributing speakers" or window.state.session is None:
        return
    window.state.session.reload()
    if window.state.speaker_colours is not None:  # new speakers: new ranking
        window.state.set_speaker_colouring(True)
    window.state.data_changed.emit()
    if isinstance(result, dict):
        kept = result.get("kept")
        window.statusBar().showMessage(
            f"Attributed {result.get('attributed', 0)} of {result.get('quotations', 0)} quotations"
            + (f"; {kept} corrected speakers kept" if kept else ""), 10000)


if __name__ == "__main__":
    from litlens.gui.preview import preview

    preview(SpeakersPanel, "speakers")
