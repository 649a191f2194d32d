"""ChartsPanel: quotations per chapter stacked by type, and the top speakers.

A click on a chapter bar filters the reader to that chapter; a click on a speaker's
bar filters it to that character's speech. Run alone: ``python -m litlens.gui.charts``.
"""

from __future__ import annotations

from collections import Counter

import numpy as np
import pyqtgraph as pg
from PySide6.QtWidgets import QHBoxLayout, QWidget

from litlens.model import QUOTE_TYPES
from litlens.gui.state import BookState
from litlens.gui.style import TYPE_COLOURS, TYPE_LABELS

TOP_SPEAKERS = 12  # at most; fewer when the chart is too short for each name to have a line


def chapter_counts(state: BookState) -> np.ndarray:
    """Array [chapter, type] of quotation counts."""
    session = state.session
    counts = np.zeros((len(session.chapters) if session else 0, len(QUOTE_TYPES)), dtype=int)
    if session is not None:
        for row in session.quotes:
            q = row.quotation
            if q.chapter is not None and q.chapter < len(counts):
                counts[q.chapter, QUOTE_TYPES.index(q.type)] += 1
    return counts


def speaker_counts(state: BookState, limit: int = TOP_SPEAKERS) -> list[tuple[str, int]]:
    session = state.session
    if session is None:
        return []
    spoken = Counter(row.quotation.speaker for row in session.quotes if row.quotation.speaker)
    if not spoken:  # before attribution: rank by how often characters are mentioned
        return [(row.character.name, row.character.mention_count) for row in session.characters[:limit]]
    return spoken.most_common(limit)


def chapters_title() -> str:
    """The chapter chart's title with its colour key ("Quotations per chapter  ■ Explicit ■ …")."""
    key = "&nbsp;&nbsp;".join(
        f'<span style="color:{TYPE_COLOURS[t]}">&#9632;</span>&nbsp;{TYPE_LABELS[t]}' for t in QUOTE_TYPES
    )
    return f"Quotations per chapter&nbsp;&nbsp;&nbsp;{key}"


def bars_that_fit(plot_height: int, line_height: int) -> int:
    """How many named bars a chart ``plot_height`` pixels tall can show without the names
    overlapping (its title and bottom axis take about five lines)."""
    return max(3, min(TOP_SPEAKERS, (plot_height - 5 * line_height) // max(1, line_height + 2)))


class ChartsPanel(QWidget):
    def __init__(self, state: BookState, parent: QWidget | None = None):
        super().__init__(parent)
        self.state = state
        pg.setConfigOptions(antialias=True, background="w", foreground="k")
        # The key sits in the title row, so no bar is ever drawn under it.
        self.chapters_plot = pg.PlotWidget(title=chapters_title())
        self.chapters_plot.setLabel("bottom", "chapter")
        self.chapters_plot.setLabel("left", "quotations")
        self.chapters_plot.setMouseEnabled(x=True, y=False)
        self.speakers_plot = pg.PlotWidget(title="Top speakers")
        self.speakers_plot.setMouseEnabled(x=False, y=False)
        self.speakers_plot.getAxis("left").setStyle(tickTextWidth=120, autoExpandTextSpace=True)
        layout = QHBoxLayout(self)
        layout.addWidget(self.chapters_plot, 3)
        layout.addWidget(self.speakers_plot, 2)
        self.speakers: list[tuple[str, int]] = []
        self.shown_limit = TOP_SPEAKERS
        self.counts = np.zeros((0, 3), dtype=int)
        self.chapters_plot.scene().sigMouseClicked.connect(self._on_chapters_clicked)
        self.speakers_plot.scene().sigMouseClicked.connect(self._on_speakers_clicked)
        state.book_changed.connect(self.refresh)
        state.data_changed.connect(self.refresh)
        self.refresh()

    def _speaker_limit(self) -> int:
        return bars_that_fit(self.speakers_plot.height(), self.speakers_plot.fontMetrics().height())

    def resizeEvent(self, event) -> None:  # noqa: N802 (Qt's name)
        super().resizeEvent(event)
        if self._speaker_limit() != self.shown_limit:
            self.refresh_speakers()

    def refresh(self) -> None:
        self.counts = chapter_counts(self.state)
        plot = self.chapters_plot
        plot.clear()
        x = np.arange(len(self.counts))
        bottom = np.zeros(len(self.counts))
        for t, quote_type in enumerate(QUOTE_TYPES):
            heights = self.counts[:, t] if len(self.counts) else np.zeros(0)
            bars = pg.BarGraphItem(x=x, height=heights, y0=bottom, width=0.8,
                                   brush=TYPE_COLOURS[quote_type], pen=None)
            plot.addItem(bars)
            bottom = bottom + heights
        session = self.state.session
        if session is not None and session.chapters:
            numbers = [session.chapter_number(c.index) for c in session.chapters]
            step = max(1, len(numbers) // 15)
            plot.getAxis("bottom").setTicks([[(i, str(n)) for i, n in enumerate(numbers) if i % step == 0]])
        self.refresh_speakers()

    def refresh_speakers(self) -> None:
        session = self.state.session
        self.shown_limit = self._speaker_limit()
        self.speakers = speaker_counts(self.state, self.shown_limit)
        plot = self.speakers_plot
        plot.clear()
        n = len(self.speakers)
        values = [count for _, count in self.speakers]
        plot.addItem(pg.BarGraphItem(x0=0, y=np.arange(n)[::-1], height=0.7, width=values, brush="#56B4E9", pen=None))
        plot.getAxis("left").setTicks([[(n - 1 - i, name) for i, (name, _) in enumerate(self.speakers)]])
        spoken = session is not None and any(row.quotation.speaker for row in session.quotes)
        plot.setTitle("Top speakers (quotations)" if spoken else "Most mentioned characters (no speakers yet)")
        plot.setLabel("bottom", "quotations" if spoken else "mentions")

    def chapter_at(self, x: float) -> int | None:
        i = int(round(x))
        return i if 0 <= i < len(self.counts) and abs(x - i) <= 0.4 else None

    def speaker_at(self, y: float) -> str | None:
        n = len(self.speakers)
        i = n - 1 - int(round(y))
        return self.speakers[i][0] if 0 <= i < n and abs(y - round(y)) <= 0.35 else None

    def _on_chapters_clicked(self, event) -> None:
        point = self.chapters_plot.getPlotItem().vb.mapSceneToView(event.scenePos())
        chapter = self.chapter_at(point.x())
        if chapter is not None:
            self.state.set_filters(chapter=chapter)
            self.state.jump_requested.emit(self.state.session.chapters[chapter].start)

    def _on_speakers_clicked(self, event) -> None:
        point = self.speakers_plot.getPlotItem().vb.mapSceneToView(event.scenePos())
        name = self.speaker_at(point.y())
        if name is not None:
            self.state.set_filters(speaker=name)


if __name__ == "__main__":
    from litlens.gui.app import preview

    preview("charts")
