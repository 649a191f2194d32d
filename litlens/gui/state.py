"""The reader window's state: the open book, the filters and the selected quotation.

Panels read this model and send intents to it; it emits signals when something
changes, so every panel follows (character edits included).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from PySide6.QtCore import QObject, Signal

from litlens.errors import LitLensError
from litlens.model import QUOTE_TYPES
from litlens.services.session import BookSession, QuoteRow


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
    jump_requested = Signal(int)  # scroll the reader to this offset
    error = Signal(str)  # a user-facing message
    status = Signal(str)

    def __init__(self, parent: QObject | None = None):
        super().__init__(parent)
        self.session: BookSession | None = None
        self.filters = Filters()
        self.selected: QuoteRow | None = None
        self.hovered: QuoteRow | None = None

    # -- book ---------------------------------------------------------------------------
    def open_session(self, session: BookSession) -> None:
        if self.session is not None:
            self.session.close()
        self.session = session
        self.filters = Filters()
        self.selected = None
        self.book_changed.emit()
        self.filters_changed.emit()
        self.selection_changed.emit()

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
        self.data_changed.emit()
        self.selection_changed.emit()
        return edit is not None
