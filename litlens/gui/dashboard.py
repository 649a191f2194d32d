"""The study lead's live agreement dashboard.

Refreshes after every judgment (from an annotator window in this process, or on a timer
for annotators in other processes). The recompute runs in a worker thread; a newer
refresh replaces an older one, so the window never freezes.

Labels follow the study: "majority of 2" with two annotators per item, "of 3" with three.
Beside the numbers: each annotator's progress, and the items where the annotators disagree
(arrow keys move through them; the selected one is shown with who chose what). A confidence
interval that rests on fewer than MIN_ITEMS_FOR_CI items says so.

Run alone: ``python -m litlens.gui.dashboard [PROJECT] [--study NAME] [--screenshot OUT.png]``.
"""

from __future__ import annotations

import html
import math
from pathlib import Path

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QBrush, QColor
from PySide6.QtWidgets import (
    QComboBox,
    QGridLayout,
    QGroupBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QProgressBar,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QTabWidget,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from litlens.gui.workers import TaskRunner
from litlens.services.studies import AgreementMonitor, list_studies

BOOTSTRAP = 200
POLL_MS = 2000  # picks up judgments written by other processes
MIN_ITEMS_FOR_CI = 20  # a bootstrap interval over fewer items is flagged as resting on too few


def majority_label(raters: int) -> str:
    """The majority-accuracy row's label for ``raters`` annotators per item."""
    if raters < 2:
        return "majority accuracy (needs 2 or more annotators per item)"
    need = raters // 2 + 1
    who = "both" if raters == 2 else (f"all {raters}" if need == raters else f"≥ {need} of {raters}")
    return f"majority accuracy (majority of {raters}: {who} chose gold)"


def ci_text(est, items: int | None) -> str:
    """"[low, high]", with a warning when the interval rests on fewer than MIN_ITEMS_FOR_CI items."""
    if not math.isfinite(est.low):
        return "—" if items is None or items >= MIN_ITEMS_FOR_CI else f"— (only {items} items)"
    text = f"[{est.low:.3f}, {est.high:.3f}]"
    if items is not None and items < MIN_ITEMS_FOR_CI:
        text += f" ⚠ only {items} item{'s' if items != 1 else ''}"
    return text


def _fmt(x: float | None) -> str:
    return "—" if x is None or not math.isfinite(x) else f"{x:.3f}"


def _kappa_colour(x: float) -> QColor:
    """White (κ ≤ 0) to blue (κ = 1); grey when undefined."""
    if not math.isfinite(x):
        return QColor("#dddddd")
    t = min(max(x, 0.0), 1.0)
    return QColor(int(255 - t * (255 - 0)), int(255 - t * (255 - 114)), int(255 - t * (255 - 178)))


class AgreementPanel(QWidget):
    """Agreement numbers with CIs, Cohen's κ pair matrix, a confusion matrix, accuracy, κ over time."""

    refreshed = Signal(float)  # new judgments read and every number recomputed (milliseconds it took)
    ci_refreshed = Signal(float)  # bootstrap CIs recomputed for the same judgments

    def __init__(self, project_path: str | Path | None = None, study: str | None = None, parent: QWidget | None = None,
                 *, poll: bool = True):
        super().__init__(parent)
        self.setWindowTitle("LitLens — agreement")
        self.runner = TaskRunner(self)
        self.runner.finished.connect(self._on_numbers_ready)
        self.runner.failed.connect(self._on_failed)
        self.runner.cancelled.connect(lambda name: self._set_idle())
        self.monitor: AgreementMonitor | None = None
        self.numbers: dict | None = None
        self._pending = False

        self.study_box = QComboBox()
        self.pair_a, self.pair_b = QComboBox(), QComboBox()
        for box in (self.pair_a, self.pair_b):
            box.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        self.status = QLabel("")
        top = QHBoxLayout()
        top.addWidget(QLabel("Study"))
        top.addWidget(self.study_box, 1)
        top.addWidget(self.status, 2)

        self.table = QTableWidget(0, 3)
        self.table.setHorizontalHeaderLabels(["statistic", "value", "95% CI"])
        self.table.verticalHeader().hide()
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Stretch)
        self.table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        self.pairs = QTableWidget(0, 0)
        self.pairs.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        self.confusion = QTableWidget(0, 0)
        self.confusion.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)

        pg.setConfigOptions(antialias=True, background="w", foreground="k")
        self.time_plot = pg.PlotWidget(title="Fleiss' κ as judgments arrive")
        self.time_plot.setLabel("bottom", "judgments")
        self.time_plot.setLabel("left", "κ")
        self.time_plot.showGrid(x=True, y=True, alpha=0.3)
        self.time_plot.getAxis("left").enableAutoSIPrefix(False)
        self.time_plot.getAxis("bottom").enableAutoSIPrefix(False)
        self.time_plot.enableAutoRange()
        self.time_curve = self.time_plot.plot(pen=pg.mkPen("#0072B2", width=2), symbol="o", symbolSize=4,
                                              symbolBrush="#0072B2")
        self.acc_plot = pg.PlotWidget(title="Accuracy per annotator (95% CI)")
        self.acc_plot.setLabel("bottom", "annotator")
        self.acc_plot.setLabel("left", "accuracy (share of gold chosen)")
        self.acc_plot.getAxis("left").enableAutoSIPrefix(False)
        self.acc_plot.setYRange(0, 1)
        self.acc_plot.showGrid(y=True, alpha=0.3)
        self.acc_bars = pg.BarGraphItem(x=[], height=[], width=0.6, brush="#009E73")
        self.acc_errors = pg.ErrorBarItem(x=np.array([]), y=np.array([]), top=np.array([]), bottom=np.array([]),
                                          beam=0.2, pen=pg.mkPen("k", width=1.5))
        self.acc_plot.addItem(self.acc_bars)
        self.acc_plot.addItem(self.acc_errors)

        numbers_box = QGroupBox("Agreement")
        QVBoxLayout(numbers_box).addWidget(self.table)
        pairs_box = QGroupBox("Cohen's κ for each pair")
        QVBoxLayout(pairs_box).addWidget(self.pairs)
        conf_box = QGroupBox("Confusion matrix")
        conf_layout = QVBoxLayout(conf_box)
        pick = QHBoxLayout()
        pick.addWidget(self.pair_a)
        pick.addWidget(QLabel("(rows) vs"))
        pick.addWidget(self.pair_b)
        pick.addWidget(QLabel("(columns)"))
        conf_layout.addLayout(pick)
        conf_layout.addWidget(self.confusion)

        self.progress_table = QTableWidget(0, 3)
        self.progress_table.setHorizontalHeaderLabels(["annotator", "done", "progress"])
        self.progress_table.verticalHeader().hide()
        self.progress_table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        self.progress_table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.progress_table.horizontalHeader().setStretchLastSection(True)
        self.disagreement_list = QListWidget()
        self.disagreement_list.setAccessibleName("Items where the annotators disagree")
        self.disagreement_detail = QTextBrowser()
        self.disagreement_detail.setAccessibleName("The selected disagreement")
        split = QSplitter(Qt.Orientation.Vertical)
        split.addWidget(self.disagreement_list)
        split.addWidget(self.disagreement_detail)
        split.setSizes([120, 200])
        self.side_tabs = QTabWidget()
        self.side_tabs.addTab(self.progress_table, "Progress")
        self.side_tabs.addTab(split, "Disagreements")

        grid = QGridLayout()
        grid.addWidget(numbers_box, 0, 0)
        grid.addWidget(pairs_box, 0, 1)
        grid.addWidget(conf_box, 0, 2)
        grid.addWidget(self.time_plot, 1, 0)
        grid.addWidget(self.acc_plot, 1, 1)
        grid.addWidget(self.side_tabs, 1, 2)
        grid.setColumnStretch(0, 3)
        grid.setColumnStretch(1, 2)
        grid.setColumnStretch(2, 2)
        grid.setRowStretch(0, 3)
        grid.setRowStretch(1, 2)
        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addLayout(grid, 1)

        self.study_box.currentIndexChanged.connect(self._on_study_changed)
        self.disagreement_list.currentRowChanged.connect(self._on_disagreement_changed)
        self.pair_a.currentIndexChanged.connect(self.refresh)
        self.pair_b.currentIndexChanged.connect(self.refresh)
        self.timer = QTimer(self)
        self.timer.setInterval(POLL_MS)
        self.timer.timeout.connect(lambda: self.refresh(poll=True))
        self.project_path: Path | None = None
        if project_path is not None:
            self.open_project(project_path, study)
        if poll:
            self.timer.start()

    def open_project(self, project_path: str | Path, study: str | None = None) -> None:
        self.project_path = Path(project_path)
        self.study_box.blockSignals(True)
        self.study_box.clear()
        for s in list_studies(self.project_path):
            self.study_box.addItem(f"{s['name']} ({s['kind']})", s["name"])
        self.study_box.blockSignals(False)
        if study is not None:
            index = self.study_box.findData(study)
            if index >= 0:
                self.study_box.setCurrentIndex(index)
        self._on_study_changed()

    def _on_study_changed(self) -> None:
        name = self.study_box.currentData()
        if self.monitor is not None:
            monitor = self.monitor
            self.runner.cancel()
            self.runner.pool.waitForDone(5000)
            monitor.close()
        self._set_idle()
        self.monitor = AgreementMonitor(self.project_path, name) if name else None
        self.numbers = None
        self.refresh()

    # -- recompute off the GUI thread --------------------------------------------------------
    def refresh(self, poll: bool = False) -> None:
        """Ask for a recompute; called after every judgment. A running one finishes first.

        ``poll`` (the timer that picks up other processes' judgments) recomputes only when
        the log has grown.
        """
        if self.monitor is None:
            return
        if self._busy:  # one recompute at a time; the latest request runs when it ends
            self._pending = self._pending or not poll
            return
        self._start(with_ci=False, poll=poll)

    def _start(self, *, with_ci: bool, poll: bool = False) -> None:
        """Two passes: the numbers first (read new judgments + recompute), then their bootstrap CIs."""
        self._busy = True
        monitor = self.monitor
        pair = (self.pair_a.currentText(), self.pair_b.currentText()) if self.pair_a.count() else None
        pair = pair if pair and pair[0] and pair[1] else None

        def work(progress, cancelled):
            import time

            monitor.open()  # the first time: connect and read the items (not part of a recompute)
            if poll and not monitor.has_new_events():
                return {"unchanged": True}
            t = time.perf_counter()
            numbers = monitor.refresh(n_boot=BOOTSTRAP if with_ci else 0, pair=pair, read=not with_ci)
            numbers["ms"] = (time.perf_counter() - t) * 1000
            numbers["with_ci"] = with_ci
            return numbers

        self.runner.start("agreement CIs" if with_ci else "agreement", work)

    _busy = False

    def _set_idle(self) -> None:
        self._busy = False
        self._pending = False

    def _on_failed(self, name: str, message: str) -> None:
        self._set_idle()
        self.status.setText(message.splitlines()[0])

    def _on_numbers_ready(self, name: str, numbers: object) -> None:
        self._busy = False
        if numbers.get("unchanged"):
            if self._pending:
                self._pending = False
                self.refresh()
            return
        self.numbers = numbers
        self._show(numbers)
        if numbers["with_ci"]:
            self.ci_refreshed.emit(numbers["ms"])
        else:
            self.last_recompute_ms = numbers["ms"]
            self.refreshed.emit(numbers["ms"])
        if self._pending:
            self._pending = False
            self.refresh()
        elif not numbers["with_ci"]:
            self._start(with_ci=True)

    # -- display ------------------------------------------------------------------------------
    def _show(self, n: dict) -> None:
        s = n["summary"]
        ms = getattr(self, "last_recompute_ms", n["ms"])
        raters = n.get("raters", len(s.annotators))
        self.status.setText(f"{s.items} items · {len(s.annotators)} annotators ({raters} per item) · "
                            f"{n['events']} events · recomputed in {ms:.0f} ms"
                            + ("" if n["with_ci"] else " · CIs updating…"))
        support = n.get("support", {})
        kappa_label = "Cohen's κ (quadratic)" if s.cohen_weights == "quadratic" else "Cohen's κ"
        agree = "both agree" if raters == 2 else (f"all {raters} agree" if raters > 2 else "all agree")
        rows = [("Fleiss' κ" + (" (category = option position)" if n["kind"] == "proxy" else ""), s.fleiss_kappa,
                 support.get("fleiss")),
                (f"Krippendorff's α ({s.level})", s.krippendorff_alpha, support.get("fleiss")),
                (agree, s.all_agree, support.get("fleiss")),
                ("none agree" if raters != 2 else "the 2 differ", s.none_agree, support.get("fleiss"))]
        if s.majority_accuracy is not None:
            rows.append((majority_label(raters), s.majority_accuracy, support.get("majority")))
        rows += [(f"accuracy {a}", e, support.get("accuracy", {}).get(a)) for a, e in s.accuracy.items()]
        rows += [(f"{kappa_label} {k.replace('|', ' – ')}", e, support.get("cohen", {}).get(k))
                 for k, e in s.cohen_kappa.items()]
        self.table.setRowCount(len(rows))
        few = QColor("#B35A00")
        for r, (label, est, items) in enumerate(rows):
            for c, text in enumerate((label, _fmt(est.value), ci_text(est, items))):
                cell = QTableWidgetItem(text)
                if items is not None:
                    cell.setToolTip(f"rests on {items} items")
                    if c == 2 and items < MIN_ITEMS_FOR_CI:
                        cell.setForeground(QBrush(few))
                self.table.setItem(r, c, cell)
        self._show_progress(n.get("progress", {}))
        self._show_disagreements(n)
        anns = n["annotators"]
        for box in (self.pair_a, self.pair_b):
            if [box.itemText(i) for i in range(box.count())] != anns:
                box.blockSignals(True)
                box.clear()
                box.addItems(anns)
                box.blockSignals(False)
        if n["pair"] and (self.pair_a.currentText(), self.pair_b.currentText()) != tuple(n["pair"]):
            self.pair_a.blockSignals(True)
            self.pair_b.blockSignals(True)
            self.pair_a.setCurrentText(n["pair"][0])
            self.pair_b.setCurrentText(n["pair"][1])
            self.pair_a.blockSignals(False)
            self.pair_b.blockSignals(False)
        m = n["pair_matrix"]
        self.pairs.setRowCount(len(anns))
        self.pairs.setColumnCount(len(anns))
        self.pairs.setHorizontalHeaderLabels(anns)
        self.pairs.setVerticalHeaderLabels(anns)
        for i in range(len(anns)):
            for j in range(len(anns)):
                item = QTableWidgetItem(_fmt(m[i, j]))
                item.setTextAlignment(Qt.AlignmentFlag.AlignCenter)
                item.setBackground(QBrush(_kappa_colour(m[i, j])))
                item.setForeground(QBrush(QColor("white" if math.isfinite(m[i, j]) and m[i, j] > 0.6 else "black")))
                self.pairs.setItem(i, j, item)
        self.pairs.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Stretch)
        conf = n["confusion"]
        scale = [str(v) for v in n["scale"]]
        self.confusion.setRowCount(len(scale))
        self.confusion.setColumnCount(len(scale))
        self.confusion.setHorizontalHeaderLabels(scale)
        self.confusion.setVerticalHeaderLabels(scale)
        top = float(conf.max()) if conf is not None and conf.size and conf.max() > 0 else 1.0
        for i in range(len(scale)):
            for j in range(len(scale)):
                v = int(conf[i, j]) if conf is not None else 0
                item = QTableWidgetItem(str(v))
                item.setTextAlignment(Qt.AlignmentFlag.AlignCenter)
                item.setBackground(QBrush(_kappa_colour(v / top)))
                item.setForeground(QBrush(QColor("white" if v / top > 0.6 else "black")))
                self.confusion.setItem(i, j, item)
        self.confusion.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Stretch)
        history = [(t, k) for t, k in n["over_time"] if math.isfinite(k)]
        if history:
            xs, ys = zip(*history)
            self.time_curve.setData(np.array(xs, float), np.array(ys, float))
        else:
            self.time_curve.setData([], [])
        self.time_plot.enableAutoRange()
        acc = s.accuracy
        x = np.arange(len(acc), dtype=float)
        heights = np.array([e.value if math.isfinite(e.value) else 0.0 for e in acc.values()])
        self.acc_bars.setOpts(x=x, height=heights, width=0.6)
        lows = np.array([e.value - e.low if math.isfinite(e.low) else 0.0 for e in acc.values()])
        highs = np.array([e.high - e.value if math.isfinite(e.high) else 0.0 for e in acc.values()])
        self.acc_errors.setData(x=x, y=heights, top=highs, bottom=lows)
        self.acc_plot.getAxis("bottom").setTicks([[(float(i), a) for i, a in enumerate(acc)]])
        if not acc:
            self.acc_plot.setTitle("Accuracy per annotator (proxy studies only)")

    def _show_progress(self, progress: dict) -> None:
        table = self.progress_table
        table.setRowCount(len(progress))
        for r, (annotator, p) in enumerate(progress.items()):
            done, assigned = p["done"], p["assigned"]
            table.setItem(r, 0, QTableWidgetItem(annotator))
            table.setItem(r, 1, QTableWidgetItem(f"{done} of {assigned}"))
            bar = table.cellWidget(r, 2)
            if not isinstance(bar, QProgressBar):
                bar = QProgressBar()
                bar.setTextVisible(True)
                table.setCellWidget(r, 2, bar)
            bar.setMaximum(max(1, assigned))
            bar.setValue(min(done, max(1, assigned)))
            bar.setFormat(f"{100 * done / assigned:.0f}%" if assigned else "nothing assigned")

    def _show_disagreements(self, n: dict) -> None:
        items = n.get("disagreements", [])
        self.disagreements = items
        self.side_tabs.setTabText(1, f"Disagreements ({len(items)})")
        current = self.disagreement_list.currentItem()
        keep = current.data(Qt.ItemDataRole.UserRole) if current is not None else None
        self.disagreement_list.blockSignals(True)
        self.disagreement_list.clear()
        for d in items:
            answers = ", ".join(f"{a}: {v}" for a, v in d["answers"].items())
            gold = f" · gold {d['gold']}" if d.get("gold") is not None else ""
            entry = QListWidgetItem(f"{d['item']} — {answers}{gold}")
            entry.setData(Qt.ItemDataRole.UserRole, d["item"])
            self.disagreement_list.addItem(entry)
        self.disagreement_list.blockSignals(False)
        keys = [d["item"] for d in items]
        if keys:
            self.disagreement_list.setCurrentRow(keys.index(keep) if keep in keys else 0)
        else:
            self.disagreement_detail.setHtml("<p>No disagreements yet: every item rated twice or more "
                                             "has the same answer from each annotator.</p>")

    def show_disagreement(self, row: int) -> None:
        """Select (and show) the ``row``-th item where the annotators disagree."""
        self.side_tabs.setCurrentIndex(1)
        self.disagreement_list.setCurrentRow(row)

    def _on_disagreement_changed(self, row: int) -> None:
        if not (0 <= row < len(getattr(self, "disagreements", []))) or self.numbers is None:
            return
        d = self.disagreements[row]
        record = self.numbers.get("items", {}).get(d["item"])
        parts = [f"<h4>Item {html.escape(str(d['item']))}</h4>"]
        data = record.data if record is not None else {}
        text = data.get("context") or data.get("question") or ""
        if text:
            parts.append(f"<p style='color:#333'>{html.escape(text[:1200])}{'…' if len(text) > 1200 else ''}</p>")
        if data.get("answer"):
            parts.append(f"<p><b>Answer rated:</b> {html.escape(data['answer'])}</p>")
        by_value: dict = {}
        for annotator, value in d["answers"].items():
            by_value.setdefault(value, []).append(annotator)
        options = record.options if record is not None else []
        rows = []
        for value in sorted(by_value, key=str):
            who = ", ".join(by_value[value])
            label = html.escape(str(value))
            if options and isinstance(value, int) and 1 <= value <= len(options):
                excerpt = " ".join(str(options[value - 1].get("text", "")).split())
                label += f": <i>{html.escape(excerpt[:200])}{'…' if len(excerpt) > 200 else ''}</i>"
            gold = " <b>(gold)</b>" if d.get("gold") == value else ""
            rows.append(f"<li><b>{html.escape(who)}</b> chose {label}{gold}</li>")
        parts.append("<ul>" + "".join(rows) + "</ul>")
        self.disagreement_detail.setHtml("".join(parts))

    def closeEvent(self, event) -> None:  # noqa: N802
        self.timer.stop()
        self.runner.cancel()
        self.runner.pool.waitForDone(5000)
        if self.monitor is not None:
            self.monitor.close()
        super().closeEvent(event)


if __name__ == "__main__":
    from litlens.gui.study_preview import preview_study_panel

    preview_study_panel("dashboard")
