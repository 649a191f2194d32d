"""The study lead's dialog: create a proxy or Likert study and assign annotators.

Creation runs in the background (BM25 over a BEIR corpus takes about a second) with
progress and cancel; errors are shown in the dialog.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QProgressBar,
    QPushButton,
    QSpinBox,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from litlens.gui.workers import TaskRunner
from litlens.services.studies import assign, create_likert_study, create_proxy_study, list_studies


def _path_row(edit: QLineEdit, folder: bool, parent: QWidget) -> QHBoxLayout:
    row = QHBoxLayout()
    row.addWidget(edit, 1)
    browse = QPushButton("Browse…")

    def pick() -> None:
        chosen = (QFileDialog.getExistingDirectory(parent, "Choose a folder") if folder
                  else QFileDialog.getOpenFileName(parent, "Choose a file")[0])
        if chosen:
            edit.setText(chosen)

    browse.clicked.connect(pick)
    row.addWidget(browse)
    return row


class StudyDialog(QDialog):
    """Tabs: new proxy study, new Likert study, assign annotators."""

    study_changed = Signal(str)

    def __init__(self, project_path: str | Path, parent: QWidget | None = None):
        super().__init__(parent)
        self.setWindowTitle("Studies")
        self.resize(720, 360)
        self.project_path = Path(project_path)
        self.runner = TaskRunner(self)
        self.tabs = QTabWidget()

        proxy = QWidget()
        form = QFormLayout(proxy)
        self.beir = QLineEdit()
        self.beir.setPlaceholderText("BEIR folder: queries.jsonl, corpus.jsonl, qrels/test.tsv")
        form.addRow("Queries and passages", _path_row(self.beir, True, self))
        self.distractors = QComboBox()
        self.distractors.addItems(["bm25", "dense"])
        form.addRow("Distractors from", self.distractors)
        self.per_item = QSpinBox(minimum=2, maximum=6, value=3)
        form.addRow("Candidates per item", self.per_item)
        self.proxy_name = QLineEdit()
        self.proxy_name.setPlaceholderText("(default: proxy-<folder>)")
        form.addRow("Study name", self.proxy_name)
        create_proxy = QPushButton("Create proxy study")
        create_proxy.clicked.connect(self._on_create_proxy_clicked)
        form.addRow(create_proxy)
        self.tabs.addTab(proxy, "New proxy study")

        likert = QWidget()
        form = QFormLayout(likert)
        self.literaryqa = QLineEdit()
        form.addRow("LiteraryQA file", _path_row(self.literaryqa, False, self))
        self.answers = QLineEdit()
        self.answers.setPlaceholderText("CSV question_id,system,answer or JSONL")
        form.addRow("System answers", _path_row(self.answers, False, self))
        self.mode = QComboBox()
        self.mode.addItems(["reference", "summary"])
        form.addRow("Raters see", self.mode)
        self.likert_name = QLineEdit()
        form.addRow("Study name", self.likert_name)
        create_likert = QPushButton("Create Likert study")
        create_likert.clicked.connect(self._on_create_likert_clicked)
        form.addRow(create_likert)
        self.tabs.addTab(likert, "New Likert study")

        assign_tab = QWidget()
        form = QFormLayout(assign_tab)
        self.assign_study = QComboBox()
        form.addRow("Study", self.assign_study)
        self.annotators = QLineEdit()
        self.annotators.setPlaceholderText("A,B,C")
        form.addRow("Annotators", self.annotators)
        self.overlap = QSpinBox(minimum=1, maximum=20, value=3)
        form.addRow("Annotators per item", self.overlap)
        assign_button = QPushButton("Assign")
        assign_button.clicked.connect(self._on_assign_clicked)
        form.addRow(assign_button)
        self.tabs.addTab(assign_tab, "Assign annotators")

        self.progress = QProgressBar(maximum=1000)
        self.progress.hide()
        self.cancel = QPushButton("Cancel")
        self.cancel.hide()
        self.cancel.clicked.connect(self.runner.cancel)
        self.message = QLabel("")
        self.message.setWordWrap(True)
        bottom = QHBoxLayout()
        bottom.addWidget(self.message, 1)
        bottom.addWidget(self.progress)
        bottom.addWidget(self.cancel)
        layout = QVBoxLayout(self)
        layout.addWidget(self.tabs)
        layout.addLayout(bottom)

        self.runner.progress.connect(lambda f, m: (self.progress.setValue(int(f * 1000)), self.message.setText(m)))
        self.runner.finished.connect(self._on_done)
        self.runner.failed.connect(lambda name, message: self._end(message.splitlines()[0]))
        self.runner.cancelled.connect(lambda name: self._end(f"{name} cancelled; nothing was stored"))
        self._fill_studies()

    def _fill_studies(self) -> None:
        self.assign_study.clear()
        if not Path(self.project_path).exists():
            return  # a new project: the first study created makes it
        for s in list_studies(self.project_path):
            self.assign_study.addItem(f"{s['name']} ({s['kind']}, {s['items']} items)", s["name"])

    def _start(self, name: str, work) -> None:
        self.progress.setValue(0)
        self.progress.show()
        self.cancel.show()
        self.message.setText(f"{name}…")
        self.runner.start(name, work)

    def _end(self, message: str) -> None:
        self.progress.hide()
        self.cancel.hide()
        self.message.setText(message)

    def _on_done(self, name: str, result: object) -> None:
        self._end(str(result))
        self._fill_studies()
        self.study_changed.emit(name)

    def _on_create_proxy_clicked(self) -> None:
        beir, distractors, per_item = self.beir.text().strip(), self.distractors.currentText(), self.per_item.value()
        name = self.proxy_name.text().strip() or None
        project = self.project_path

        def work(progress, cancelled):
            study = create_proxy_study(project, beir=beir or None, distractors=distractors, per_item=per_item,
                                       name=name, progress=progress)
            skipped = (study.settings or {}).get("skipped") or []
            note = ""
            if skipped:  # items whose pool had too few candidates sharing no text with the gold and each other
                first = skipped[0]
                note = (f" {len(skipped)} skipped: too few distractors that share no text with the gold "
                        f"(e.g. {first.get('key')}: {first.get('reason')})")
            return f"created proxy study {study.name!r}; assign annotators next.{note}"

        self._start("create proxy study", work)

    def _on_create_likert_clicked(self) -> None:
        lqa, answers, mode = self.literaryqa.text().strip(), self.answers.text().strip(), self.mode.currentText()
        name = self.likert_name.text().strip() or None
        project = self.project_path

        def work(progress, cancelled):
            study = create_likert_study(project, literaryqa=lqa, answers=answers, mode=mode, name=name)
            return f"created Likert study {study.name!r}; assign annotators next"

        self._start("create Likert study", work)

    def _on_assign_clicked(self) -> None:
        study = self.assign_study.currentData()
        names = self.annotators.text().split(",")
        overlap = self.overlap.value()
        project = self.project_path

        def work(progress, cancelled):
            counts = assign(project, study, names, overlap)
            return "assigned: " + ", ".join(f"{a} {n} items" for a, n in counts.items())

        self._start("assign", work)
