"""The reader window's state: the open book, the filters and the selected quotation.

Panels read this model and send intents to it; it emits signals when something
changes, so every panel follows (character edits included).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from PySide6.QtCore import QObject, Signal

from litlens.errors import LitLensError
from litlens.model import QUOTE_TYPES
from litlens.services.books import chapter_label, paragraph_starts
from litlens.services.session import BookSession, QuoteRow

# Twelve speaker colours, each at least 3:1 against white (text, swatches and margin names stay
# readable) and far apart in hue and lightness; every other speaker is grey.
SPEAKER_COLOURS = ("#0277BD", "#D35400", "#1E8449", "#C2185B", "#6C3483", "#A0522D",
                   "#00695C", "#5D6D00", "#0B2E6B", "#9C27B0", "#4E342E", "#000000")
OTHER_SPEAKER_COLOUR = "#7F7F7F"


@dataclass(frozen=True)
class Filters:
    types: frozenset[str] = field(default_factory=lambda: frozenset(QUOTE_TYPES))
    speaker: str | None = None  # a character's main name
    chapter: int | None = None  # Chapter.index

    def accepts(self, row: QuoteRow, chapter_index: int | None = None) -> bool:
        q = row.quotation
        if q.type not in self.types:
            return False
        if self.speaker is not None and q.speaker != self.speaker:
            return False
        if self.chapter is not None and (chapter_index if chapter_index is not None else q.chapter) != self.chapter:
            return False
        return True


class BookState(QObject):
    """Shared state of one window; ``session`` is None until a book is open."""

    book_changed = Signal()  # a different book was opened (or closed)
    data_changed = Signal()  # quotations or characters were edited
    filters_changed = Signal()
    selection_changed = Signal()  # the selected quotation changed
    hover_changed = Signal()  # the quotation under the mouse changed
    jump_requested = Signal(int)  # scroll the reader to this offset (with the paragraphs above it)
    colouring_changed = Signal()  # colour by speaker or names in the margin turned on/off, or the colours changed
    error = Signal(str)  # a user-facing message
    status = Signal(str)

    def __init__(self, parent: QObject | None = None):
        super().__init__(parent)
        self.session: BookSession | None = None
        self.filters = Filters()
        self.selected: QuoteRow | None = None
        self.hovered: QuoteRow | None = None
        self.speaker_colours: dict[str, str] | None = None  # None: quotations are coloured by type
        self.speaker_names = False  # the reader writes each quotation's speaker in its margin
        self.paragraph_starts: list[int] = []

    # -- book ---------------------------------------------------------------------------
    def open_session(self, session: BookSession) -> None:
        if self.session is not None:
            self.session.close()
        self.session = session
        self.filters = Filters()
        self.selected = None
        self.paragraph_starts = paragraph_starts(session.path, session.book_id)
        if self.speaker_colours is not None:
            self.speaker_colours = speaker_colours(session)
        self.book_changed.emit()
        self.filters_changed.emit()
        self.selection_changed.emit()
        if self.speaker_colours is not None:
            self.colouring_changed.emit()

    def close(self) -> None:
        if self.session is not None:
            self.session.close()
            self.session = None

    # -- filters and selection -------------------------------------------------------------
    def set_filters(self, **changes: object) -> None:
        new = replace(self.filters, **changes)
        if new != self.filters:
            self.filters = new
            self.filters_changed.emit()

    def select(self, row: QuoteRow | None) -> None:
        if row is not self.selected and (row is None or self.selected is None or row.id != self.selected.id):
            self.selected = row
            self.selection_changed.emit()

    def hover(self, row: QuoteRow | None) -> None:
        if (row and row.id) != (self.hovered and self.hovered.id):
            self.hovered = row
            self.hover_changed.emit()

    def show_quote(self, row: QuoteRow | None) -> None:
        """Select a quotation and scroll the reader to it (with the turns before it)."""
        self.select(row)
        if row is not None:
            self.jump_requested.emit(row.start)

    def step(self, direction: int, after: int | None = None) -> QuoteRow | None:
        """Select and show the next (+1) or previous (-1) quotation the filters let through,
        counting from the selected one (or from offset ``after`` when nothing is selected)."""
        rows = self.visible_quotes()
        if not rows:
            return None
        origin = self.selected.start if self.selected is not None else (after if after is not None else -1)
        if direction > 0:
            target = next((r for r in rows if r.start > origin), None)
        else:
            target = next((r for r in reversed(rows) if r.start < origin), None)
        if target is not None:
            self.show_quote(target)
        return target

    def chapter_label(self, chapter_index: int | None) -> str:
        return chapter_label(self.session.chapters, chapter_index) if self.session is not None else "—"

    # -- colour by speaker ------------------------------------------------------------------
    def set_speaker_colouring(self, on: bool) -> None:
        colours = speaker_colours(self.session) if on and self.session is not None else ({} if on else None)
        if colours != self.speaker_colours:
            self.speaker_colours = colours
            self.colouring_changed.emit()

    def set_speaker_names(self, on: bool) -> None:
        if on != self.speaker_names:
            self.speaker_names = on
            self.colouring_changed.emit()

    def speaker_colour(self, speaker: str | None) -> str | None:
        """The colour of a speaker's quotations while colouring by speaker (grey beyond the top twelve)."""
        if self.speaker_colours is None:
            return None
        return self.speaker_colours.get(speaker or "", OTHER_SPEAKER_COLOUR)

    def visible_quotes(self) -> list[QuoteRow]:
        if self.session is None:
            return []
        return [row for row in self.session.quotes if self.filters.accepts(row)]

    # -- edits --------------------------------------------------------------------------
    def edit(self, method: str, *args: object) -> bool:
        """Apply a session edit by name; errors become a user message. True on success."""
        if self.session is None:
            return False
        selected_id = self.selected.id if self.selected else None
        try:
            edit = getattr(self.session, method)(*args)
        except LitLensError as exc:
            self.error.emit(str(exc))
            return False
        self.selected = self.session.quote(selected_id) if selected_id is not None else None
        if edit is not None:
            verb = {"undo": "Undid", "redo": "Redid"}.get(method, "Done")
            self.status.emit(f"{verb}: {edit.description}")
        elif method in ("undo", "redo"):
            self.status.emit(f"Nothing to {method}")
        if self.speaker_colours is not None:  # a corrected speaker may change the ranking
            self.set_speaker_colouring(True)
        self.data_changed.emit()
        self.selection_changed.emit()
        return edit is not None


def speaker_colours(session: BookSession) -> dict[str, str]:
    """The twelve most frequent speakers -> their colours (ties broken by name)."""
    counts: dict[str, int] = {}
    for row in session.quotes:
        if row.quotation.speaker:
            counts[row.quotation.speaker] = counts.get(row.quotation.speaker, 0) + 1
    ranked = sorted(counts, key=lambda name: (-counts[name], name))
    return dict(zip(ranked, SPEAKER_COLOURS))
