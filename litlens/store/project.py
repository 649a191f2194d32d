"""One SQLite file per project: open, migrate, read and write books.

All writes go through :class:`Project`; a multi-step write runs inside
:meth:`Project.atomic`, so a crash or an error never leaves half a book behind.
"""

from __future__ import annotations

import json
import sqlite3
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from litlens.errors import (
    BookNotFoundError,
    DiskFullError,
    NotAProjectError,
    ProjectError,
    ProjectLockedError,
)
from litlens.model import (
    Chapter,
    Character,
    EntityMention,
    Paragraph,
    Quotation,
    RawBook,
    Sentence,
    Structure,
)
from litlens.store.migrations import apply_migrations


def _import_sqlite_utils():
    """sqlite-utils imports pandas when it is installed, only to store pandas timestamps as TEXT.
    LitLens never stores pandas objects, and that import costs half a second on every start, so
    it is hidden while sqlite-utils loads (unless something already imported it)."""
    if "pandas" in sys.modules:
        import sqlite_utils

        return sqlite_utils
    sys.modules["pandas"] = None  # type: ignore[assignment]  # makes `import pandas` fail fast
    try:
        import sqlite_utils
    finally:
        del sys.modules["pandas"]
    return sqlite_utils


sqlite_utils = _import_sqlite_utils()

SQLITE_MAGIC = b"SQLite format 3\x00"
BUSY_TIMEOUT_S = 5.0


@dataclass(frozen=True)
class BookRecord:
    """A stored book's metadata (its text and units are read on demand)."""

    id: int
    title: str | None
    author: str | None
    source_path: str
    format: str
    encoding: str
    notes: list[str]
    sha256: str
    word_count: int
    pipeline_version: str
    created_at: str
    chapters: int = 0
    quotations: int = 0
    characters: int = 0


@dataclass
class StoredBook:
    """Everything the pipeline produced for one book, as stored."""

    raw: RawBook
    structure: Structure
    quotations: list[Quotation]
    characters: list[Character]


class Project:
    """A LitLens project file. Use :func:`open_project` to get one."""

    def __init__(self, path: Path, conn: sqlite3.Connection):
        self.path = path
        self.conn = conn
        self.db = sqlite_utils.Database(conn)

    # -- life cycle -----------------------------------------------------------------
    def close(self) -> None:
        self.conn.close()

    def __enter__(self) -> Project:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @contextmanager
    def atomic(self) -> Iterator[sqlite3.Connection]:
        """Run a block of writes as one transaction: all of it lands, or none."""
        with translate_sqlite_errors(self.path):
            self.conn.execute("BEGIN IMMEDIATE")
            try:
                yield self.conn
            except BaseException:
                # SQLite has already rolled back after some errors (e.g. SQLITE_FULL).
                if self.conn.in_transaction:
                    self.conn.execute("ROLLBACK")
                raise
            self.conn.execute("COMMIT")

    # -- writes ---------------------------------------------------------------------
    def add_book(
        self,
        raw: RawBook,
        structure: Structure,
        quotations: list[Quotation],
        characters: list[Character],
        *,
        sha256: str,
        word_count: int,
        pipeline_version: str,
    ) -> int:
        """Store a whole analysed book in one transaction and return its id."""
        with self.atomic() as conn:
            cur = conn.execute(
                "INSERT INTO books (title, author, source_path, format, encoding, notes, sha256,"
                " word_count, text, pipeline_version, created_at)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, datetime('now'))",
                (
                    raw.title,
                    raw.author,
                    raw.source_path,
                    raw.format,
                    raw.encoding,
                    json.dumps(list(raw.notes)),
                    sha256,
                    word_count,
                    raw.text,
                    pipeline_version,
                ),
            )
            book_id = int(cur.lastrowid)
            conn.executemany(
                'INSERT INTO chapters (book_id, idx, title, start, "end") VALUES (?, ?, ?, ?, ?)',
                [(book_id, c.index, c.title, c.start, c.end) for c in structure.chapters],
            )
            conn.executemany(
                'INSERT INTO paragraphs (book_id, idx, start, "end", chapter) VALUES (?, ?, ?, ?, ?)',
                [(book_id, p.index, p.start, p.end, p.chapter) for p in structure.paragraphs],
            )
            conn.executemany(
                'INSERT INTO sentences (book_id, idx, start, "end", paragraph, chapter)'
                " VALUES (?, ?, ?, ?, ?, ?)",
                [(book_id, s.index, s.start, s.end, s.paragraph, s.chapter) for s in structure.sentences],
            )
            conn.executemany(
                'INSERT INTO person_mentions (book_id, start, "end", text) VALUES (?, ?, ?, ?)',
                [(book_id, m.start, m.end, m.text) for m in structure.persons],
            )
            self.insert_quotations(conn, book_id, quotations)
            self.insert_characters(conn, book_id, characters)
        return book_id

    def replace_quotations(self, book_id: int, quotations: list[Quotation]) -> None:
        self.book(book_id)
        with self.atomic() as conn:
            conn.execute("DELETE FROM quotations WHERE book_id = ?", (book_id,))
            self.insert_quotations(conn, book_id, quotations)

    def replace_characters(self, book_id: int, characters: list[Character]) -> None:
        self.book(book_id)
        with self.atomic() as conn:
            conn.execute("DELETE FROM characters WHERE book_id = ?", (book_id,))
            self.insert_characters(conn, book_id, characters)

    @staticmethod
    def insert_quotations(conn: sqlite3.Connection, book_id: int, quotations: list[Quotation]) -> None:
        conn.executemany(
            'INSERT INTO quotations (book_id, source_id, spans, start, "end", type,'
            " referring_expression, cue_start, cue_end, speaker, speaker_confidence, addressees,"
            " chapter, origin, edited) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [
                (
                    book_id,
                    q.source_id,
                    json.dumps([list(s) for s in q.spans]),
                    q.start,
                    q.end,
                    q.type,
                    q.referring_expression,
                    q.cue_span[0] if q.cue_span else None,
                    q.cue_span[1] if q.cue_span else None,
                    q.speaker,
                    q.speaker_confidence,
                    json.dumps(q.addressees),
                    q.chapter,
                    q.origin,
                    int(q.edited),
                )
                for q in sorted(quotations, key=lambda q: q.start)
            ],
        )

    @staticmethod
    def insert_characters(conn: sqlite3.Connection, book_id: int, characters: list[Character]) -> None:
        conn.executemany(
            "INSERT INTO characters (book_id, name, aliases, gender, mention_count, quote_count,"
            " category, ambiguous_aliases, source_id, origin) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [
                (
                    book_id,
                    c.name,
                    json.dumps(c.aliases),
                    c.gender,
                    c.mention_count,
                    c.quote_count,
                    c.category,
                    json.dumps(c.ambiguous_aliases),
                    c.source_id,
                    "gold" if c.source_id is not None else "discovered",
                )
                for c in characters
            ],
        )

    # -- reads ----------------------------------------------------------------------
    def books(self) -> list[BookRecord]:
        rows = self.conn.execute(
            "SELECT b.id, b.title, b.author, b.source_path, b.format, b.encoding, b.notes, b.sha256,"
            " b.word_count, b.pipeline_version, b.created_at,"
            " (SELECT COUNT(*) FROM chapters c WHERE c.book_id = b.id),"
            " (SELECT COUNT(*) FROM quotations q WHERE q.book_id = b.id AND q.status = 'active'),"
            " (SELECT COUNT(*) FROM characters h WHERE h.book_id = b.id)"
            " FROM books b ORDER BY b.id"
        ).fetchall()
        return [_book_record(row) for row in rows]

    def book(self, book_id: int) -> BookRecord:
        for record in self.books():
            if record.id == book_id:
                return record
        known = ", ".join(str(b.id) for b in self.books()) or "none"
        raise BookNotFoundError(
            f"{self.path}: no book with id {book_id} (books in this project: {known}). "
            "Run `litlens books -p PROJECT` to list them."
        )

    def find_book_by_sha256(self, sha256: str) -> BookRecord | None:
        row = self.conn.execute("SELECT id FROM books WHERE sha256 = ?", (sha256,)).fetchone()
        return self.book(row[0]) if row else None

    def text(self, book_id: int) -> str:
        row = self.conn.execute("SELECT text FROM books WHERE id = ?", (book_id,)).fetchone()
        if row is None:
            self.book(book_id)  # raises with the list of known ids
        return row[0]

    def raw_book(self, book_id: int) -> RawBook:
        record = self.book(book_id)
        return RawBook(
            text=self.text(book_id),
            source_path=record.source_path,
            format=record.format,
            encoding=record.encoding,
            title=record.title,
            author=record.author,
            notes=tuple(record.notes),
        )

    def structure(self, book_id: int) -> Structure:
        q = self.conn.execute
        chapters = [
            Chapter(index=r[0], title=r[1], start=r[2], end=r[3])
            for r in q('SELECT idx, title, start, "end" FROM chapters WHERE book_id = ? ORDER BY idx', (book_id,))
        ]
        paragraphs = [
            Paragraph(index=r[0], start=r[1], end=r[2], chapter=r[3])
            for r in q('SELECT idx, start, "end", chapter FROM paragraphs WHERE book_id = ? ORDER BY idx', (book_id,))
        ]
        sentences = [
            Sentence(index=r[0], start=r[1], end=r[2], paragraph=r[3], chapter=r[4])
            for r in q(
                'SELECT idx, start, "end", paragraph, chapter FROM sentences WHERE book_id = ? ORDER BY idx',
                (book_id,),
            )
        ]
        persons = [
            EntityMention(start=r[0], end=r[1], text=r[2])
            for r in q('SELECT start, "end", text FROM person_mentions WHERE book_id = ? ORDER BY start', (book_id,))
        ]
        return Structure(chapters=chapters, paragraphs=paragraphs, sentences=sentences, persons=persons)

    def quotations(self, book_id: int) -> list[tuple[int, Quotation]]:
        """The book's quotations in text order, each with its row id."""
        rows = self.conn.execute(
            "SELECT id, source_id, spans, type, referring_expression, cue_start, cue_end, speaker,"
            " speaker_confidence, addressees, chapter, origin, edited FROM quotations"
            " WHERE book_id = ? AND status = 'active' ORDER BY start, id",
            (book_id,),
        ).fetchall()
        return [(row[0], _quotation(row)) for row in rows]

    def characters(self, book_id: int) -> list[tuple[int, Character]]:
        rows = self.conn.execute(
            "SELECT id, name, aliases, gender, mention_count, quote_count, category,"
            " ambiguous_aliases, source_id FROM characters WHERE book_id = ?"
            " ORDER BY quote_count DESC, mention_count DESC, name",
            (book_id,),
        ).fetchall()
        return [
            (
                r[0],
                Character(
                    name=r[1],
                    aliases=json.loads(r[2]),
                    gender=r[3],
                    mention_count=r[4],
                    quote_count=r[5],
                    category=r[6],
                    ambiguous_aliases=json.loads(r[7]),
                    source_id=r[8],
                ),
            )
            for r in rows
        ]

    def load_book(self, book_id: int) -> StoredBook:
        return StoredBook(
            raw=self.raw_book(book_id),
            structure=self.structure(book_id),
            quotations=[q for _, q in self.quotations(book_id)],
            characters=[c for _, c in self.characters(book_id)],
        )


def _book_record(row: tuple) -> BookRecord:
    return BookRecord(
        id=row[0],
        title=row[1],
        author=row[2],
        source_path=row[3],
        format=row[4],
        encoding=row[5],
        notes=json.loads(row[6]),
        sha256=row[7],
        word_count=row[8],
        pipeline_version=row[9],
        created_at=row[10],
        chapters=row[11],
        quotations=row[12],
        characters=row[13],
    )


def _quotation(row: tuple) -> Quotation:
    return Quotation(
        spans=[(int(a), int(b)) for a, b in json.loads(row[2])],
        source_id=row[1],
        type=row[3],
        referring_expression=row[4],
        cue_span=(row[5], row[6]) if row[5] is not None else None,
        speaker=row[7],
        speaker_confidence=row[8],
        addressees=json.loads(row[9]),
        chapter=row[10],
        origin=row[11],
        edited=bool(row[12]),
    )


@contextmanager
def translate_sqlite_errors(path: Path) -> Iterator[None]:
    """Turn SQLite's low-level errors into typed errors that say what to do."""
    try:
        yield
    except sqlite3.OperationalError as exc:
        message = str(exc).lower()
        if "locked" in message or "busy" in message:
            raise ProjectLockedError(
                path,
                "the project is locked by another process",
                "Close the other LitLens window or command using it and try again",
            ) from exc
        if "disk is full" in message or "database or disk is full" in message:
            raise DiskFullError(
                path,
                "the disk is full; nothing was written",
                "Free some disk space (or move the project elsewhere) and run the command again",
            ) from exc
        if "unable to open" in message or "readonly" in message:
            raise ProjectError(
                path,
                f"cannot write the project file ({exc})",
                "Check that the folder exists and that you may write to it",
            ) from exc
        raise
    except sqlite3.DatabaseError as exc:
        if "not a database" in str(exc).lower() or "malformed" in str(exc).lower():
            raise NotAProjectError(
                path,
                "this file is not a LitLens project (not an SQLite database, or a damaged one)",
                "Pass a project file made by `litlens ingest`, or a new file name to create one",
            ) from exc
        raise


def open_project(path: str | Path, *, create: bool = True) -> Project:
    """Open (and, when ``create``, create) a project file, applying pending migrations."""
    path = Path(path)
    if not path.exists():
        if not create:
            raise ProjectError(path, "no such project file", "Check the path, or run `litlens ingest FILE -p PROJECT` to create it")
        if not path.parent.exists():
            raise ProjectError(path, f"the folder {path.parent} does not exist", "Create the folder first or choose another path")
    elif path.is_dir():
        raise NotAProjectError(path, "this is a folder, not a project file", "Pass a file name such as novel.litlens")
    else:
        with open(path, "rb") as fh:
            head = fh.read(16)
        if head and head != SQLITE_MAGIC:
            raise NotAProjectError(
                path,
                "this file is not a LitLens project (it is not an SQLite database)",
                "Pass a project file made by `litlens ingest`, or a new file name to create one",
            )
    with translate_sqlite_errors(path):
        conn = sqlite3.connect(str(path), timeout=BUSY_TIMEOUT_S, isolation_level=None, check_same_thread=False)
        try:
            conn.execute("PRAGMA foreign_keys = ON")
            mode = conn.execute("PRAGMA journal_mode = WAL").fetchone()[0]
            if mode.lower() != "wal" and str(path) != ":memory:":
                conn.execute("PRAGMA journal_mode = WAL")
            conn.execute("PRAGMA synchronous = NORMAL")
            apply_migrations(conn)
        except BaseException:
            conn.close()
            raise
    return Project(path, conn)
