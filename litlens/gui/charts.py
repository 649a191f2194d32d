"""ChartsPanel: quotations per chapter and the top speakers, both stacked by quotation type.

Both charts follow the reader's filters (the quotation types shown and the speaker); the
current chapter (the chapter filter, else the selected quotation's chapter) and the current
speaker (the speaker filter, else the selected quotation's speaker) are marked with a band.
A click on a chapter bar filters the reader to that chapter; a click on a speaker's bar
filters it to that character's speech. A chart short of room shows fewer labels (every
k-th chapter, fewer names, no axis titles) instead of printing them over each other; below
its minimum size the panel scrolls. The chapter axis counts chapters as every panel does;
hovering a bar names the chapter by its heading (``chapter_label``) or the speaker, with the
counts by type, and the marked chapter's heading is in the axis title.
Run alone: ``python -m litlens.gui.charts``.
"""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtGui import QCursor, QFontMetrics
from PySide6.QtWidgets import QHBoxLayout, QToolTip, QWidget

from litlens.model import QUOTE_TYPES
from litlens.gui.lazy import WhenShown
from litlens.gui.state import BookState, Filters
from litlens.gui.style import MARK_COLOUR, TYPE_COLOURS, TYPE_LABELS, tint

TOP_SPEAKERS = 12  # at most; fewer when the chart is too short for each name to have a line
MENTION_COLOUR = "#56B4E9"  # sky blue: mention counts before any speaker is known
ROOM_FOR_AXIS_TITLES = 170  # pixels of plot height below which the axis titles are hidden
MINIMUM_WIDTH, MINIMUM_HEIGHT = 520, 150  # below this the panel scrolls in its dock


def chapter_counts(state: BookState, filters: Filters | None = None) -> np.ndarray:
    """Array [chapter, type] of the quotations the filters let through (every chapter kept:
    the chapter filter marks a chapter, it does not hide the others)."""
    session = state.session
    counts = np.zeros((len(session.chapters) if session else 0, len(QUOTE_TYPES)), dtype=int)
    if session is None:
        return counts
    filters = filters or Filters()
    for row in session.quotes:
        q = row.quotation
        if q.type not in filters.types or (filters.speaker is not None and q.speaker != filters.speaker):
            continue
        if q.chapter is not None and q.chapter < len(counts):
            counts[q.chapter, QUOTE_TYPES.index(q.type)] += 1
    return counts


def speaker_counts(state: BookState, limit: int = TOP_SPEAKERS) -> list[tuple[str, int]]:
    """The top speakers by quotation count (all types), or before attribution the most mentioned characters."""
    return [(name, int(counts.sum())) for name, counts in speaker_type_counts(state, limit)[0]]


def speaker_type_counts(state: BookState, limit: int = TOP_SPEAKERS,
                        filters: Filters | None = None) -> tuple[list[tuple[str, np.ndarray]], bool]:
    """([(name, counts per type)], spoken): the top speakers among the quotations whose type the
    filters show; ``spoken`` is False before attribution, when the counts are mentions (one column)."""
    session = state.session
    if session is None:
        return [], False
    types = (filters or Filters()).types
    per_speaker: dict[str, np.ndarray] = {}
    for row in session.quotes:
        q = row.quotation
        if q.speaker and q.type in types:
            per_speaker.setdefault(q.speaker, np.zeros(len(QUOTE_TYPES), dtype=int))[QUOTE_TYPES.index(q.type)] += 1
    if not any(row.quotation.speaker for row in session.quotes):
        return [(row.character.name, np.array([row.character.mention_count])) for row in session.characters[:limit]], False
    ranked = sorted(per_speaker.items(), key=lambda kv: (-int(kv[1].sum()), kv[0]))
    return ranked[:limit], True


def chapters_title(types: frozenset[str] | None = None, speaker: str | None = None) -> str:
    """The chapter chart's title with its colour key ("Quotations per chapter  ■ Explicit ■ …");
    only the types shown are keyed."""
    shown = [t for t in QUOTE_TYPES if types is None or t in types]
    key = "&nbsp;&nbsp;".join(
        f'<span style="color:{TYPE_COLOURS[t]}">&#9632;</span>&nbsp;{TYPE_LABELS[t]}' for t in shown
    )
    whose = f" by {speaker}" if speaker else ""
    return f"Quotations per chapter{whose}&nbsp;&nbsp;&nbsp;{key}"


def bars_that_fit(plot_height: int, line_height: int) -> int:
    """How many named bars a chart ``plot_height`` pixels tall can show without the names
    overlapping (its title and bottom axis take about five lines)."""
    return max(3, min(TOP_SPEAKERS, (plot_height - 5 * line_height) // max(1, line_height + 2)))


def chapter_tick_step(chapters: int, plot_width: int, label_width: int) -> int:
    """Label every k-th chapter so that the labels, ``label_width`` pixels each, never touch."""
    if chapters <= 0:
        return 1
    room = max(1, plot_width - 60)  # the left axis takes about 60 pixels
    return max(1, -(-chapters * (label_width + 6) // room))


class ChartsPanel(QWidget):
    def __init__(self, state: BookState, parent: QWidget | None = None):
        super().__init__(parent)
        self.state = state
        self.setMinimumSize(MINIMUM_WIDTH, MINIMUM_HEIGHT)
        pg.setConfigOptions(antialias=True, background="w", foreground="k")
        # The key sits in the title row, so no bar is ever drawn under it.
        self.chapters_plot = pg.PlotWidget(title=chapters_title())
        self.chapters_plot.setMouseEnabled(x=True, y=False)
        self.chapters_plot.getAxis("left").enableAutoSIPrefix(False)
        self.speakers_plot = pg.PlotWidget(title="Top speakers")
        self.speakers_plot.setMouseEnabled(x=False, y=False)
        self.speakers_plot.getAxis("left").setStyle(tickTextWidth=110, autoExpandTextSpace=True)
        self.speakers_plot.getAxis("bottom").enableAutoSIPrefix(False)
        for plot in (self.chapters_plot, self.speakers_plot):
            plot.setMinimumSize(200, 100)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.chapters_plot, 3)
        layout.addWidget(self.speakers_plot, 2)
        self.speakers: list[tuple[str, int]] = []
        self.speaker_types: list[tuple[str, np.ndarray]] = []
        self.spoken = False
        self.shown_limit = TOP_SPEAKERS
        self.tick_step = 1
        self.axis_titles_shown = True
        self.counts = np.zeros((0, 3), dtype=int)
        self.marked_chapter: int | None = None
        self.marked_speaker: str | None = None
        self._chapter_band = pg.BarGraphItem(x=[], height=[], width=1.0, brush=tint(MARK_COLOUR, 110), pen=None)
        self._speaker_band = pg.BarGraphItem(x0=[], y=[], height=1.0, width=[], brush=tint(MARK_COLOUR, 110), pen=None)
        self.chapters_plot.scene().sigMouseClicked.connect(self._on_chapters_clicked)
        self.speakers_plot.scene().sigMouseClicked.connect(self._on_speakers_clicked)
        self.chapters_plot.scene().sigMouseMoved.connect(self._on_chapters_hovered)
        self.speakers_plot.scene().sigMouseMoved.connect(self._on_speakers_hovered)
        self.when_shown = WhenShown(self, self.refresh)  # behind another tab: drawn when chosen
        state.book_changed.connect(self.when_shown)
        state.data_changed.connect(self.when_shown)
        state.filters_changed.connect(self.when_shown)
        state.selection_changed.connect(self._on_selection_changed)
        self.when_shown()

    # -- room -----------------------------------------------------------------------------
    def _speaker_limit(self) -> int:
        return bars_that_fit(self.speakers_plot.height(), self.speakers_plot.fontMetrics().height())

    def _fit_labels(self) -> None:
        """Show as many labels as the charts have room for."""
        show_titles = self.chapters_plot.height() >= ROOM_FOR_AXIS_TITLES
        if show_titles != self.axis_titles_shown or not hasattr(self, "_titled"):
            self._titled = True
            self.axis_titles_shown = show_titles
            for plot, bottom, left in ((self.chapters_plot, self._chapter_axis_title(), "quotations"),
                                       (self.speakers_plot, self._speaker_unit(), "speaker" if self.spoken else "character")):
                item = plot.getPlotItem()
                if show_titles:
                    plot.setLabel("bottom", bottom)
                    plot.setLabel("left", left)
                else:
                    item.getAxis("bottom").showLabel(False)
                    item.getAxis("left").showLabel(False)
        self._set_chapter_axis_title()  # the marked heading is cut to the chart's new width
        self._set_chapter_ticks()

    def _speaker_unit(self) -> str:
        return "quotations" if self.spoken else "mentions"

    def _chapter_axis_title(self) -> str:
        """"chapter", and the marked chapter by its own heading: "chapter · marked: 51 · Vol. III, Chapter XVI"
        (cut short with "…" when the chart is too narrow for a long heading)."""
        if self.marked_chapter is None or self.state.session is None:
            return "chapter"
        text = f"chapter · marked: {self.state.chapter_label(self.marked_chapter)}"
        room = self.chapters_plot.getPlotItem().getViewBox().width() or self.chapters_plot.width()
        metrics = QFontMetrics(self.chapters_plot.getAxis("bottom").label.font())
        return metrics.elidedText(text, Qt.TextElideMode.ElideRight, max(120, int(room) - 20))

    def _set_chapter_axis_title(self) -> None:
        if self.axis_titles_shown:
            axis = self.chapters_plot.getAxis("bottom")
            axis.setLabel(self._chapter_axis_title())
            axis.resizeEvent()  # pyqtgraph centres a label only on a resize, not when its text changes

    def _set_chapter_ticks(self) -> None:
        session = self.state.session
        if session is None or not session.chapters:
            return
        numbers = [session.chapter_number(c.index) for c in session.chapters]
        metrics = self.chapters_plot.fontMetrics()
        widest = max(metrics.horizontalAdvance(str(n)) for n in numbers)
        self.tick_step = chapter_tick_step(len(numbers), self.chapters_plot.width(), widest)
        self.chapters_plot.getAxis("bottom").setTicks(
            [[(i, str(n)) for i, n in enumerate(numbers) if i % self.tick_step == 0]])

    def resizeEvent(self, event) -> None:  # noqa: N802 (Qt's name)
        super().resizeEvent(event)
        if self._speaker_limit() != self.shown_limit:
            self.refresh_speakers()
        self._fit_labels()

    # -- drawing ----------------------------------------------------------------------------
    def refresh(self) -> None:
        filters = self.state.filters
        self.counts = chapter_counts(self.state, filters)
        plot = self.chapters_plot
        plot.clear()
        plot.addItem(self._chapter_band)
        plot.setTitle(chapters_title(filters.types, filters.speaker))
        x = np.arange(len(self.counts))
        bottom = np.zeros(len(self.counts))
        for t, quote_type in enumerate(QUOTE_TYPES):
            if quote_type not in filters.types:
                continue
            heights = self.counts[:, t] if len(self.counts) else np.zeros(0)
            bars = pg.BarGraphItem(x=x, height=heights, y0=bottom, width=0.8,
                                   brush=TYPE_COLOURS[quote_type], pen=None)
            plot.addItem(bars)
            bottom = bottom + heights
        top = float(bottom.max()) if len(bottom) else 0.0
        plot.setYRange(0, max(1.0, top) * 1.05, padding=0)
        if len(self.counts):
            plot.setXRange(-0.6, len(self.counts) - 0.4, padding=0)
        self.refresh_speakers()
        self._fit_labels()

    def refresh_speakers(self) -> None:
        self.shown_limit = self._speaker_limit()
        filters = self.state.filters
        ranked, self.spoken = speaker_type_counts(self.state, self.shown_limit, filters)
        wanted = filters.speaker
        if wanted and self.spoken and ranked and wanted not in [name for name, _ in ranked]:
            own = speaker_type_counts(self.state, 10_000, filters)[0]
            extra = next(((n, c) for n, c in own if n == wanted), None)
            if extra is not None:  # the filtered speaker is always on the chart, last if not in the top
                ranked = ranked[:-1] + [extra]
        self.speaker_types = ranked
        self.speakers = [(name, int(counts.sum())) for name, counts in ranked]
        plot = self.speakers_plot
        plot.clear()
        plot.addItem(self._speaker_band)
        n = len(ranked)
        y = np.arange(n)[::-1]
        left = np.zeros(n)
        if self.spoken:
            for t, quote_type in enumerate(QUOTE_TYPES):
                if quote_type not in filters.types:
                    continue
                widths = np.array([counts[t] for _, counts in ranked], dtype=float)
                plot.addItem(pg.BarGraphItem(x0=left, y=y, height=0.7, width=widths,
                                             brush=TYPE_COLOURS[quote_type], pen=None))
                left = left + widths
        else:
            left = np.array([float(counts[0]) for _, counts in ranked])
            plot.addItem(pg.BarGraphItem(x0=0, y=y, height=0.7, width=left, brush=MENTION_COLOUR, pen=None))
        plot.getAxis("left").setTicks([[(n - 1 - i, name) for i, (name, _) in enumerate(ranked)]])
        plot.setTitle("Top speakers, by type" if self.spoken else "Most mentioned (no speakers yet)")
        if self.axis_titles_shown:
            plot.setLabel("bottom", self._speaker_unit())
            plot.setLabel("left", "speaker" if self.spoken else "character")
        if n:
            plot.setYRange(-0.6, n - 0.4, padding=0)
            plot.setXRange(0, max(1.0, float(left.max())) * 1.05, padding=0)
        self._show_marks()

    def _on_selection_changed(self) -> None:
        self._show_marks()

    def _show_marks(self) -> None:
        """Band behind the current chapter and the current speaker."""
        filters, selected = self.state.filters, self.state.selected
        chapter = filters.chapter if filters.chapter is not None else (selected.quotation.chapter if selected else None)
        speaker = filters.speaker if filters.speaker is not None else (selected.quotation.speaker if selected else None)
        top = float(self.counts.sum(axis=1).max()) * 1.05 if self.counts.size else 1.0
        if chapter is not None and 0 <= chapter < len(self.counts):
            self.marked_chapter = chapter
            self._chapter_band.setOpts(x=[chapter], height=[max(1.0, top)], width=1.0)
        else:
            self.marked_chapter = None
            self._chapter_band.setOpts(x=[], height=[], width=1.0)
        self._set_chapter_axis_title()
        names = [name for name, _ in self.speakers]
        if speaker in names:
            n = len(names)
            widest = max((c for _, c in self.speakers), default=1)
            self.marked_speaker = speaker
            self._speaker_band.setOpts(x0=[0], y=[n - 1 - names.index(speaker)], height=1.0, width=[max(1, widest) * 1.05])
        else:
            self.marked_speaker = None
            self._speaker_band.setOpts(x0=[], y=[], height=1.0, width=[])

    # -- hover ------------------------------------------------------------------------------
    def chapter_tooltip(self, chapter: int) -> str:
        """The chapter by its heading and what the bar counts, e.g. "51 · Vol. III, Chapter XVI\n23 quotations: 20 explicit, 3 anaphoric"."""
        return f"{self.state.chapter_label(chapter)}\n" + _by_type(self.counts[chapter], self.state.filters.types)

    def speaker_tooltip(self, name: str) -> str:
        counts = dict(self.speaker_types).get(name)
        if counts is None:
            return name
        if not self.spoken:
            return f"{name}\n{int(counts[0]):,} mentions"
        return f"{name}\n" + _by_type(counts, self.state.filters.types)

    def _on_chapters_hovered(self, pos) -> None:
        point = self.chapters_plot.getPlotItem().vb.mapSceneToView(pos)
        chapter = self.chapter_at(point.x())
        self._hover(self.chapters_plot, None if chapter is None else self.chapter_tooltip(chapter))

    def _on_speakers_hovered(self, pos) -> None:
        point = self.speakers_plot.getPlotItem().vb.mapSceneToView(pos)
        name = self.speaker_at(point.y())
        self._hover(self.speakers_plot, None if name is None else self.speaker_tooltip(name))

    @staticmethod
    def _hover(plot, text: str | None) -> None:
        # pyqtgraph's scene answers Qt's tooltip events itself, so the tip is shown by hand
        if text is None:
            QToolTip.hideText()
        else:
            QToolTip.showText(QCursor.pos(), text, plot)

    # -- clicks -----------------------------------------------------------------------------
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
        if name is not None and self.spoken:
            self.state.set_filters(speaker=name)


def _by_type(counts, types: frozenset[str]) -> str:
    """"23 quotations: 20 explicit, 3 anaphoric" for the shown types (types with none left out)."""
    parts = [(int(counts[t]), TYPE_LABELS[q].lower()) for t, q in enumerate(QUOTE_TYPES) if q in types]
    total = sum(n for n, _ in parts)
    detail = ", ".join(f"{n:,} {label}" for n, label in parts if n)
    return f"{total:,} quotation{'' if total == 1 else 's'}" + (f": {detail}" if detail else "")


if __name__ == "__main__":
    from litlens.gui.preview import preview

    preview(ChartsPanel, "charts")
