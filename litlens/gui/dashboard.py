"""The study lead's live agreement dashboard.

Refreshes after every judgment (from an annotator window in this process, or on a timer
for annotators in other processes). The recompute runs in a worker thread; a newer
refresh replaces an older one, so the window never freezes.

Run alone: ``python -m litlens.gui.dashboard [PROJECT] [--study NAME] [--screenshot OUT.png]``.
"""

from __future__ import annotations

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
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from litlens.gui.workers import TaskRunner
from litlens.services.studies import AgreementMonitor, list_studies

BOOTSTRAP = 200
POLL_MS = 2000  # picks up judgments written by other processes


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
        self.time_plot.setYRange(-0.2, 1.0)
        self.time_curve = self.time_plot.plot(pen=pg.mkPen("#0072B2", width=2), symbol="o", symbolSize=4,
                                              symbolBrush="#0072B2")
        self.acc_plot = pg.PlotWidget(title="Accuracy per annotator (95% CI)")
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

        grid = QGridLayout()
        grid.addWidget(numbers_box, 0, 0)
        grid.addWidget(pairs_box, 0, 1)
        grid.addWidget(conf_box, 0, 2)
        grid.addWidget(self.time_plot, 1, 0, 1, 2)
        grid.addWidget(self.acc_plot, 1, 2)
        grid.setColumnStretch(0, 3)
        grid.setColumnStretch(1, 2)
        grid.setColumnStretch(2, 2)
        grid.setRowStretch(0, 3)
        grid.setRowStretch(1, 2)
        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addLayout(grid, 1)

        self.study_box.currentIndexChanged.connect(self._on_study_changed)
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
        self.status.setText(f"{s.items} items · {len(s.annotators)} annotators · {n['events']} events · "
                            f"recomputed in {ms:.0f} ms" + ("" if n["with_ci"] else " · CIs updating…"))
        kappa_label = "Cohen's κ (quadratic)" if s.cohen_weights == "quadratic" else "Cohen's κ"
        rows = [("Fleiss' κ" + (" (category = option position)" if n["kind"] == "proxy" else ""), s.fleiss_kappa),
                (f"Krippendorff's α ({s.level})", s.krippendorff_alpha), ("all agree", s.all_agree),
                ("none agree", s.none_agree)]
        if s.majority_accuracy is not None:
            rows.append(("majority accuracy (≥ 2 of 3 chose gold)", s.majority_accuracy))
        rows += [(f"accuracy {a}", e) for a, e in s.accuracy.items()]
        rows += [(f"{kappa_label} {k.replace('|', ' – ')}", e) for k, e in s.cohen_kappa.items()]
        self.table.setRowCount(len(rows))
        for r, (label, est) in enumerate(rows):
            ci = "—" if not math.isfinite(est.low) else f"[{est.low:.3f}, {est.high:.3f}]"
            for c, text in enumerate((label, _fmt(est.value), ci)):
                self.table.setItem(r, c, QTableWidgetItem(text))
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
