"""EvidencePanel: search the open book for passages that support a claim, pin them, export them.

Searching runs through a :class:`TaskRunner` (progress, cancel). BM25 is the default and needs no
index. Dense and hybrid search need the book's passage vectors: before the first such search the
panel says what it would build and about how long it would take, shows BM25 results meanwhile,
and builds only when asked, on a runner of its own so that searching goes on during the build.
A cancelled build keeps the vectors made so far and the next build continues from there.
Clicking a result or a pinned passage scrolls the reader there; an essay can be opened to list
its quotations of the novel, each linked to its place in the book.
"""

from __future__ import annotations

import html
from pathlib import Path

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QComboBox,
    QFileDialog,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QPlainTextEdit,
    QProgressBar,
    QPushButton,
    QSizePolicy,
    QSplitter,
    QTabWidget,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from litlens.gui.state import BookState
from litlens.gui.workers import TaskRunner
from litlens.services.retrieval import (
    build_index,
    dense_build_plan,
    export_evidence,
    link_criticism,
    list_evidence,
    pin_evidence,
    query_notes,
    search,
    shortfall_note,
    unpin_evidence,
    vectors_ready,
)

ROLE = Qt.ItemDataRole.UserRole
RESULTS = 20
EMPTY_STATE = (
    "<p><b>Find the passage a claim needs.</b></p>"
    "<p>Type a claim about the novel and put <code>[MASK]</code> where its quotation would go, e.g.</p>"
    "<p style='margin-left:12px'><i>Elizabeth's prejudice is fixed the moment she overhears Darcy say [MASK]</i></p>"
    "<p>LitLens ranks every passage of one to five sentences and lists the best ones that do not overlap. "
    "A description without [MASK] works too. Click a result to read it in the novel; name a claim and pin it.</p>"
)


def duration(seconds: float) -> str:
    if seconds < 90:
        return f"about {max(5, round(seconds / 5) * 5):.0f} s"
    if seconds < 5400:
        return f"about {round(seconds / 60):.0f} min"
    return f"about {seconds / 3600:.1f} h"


def highlighted(query: str, text: str) -> str:
    """``text`` as HTML with the words it shares with ``query`` marked."""
    from litlens.retrieval.query import matching_words

    out, last = [], 0
    for s, e in matching_words(query, text):
        out += [html.escape(text[last:s]), f"<b style='background:#fde68a'>{html.escape(text[s:e])}</b>"]
        last = e
    out.append(html.escape(text[last:]))
    return "".join(out)


class StatusLine(QLabel):
    """One line of status that never grows the panel: long text is cut with "…" and shown whole
    in the tooltip."""

    def __init__(self) -> None:
        super().__init__("")
        self._full = ""
        self.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Fixed)

    def setText(self, text: str) -> None:  # noqa: N802 - Qt's name
        self._full = text
        self.setToolTip(text)
        self._elide()

    def text(self) -> str:
        return self._full

    def resizeEvent(self, event) -> None:  # noqa: N802 - Qt's name
        super().resizeEvent(event)
        self._elide()

    def _elide(self) -> None:
        width = max(self.width() - 4, 40)
        super().setText(self.fontMetrics().elidedText(self._full, Qt.TextElideMode.ElideRight, width))


class NoteBox(QLabel):
    """A wrapped note of at most three lines that does not ask for height-for-width: a wrapped
    QLabel does, and the dock's scroll area then sizes the whole panel by its preferred height,
    pushing the result list off the bottom of a laptop screen. The tooltip holds the whole note."""

    def __init__(self) -> None:
        super().__init__("")
        self.setWordWrap(True)
        self.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Fixed)
        self.setFixedHeight(self.fontMetrics().lineSpacing() * 3 + 10)

    def hasHeightForWidth(self) -> bool:  # noqa: N802 - Qt's name
        return False


class EvidencePanel(QWidget):
    results_changed = Signal()
    evidence_changed = Signal()

    def __init__(self, state: BookState, parent: QWidget | None = None):
        super().__init__(parent)
        self.state = state
        self.runner = TaskRunner(self)
        self.hits: list = []
        self.essay_items: list[dict] = []
        self.last_query = ""

        self.query = QPlainTextEdit(placeholderText="A claim with [MASK] where the quotation goes, or a description")
        self.query.setMaximumHeight(52)
        self.query.setTabChangesFocus(True)
        self.method = QComboBox()
        self.method.addItems(["bm25", "hybrid", "dense"])  # BM25 first: instant, needs no index
        self.method.setToolTip("bm25: instant. hybrid and dense need the book's passage vectors, built once when you ask")
        self.search_button = QPushButton("Search")
        self.build_button = QPushButton("Build vectors")
        self.build_button.setToolTip("Encode every passage for dense and hybrid search, in the background; "
                                     "a cancelled build keeps its work and resumes")
        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.setEnabled(False)
        self.progress = QProgressBar(maximum=1000, textVisible=True)
        self.progress.hide()
        self.build_note = NoteBox()
        self.build_note.setStyleSheet("background:#fef3c7; padding:4px; border-radius:3px")
        self.build_note.hide()
        self.builder = TaskRunner(self)  # vector builds: a search does not cancel them
        self.plan: dict | None = None
        self.status = StatusLine()
        self.results = QListWidget()
        self.results.setUniformItemSizes(True)
        self.results.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.results.setTextElideMode(Qt.TextElideMode.ElideRight)
        self.preview = QTextBrowser()
        self.preview.setHtml(EMPTY_STATE)
        self.claim = QLineEdit(placeholderText="claim name, e.g. first impressions")
        self.pin_button = QPushButton("Pin as evidence")
        self.unpin_button = QPushButton("Unpin")
        self.export_button = QPushButton("Export…")
        self.pinned = QListWidget()
        self.essay_button = QPushButton("Open essay…")
        self.essay_list = QListWidget()
        for view in (self.query, self.results, self.preview, self.pinned, self.essay_list):
            view.setMinimumHeight(40)  # the dock shares its column with the inspector; the charts keep their height

        # Compact controls beside the query, so the results get the height: a laptop's bottom dock
        # is about 300 px tall, and a scholar compares passages, so list and preview sit side by side.
        controls = QGridLayout()
        controls.setSpacing(3)
        controls.addWidget(self.method, 0, 0)
        controls.addWidget(self.search_button, 0, 1)
        controls.addWidget(self.build_button, 1, 0)
        controls.addWidget(self.cancel_button, 1, 1)
        top = QHBoxLayout()
        top.addWidget(self.query, 1)
        top.addLayout(controls)
        self.split = QSplitter(Qt.Orientation.Horizontal)
        self.split.addWidget(self.results)
        self.split.addWidget(self.preview)
        self.split.setStretchFactor(0, 3)
        self.split.setStretchFactor(1, 2)
        self.split.setChildrenCollapsible(False)
        search_tab = QWidget()
        lay = QVBoxLayout(search_tab)
        lay.setContentsMargins(4, 4, 4, 4)
        lay.setSpacing(3)
        lay.addLayout(top)
        lay.addWidget(self.build_note)
        lay.addWidget(self.progress)
        lay.addWidget(self.split, 1)
        pin_row = QHBoxLayout()
        for w in (self.claim, self.pin_button):
            pin_row.addWidget(w)
        lay.addLayout(pin_row)
        evidence_tab = QWidget()
        lay2 = QVBoxLayout(evidence_tab)
        lay2.addWidget(self.pinned)
        row2 = QHBoxLayout()
        for w in (self.unpin_button, self.export_button):
            row2.addWidget(w)
        lay2.addLayout(row2)
        essay_tab = QWidget()
        lay3 = QVBoxLayout(essay_tab)
        lay3.addWidget(self.essay_button)
        lay3.addWidget(self.essay_list)
        self.tabs = QTabWidget()
        self.tabs.addTab(search_tab, "Search")
        self.tabs.addTab(evidence_tab, "Evidence")
        self.tabs.addTab(essay_tab, "Essay")
        outer = QVBoxLayout(self)
        outer.setContentsMargins(2, 2, 2, 2)
        outer.setSpacing(2)
        outer.addWidget(self.tabs)
        outer.addWidget(self.status)

        self.search_button.clicked.connect(self.run_search)
        self.search_button.setToolTip("Search (Ctrl+Enter in the query box)")
        for keys in ("Ctrl+Return", "Ctrl+Enter"):
            QShortcut(QKeySequence(keys), self.query, activated=self.run_search)
        self.build_button.clicked.connect(self.build)
        self.cancel_button.clicked.connect(self._on_cancel_clicked)
        self.results.currentRowChanged.connect(self._on_result_changed)
        self.results.itemActivated.connect(lambda item: self._jump(item.data(ROLE)))
        self.results.itemClicked.connect(lambda item: self._jump(item.data(ROLE)))
        self.pinned.itemClicked.connect(lambda item: self._jump(item.data(ROLE)["start"]))
        self.essay_list.itemClicked.connect(lambda item: self._jump(item.data(ROLE)))
        self.pin_button.clicked.connect(self.pin_current)
        self.unpin_button.clicked.connect(self.unpin_current)
        self.export_button.clicked.connect(self._on_export_clicked)
        self.essay_button.clicked.connect(self._on_essay_clicked)
        for runner in (self.runner, self.builder):
            runner.started.connect(self._on_task_started)
            runner.progress.connect(self._on_progress)
            runner.failed.connect(self._on_task_failed)
            runner.idle.connect(self._on_idle)
        self.runner.finished.connect(self._on_task_finished)
        self.runner.cancelled.connect(lambda name: self.status.setText(f"{name} cancelled"))
        self.builder.finished.connect(self._on_build_finished)
        self.builder.cancelled.connect(self._on_build_cancelled)
        self.state.book_changed.connect(self.refresh_evidence)

    # -- helpers ---------------------------------------------------------------------------
    def _where(self) -> tuple[Path, int] | None:
        session = self.state.session
        if session is None:
            self.status.setText("open a book first")
            return None
        return Path(session.project.path), session.book_id

    def _jump(self, offset: int | None) -> None:
        if offset is not None:
            self.state.jump_requested.emit(int(offset))

    # -- intents ----------------------------------------------------------------------------
    def build(self) -> None:
        """Build (or resume building) the passage vectors of the chosen method, in the background."""
        where = self._where()
        if where is None:
            return
        project, book = where
        method = self.method.currentText()
        if method == "bm25":
            method = "hybrid"  # BM25 needs nothing built: the button builds what the other methods need
        self.builder.start("vector build", lambda progress, cancelled: build_index(
            project, book, method=method, progress=progress, cancelled=cancelled))

    def run_search(self) -> None:
        where = self._where()
        if where is None:
            return
        project, book = where
        query, method = self.query.toPlainText().strip(), self.method.currentText()
        self.last_query = query
        building = self.builder.busy()

        def work(progress, cancelled):
            if method != "bm25" and (building or not vectors_ready(project, book)):
                # Never a build the user did not ask for: say what it would take, show BM25 meanwhile.
                plan = None if building else dense_build_plan(project, book, progress=progress, cancelled=cancelled)
                hits = search(project, query, book_id=book, method="bm25", k=RESULTS, cancelled=cancelled)
                return {"hits": hits, "plan": plan, "asked": method, "building": building}
            progress(0.5, "searching")
            return {"hits": search(project, query, book_id=book, method=method, k=RESULTS, cancelled=cancelled),
                    "plan": None, "asked": method, "building": False}

        self.runner.start("search", work)

    def show_results(self, hits: list, notes: list[str] | None = None) -> None:
        self.hits = hits
        self.results.blockSignals(True)
        self.results.clear()
        for h in hits:
            where = h.chapter_label
            flag = " (quoted in your query)" if h.demoted else ""
            item = QListWidgetItem(f"{h.rank}. {where}{flag} — {h.text[:200]}")
            item.setData(ROLE, h.start)
            item.setToolTip(h.text if len(h.text) < 600 else h.text[:600] + "…")
            self.results.addItem(item)
        self.results.blockSignals(False)
        if hits:
            self.results.setCurrentRow(0)
        else:
            self.preview.setHtml("<p>No passage shares a word with this query. Try other words, or a description "
                                 "of the scene.</p>" + EMPTY_STATE)
        short = shortfall_note(hits, RESULTS)
        self.status.setText(" ".join([f"{len(hits)} passages, none overlapping another."] + (notes or [])
                                     + ([short.capitalize() + "."] if short and hits else [])))
        self.results_changed.emit()

    def _on_result_changed(self, row: int) -> None:
        if 0 <= row < len(self.hits):
            h = self.hits[row]
            where = h.chapter_label
            grey = "color:#6b7280"
            self.preview.setHtml(
                f"<p><span style='{grey}'>{html.escape(h.before)}</span> "
                f"<span>{highlighted(self.last_query, h.text)}</span> "
                f"<span style='{grey}'>{html.escape(h.after)}</span></p>"
                f"<p style='{grey}'><i>{where}, characters {h.start}–{h.end} · score {h.score:.3f}, {h.method}</i></p>"
            )

    def pin_current(self) -> None:
        where = self._where()
        row = self.results.currentRow()
        if where is None or not (0 <= row < len(self.hits)):
            self.status.setText("choose a passage to pin")
            return
        if not self.claim.text().strip():
            self.status.setText("name the claim the passage supports")
            return
        h = self.hits[row]
        try:
            pin_evidence(where[0], self.claim.text(), h.start, h.end, book_id=where[1], query=self.last_query,
                         method=h.method, score=h.score)
        except Exception as exc:  # noqa: BLE001 - shown to the user
            self.state.error.emit(str(exc))
            return
        self.status.setText(f"pinned to “{self.claim.text().strip()}”")
        self.refresh_evidence()

    def unpin_current(self) -> None:
        item = self.pinned.currentItem()
        where = self._where()
        if item is None or where is None:
            return
        unpin_evidence(where[0], item.data(ROLE)["id"])
        self.refresh_evidence()

    def refresh_evidence(self) -> None:
        self.pinned.clear()
        session = self.state.session
        if session is None:
            return
        for r in list_evidence(session.project.path, book_id=session.book_id):
            where = r["chapter_label"]
            item = QListWidgetItem(f"{r['claim']} — {where}: {r['text'][:140]}")
            item.setData(ROLE, r)
            self.pinned.addItem(item)
        self.evidence_changed.emit()

    def export(self, path: str | Path) -> int:
        where = self._where()
        if where is None:
            return 0
        n = export_evidence(where[0], path, book_id=where[1])
        self.status.setText(f"exported {n} passages to {path}")
        return n

    def _on_export_clicked(self) -> None:
        path, _ = QFileDialog.getSaveFileName(self, "Export evidence", "evidence.md", "Markdown (*.md);;CSV (*.csv)")
        if path:
            self.export(path)

    def load_essay(self, path: str | Path) -> None:
        where = self._where()
        if where is None:
            return
        project, book = where
        self.runner.start("essay", lambda progress, cancelled: link_criticism(project, path, None, book_id=book))

    def _on_essay_clicked(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "Open essay", "", "Essays (*.txt *.pdf *.html *.htm)")
        if path:
            self.load_essay(path)

    def show_essay(self, result: dict) -> None:
        self.essay_items = result["items"]
        self.essay_list.clear()
        for it in self.essay_items:
            item = QListWidgetItem(f"Chapter {it['chapter']}: “{it['quote'].strip(chr(34))[:150]}”")
            item.setData(ROLE, it["novel_start"])
            self.essay_list.addItem(item)
        self.status.setText(f"the essay quotes the novel {len(self.essay_items)} times")
        self.tabs.setCurrentIndex(2)

    # -- task events ------------------------------------------------------------------------
    def _on_cancel_clicked(self) -> None:
        self.runner.cancel()
        self.builder.cancel()

    def _on_progress(self, fraction: float, message: str) -> None:
        self.progress.show()
        self.progress.setValue(int(fraction * 1000))
        self.progress.setFormat(message)

    def _on_idle(self) -> None:
        busy = self.runner.busy() or self.builder.busy()
        self.cancel_button.setEnabled(busy)
        if not busy:
            self.progress.hide()
            self.progress.setValue(0)

    def _on_task_started(self, name: str) -> None:
        self.cancel_button.setEnabled(True)
        if name == "vector build":
            self.build_button.setEnabled(False)
        self.status.setText(f"{name}…")

    def _show_plan(self, plan: dict | None, asked: str, building: bool) -> None:
        self.plan = plan
        if building:
            self.build_note.setText(f"The passage vectors are being built; {asked} search will run when they are "
                                    "ready. These results are BM25.")
        elif plan is not None:
            stored = f" ({plan['done']:,} already stored from an earlier build)" if plan["done"] else ""
            self.build_note.setText(
                f"{asked.capitalize()} search needs vectors for {plan['passages']:,} passages of this book "
                f"({plan['model']}): {duration(plan['seconds'])} on this machine{stored}. Press “Build vectors” to "
                "build them in the background; you can go on searching, and a cancelled build resumes. "
                "These results are BM25.")
        self.build_note.setToolTip(self.build_note.text())
        self.build_note.setVisible(building or plan is not None)

    def _on_task_finished(self, name: str, result: object) -> None:
        self.progress.hide()
        if name == "search":
            result = dict(result)  # type: ignore[arg-type]
            self._show_plan(result["plan"], result["asked"], result["building"])
            self.show_results(result["hits"], query_notes(self.last_query))
        elif name == "essay":
            self.show_essay(result)  # type: ignore[arg-type]

    def _on_build_finished(self, _name: str, result: object) -> None:
        self.build_button.setEnabled(True)
        self.build_note.hide()
        self.plan = None
        vectors = "reused the stored vectors" if result["reused_vectors"] else "vectors stored"  # type: ignore[index]
        self.status.setText(f"index ready: {result['candidates']:,} passages, {vectors}")  # type: ignore[index]
        if self.query.toPlainText().strip() and self.method.currentText() != "bm25":
            self.run_search()  # the search the user was waiting for, now with the chosen method

    def _on_build_cancelled(self, _name: str) -> None:
        self.build_button.setEnabled(True)
        self.status.setText("vector build paused: the vectors made so far are stored, and “Build vectors” continues from there")

    def _on_task_failed(self, name: str, message: str) -> None:
        if name == "vector build":
            self.build_button.setEnabled(True)
        self.progress.hide()
        self.status.setText(message)
        self.state.error.emit(message)


if __name__ == "__main__":
    from litlens.gui.preview import preview

    preview(EvidencePanel, "evidence")
