"""EvidencePanel: search the open book for passages that support a claim, pin them, export them.

Index building and searching run through a :class:`TaskRunner` (progress, cancel). Clicking a
result or a pinned passage scrolls the reader there; an essay can be opened to list its
quotations of the novel, each linked to its place in the book.
"""

from __future__ import annotations

import html
from pathlib import Path

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QPlainTextEdit,
    QProgressBar,
    QPushButton,
    QTabWidget,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from litlens.gui.state import BookState
from litlens.gui.workers import TaskRunner
from litlens.services.retrieval import (
    build_index,
    export_evidence,
    link_criticism,
    list_evidence,
    pin_evidence,
    search,
    unpin_evidence,
)

ROLE = Qt.ItemDataRole.UserRole


def highlighted(query: str, text: str) -> str:
    """``text`` as HTML with the words it shares with ``query`` marked."""
    from litlens.retrieval.query import matching_words

    out, last = [], 0
    for s, e in matching_words(query, text):
        out += [html.escape(text[last:s]), f"<b style='background:#fde68a'>{html.escape(text[s:e])}</b>"]
        last = e
    out.append(html.escape(text[last:]))
    return "".join(out)


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
        self.query.setMaximumHeight(80)
        self.method = QComboBox()
        self.method.addItems(["hybrid", "bm25", "dense"])
        self.search_button = QPushButton("Search")
        self.build_button = QPushButton("Build index")
        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.setEnabled(False)
        self.progress = QProgressBar(maximum=1000, textVisible=True)
        self.status = QLabel("")
        self.results = QListWidget()
        self.preview = QTextBrowser()
        self.claim = QLineEdit(placeholderText="claim name, e.g. first impressions")
        self.pin_button = QPushButton("Pin as evidence")
        self.unpin_button = QPushButton("Unpin")
        self.export_button = QPushButton("Export…")
        self.pinned = QListWidget()
        self.essay_button = QPushButton("Open essay…")
        self.essay_list = QListWidget()
        for view in (self.query, self.results, self.preview, self.pinned, self.essay_list):
            view.setMinimumHeight(40)  # the dock shares its column with the inspector; the charts keep their height

        row = QHBoxLayout()
        for w in (QLabel("Method"), self.method, self.search_button, self.build_button, self.cancel_button):
            row.addWidget(w)
        search_tab = QWidget()
        lay = QVBoxLayout(search_tab)
        lay.addWidget(self.query)
        lay.addLayout(row)
        lay.addWidget(self.progress)
        lay.addWidget(self.results, 2)
        lay.addWidget(self.preview, 1)
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
        outer.addWidget(self.tabs)
        outer.addWidget(self.status)

        self.search_button.clicked.connect(self.run_search)
        self.build_button.clicked.connect(self.build)
        self.cancel_button.clicked.connect(self.runner.cancel)
        self.results.currentRowChanged.connect(self._on_result_changed)
        self.results.itemActivated.connect(lambda item: self._jump(item.data(ROLE)))
        self.results.itemClicked.connect(lambda item: self._jump(item.data(ROLE)))
        self.pinned.itemClicked.connect(lambda item: self._jump(item.data(ROLE)["start"]))
        self.essay_list.itemClicked.connect(lambda item: self._jump(item.data(ROLE)))
        self.pin_button.clicked.connect(self.pin_current)
        self.unpin_button.clicked.connect(self.unpin_current)
        self.export_button.clicked.connect(self._on_export_clicked)
        self.essay_button.clicked.connect(self._on_essay_clicked)
        self.runner.started.connect(self._on_task_started)
        self.runner.progress.connect(lambda f, m: (self.progress.setValue(int(f * 1000)), self.progress.setFormat(m)))
        self.runner.finished.connect(self._on_task_finished)
        self.runner.failed.connect(self._on_task_failed)
        self.runner.cancelled.connect(lambda name: self.status.setText(f"{name} cancelled; nothing was stored"))
        self.runner.idle.connect(lambda: self.cancel_button.setEnabled(False))
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
        where = self._where()
        if where is None:
            return
        project, book = where
        method = self.method.currentText()
        self.runner.start("index build", lambda progress, cancelled: build_index(
            project, book, method=method, progress=progress, cancelled=cancelled))

    def run_search(self) -> None:
        where = self._where()
        if where is None:
            return
        project, book = where
        query, method = self.query.toPlainText().strip(), self.method.currentText()
        self.last_query = query

        def work(progress, cancelled):
            if method != "bm25":
                build_index(project, book, method=method, progress=progress, cancelled=cancelled)
            progress(1.0, "searching")
            return search(project, query, book_id=book, method=method, k=20)

        self.runner.start("search", work)

    def show_results(self, hits: list) -> None:
        self.hits = hits
        self.results.blockSignals(True)
        self.results.clear()
        for h in hits:
            where = f"Chapter {h.chapter}" if h.chapter is not None else "Front matter"
            flag = " (quoted in your query)" if h.demoted else ""
            item = QListWidgetItem(f"{h.rank}. {where}{flag} — {h.text[:160]}")
            item.setData(ROLE, h.start)
            item.setToolTip(h.text)
            self.results.addItem(item)
        self.results.blockSignals(False)
        if hits:
            self.results.setCurrentRow(0)
        self.status.setText(f"{len(hits)} passages")
        self.results_changed.emit()

    def _on_result_changed(self, row: int) -> None:
        if 0 <= row < len(self.hits):
            h = self.hits[row]
            self.preview.setHtml(f"<p>{highlighted(self.last_query, h.text)}</p><p><i>score {h.score:.3f}, {h.method}</i></p>")

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
            where = f"Chapter {r['chapter']}" if r["chapter"] is not None else "Front matter"
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
    def _on_task_started(self, name: str) -> None:
        self.cancel_button.setEnabled(True)
        self.progress.setValue(0)
        self.status.setText(f"{name}…")

    def _on_task_finished(self, name: str, result: object) -> None:
        if name == "search":
            self.show_results(result)  # type: ignore[arg-type]
        elif name == "essay":
            self.show_essay(result)  # type: ignore[arg-type]
        else:
            self.status.setText(f"index ready: {result['candidates']:,} passages")  # type: ignore[index]

    def _on_task_failed(self, name: str, message: str) -> None:
        self.status.setText(message)
        self.state.error.emit(message)


if __name__ == "__main__":
    from litlens.gui.app import preview

    preview("evidence")
