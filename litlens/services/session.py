"""An open book in a project, as the reader window sees it: text, units, quotations,
characters, corrections and undo. The GUI talks to this, never to SQL."""

from __future__ import annotations

import bisect
from dataclasses import dataclass
from pathlib import Path

from litlens.model import Chapter, Character, Quotation
from litlens.services import editing
from litlens.services.books import chapter_number, resolve_book
from litlens.store import edits
from litlens.store.project import BookRecord, Project, open_project


@dataclass(frozen=True)
class QuoteRow:
    """A stored quotation with its row id."""

    id: int
    quotation: Quotation

    @property
    def start(self) -> int:
        return self.quotation.start

    @property
    def end(self) -> int:
        return self.quotation.end


@dataclass(frozen=True)
class CharacterRow:
    id: int
    character: Character


class BookSession:
    """Keeps one project open on one book; every edit is written through at once."""

    def __init__(self, project_path: str | Path, book_id: int | None = None):
        self.project: Project = open_project(project_path, create=False)
        self.book_id = resolve_book(self.project, book_id)
        self.text = self.project.text(self.book_id)
        self.chapters: list[Chapter] = self.project.structure(self.book_id).chapters
        self.quotes: list[QuoteRow] = []
        self.characters: list[CharacterRow] = []
        self._starts: list[int] = []
        self.reload()

    @property
    def path(self) -> Path:
        return self.project.path

    @property
    def record(self) -> BookRecord:
        return self.project.book(self.book_id)

    def close(self) -> None:
        self.project.close()

    def reload(self) -> None:
        """Re-read quotations and characters after an edit."""
        self.quotes = [QuoteRow(qid, q) for qid, q in self.project.quotations(self.book_id)]
        self.characters = [CharacterRow(cid, c) for cid, c in self.project.characters(self.book_id)]
        self._starts = [row.start for row in self.quotes]

    # -- lookups --------------------------------------------------------------------
    def quote_at(self, offset: int) -> QuoteRow | None:
        """The quotation whose extent (marks included) covers ``offset``."""
        i = bisect.bisect_right(self._starts, offset + 1) - 1
        for row in self.quotes[max(i - 2, 0): i + 1][::-1]:
            if row.start - 1 <= offset < row.end + 1:
                return row
        return None

    def quotes_between(self, start: int, end: int) -> list[QuoteRow]:
        """Quotations overlapping [start, end)."""
        lo = bisect.bisect_left(self._starts, start) - 1
        hi = bisect.bisect_right(self._starts, end)
        return [row for row in self.quotes[max(lo - 1, 0): hi] if row.end > start and row.start < end]

    def quote(self, quotation_id: int) -> QuoteRow | None:
        return next((row for row in self.quotes if row.id == quotation_id), None)

    def chapter_of(self, offset: int) -> Chapter | None:
        starts = [c.start for c in self.chapters]
        i = bisect.bisect_right(starts, offset) - 1
        return self.chapters[i] if i >= 0 else None

    def chapter_number(self, chapter_index: int | None) -> int | None:
        return chapter_number(self.chapters, chapter_index)

    def character_names(self) -> list[str]:
        return [row.character.name for row in self.characters]

    # -- edits (each persisted at once, undoable) ---------------------------------------
    def _done(self, edit: edits.Edit | None) -> edits.Edit | None:
        self.reload()
        return edit

    def merge_characters(self, source_id: int, target_id: int) -> edits.Edit:
        return self._done(editing.merge_characters(self.project, self.book_id, source_id, target_id))

    def split_alias(self, character_id: int, alias: str) -> edits.Edit:
        return self._done(editing.split_alias(self.project, self.book_id, character_id, alias))

    def rename_character(self, character_id: int, name: str) -> edits.Edit:
        return self._done(editing.rename_character(self.project, self.book_id, character_id, name))

    def set_gender(self, character_id: int, gender: str) -> edits.Edit:
        return self._done(editing.set_gender(self.project, self.book_id, character_id, gender))

    def set_quote_type(self, quotation_id: int, quote_type: str) -> edits.Edit:
        return self._done(editing.set_quotation_type(self.project, quotation_id, quote_type))

    def set_quote_speaker(self, quotation_id: int, speaker: str | None) -> edits.Edit:
        return self._done(editing.set_quotation_speaker(self.project, quotation_id, speaker))

    def add_quote(self, start: int, end: int, quote_type: str = "implicit") -> edits.Edit:
        return self._done(editing.add_quotation(self.project, self.book_id, start, end, quote_type))

    def reject_quote(self, quotation_id: int) -> edits.Edit:
        return self._done(editing.reject_quotation(self.project, quotation_id))

    def undo(self) -> edits.Edit | None:
        return self._done(editing.undo(self.project, self.book_id))

    def redo(self) -> edits.Edit | None:
        return self._done(editing.redo(self.project, self.book_id))

    def history(self) -> list[edits.Edit]:
        return edits.history(self.project, self.book_id)
