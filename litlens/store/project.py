"""One SQLite file per project: open, migrate, read and write books.

All writes go through :class:`Project`; a multi-step write runs inside
:meth:`Project.atomic`, so a crash or an error never leaves half a book behind.
"""

from __future__ import annotations

import json
import random
import sqlite3
import sys
import time
import urllib.parse
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from litlens.errors import (
    BookNotFoundError,
    DamagedProjectError,
    DiskFullError,
    ForeignDatabaseError,
    LitLensError,
    LitLensWarning,
    NewerProjectError,
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
from litlens.store.migrations import APPLICATION_ID, KNOWN_NAMES, MIGRATIONS, SCHEMA_VERSION, apply_migrations


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
# While another process writes, a transaction tries to begin again after this many seconds
# (drawn at random, so two waiting writers do not keep meeting); see Project._begin.
_RETRY_S = (0.0005, 0.004)


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

    def __init__(self, path: Path, conn: sqlite3.Connection, *, readonly: str | None = None,
                 identity: FileIdentity | None = None):
        self.path = path
        self.identity = identity
        self.conn = conn
        self.db = sqlite_utils.Database(conn)
        self.readonly = readonly  # why the project was opened read-only, or None
        self._depth = 0  # nesting of atomic() blocks

    # -- life cycle -----------------------------------------------------------------
    def close(self) -> None:
        self.conn.close()

    def __enter__(self) -> Project:
        return self

    def __exit__(self, exc_type: object, exc: BaseException | None, tb: object) -> None:
        self.close()
        # Reads run anywhere inside `with open_project(...)`: a damaged page, a table a newer
        # LitLens renamed, or a write to a read-only project met there says so in one line.
        if isinstance(exc, sqlite3.Error):
            typed = sqlite_error(self.path, exc, readonly=self.readonly)
            if typed is not None:
                raise typed from exc

    @contextmanager
    def atomic(self) -> Iterator[sqlite3.Connection]:
        """Run a block of writes as one transaction: all of it lands, or none."""
        if self.readonly:
            raise ProjectError(self.path, f"it is open read-only ({self.readonly}); nothing was written",
                               "Use a LitLens that may write this project, or a copy of it in a folder you can write to")
        if self._depth:  # inside another atomic block: a savepoint, and the outer block decides
            name = f"atomic_{self._depth}"
            self._depth += 1
            try:
                with translate_sqlite_errors(self.path):
                    self.conn.execute(f"SAVEPOINT {name}")
                    try:
                        yield self.conn
                    except BaseException:
                        if self.conn.in_transaction:
                            self.conn.execute(f"ROLLBACK TO {name}")
                            self.conn.execute(f"RELEASE {name}")
                        raise
                    self.conn.execute(f"RELEASE {name}")
            finally:
                self._depth -= 1
            return
        with translate_sqlite_errors(self.path):
            self._begin()
            self._depth = 1
            try:
                yield self.conn
            except BaseException:
                # SQLite has already rolled back after some errors (e.g. SQLITE_FULL).
                if self.conn.in_transaction:
                    self.conn.execute("ROLLBACK")
                raise
            finally:
                self._depth = 0
            self.conn.execute("COMMIT")

    def _begin(self) -> None:
        """BEGIN IMMEDIATE, waiting up to :data:`BUSY_TIMEOUT_S` for the other writers.

        SQLite's own wait polls every 100 ms after its first third of a second, and writers
        that commit short transactions back to back (two annotators) take the lock again
        between two polls: a speaker correction waiting behind them gave up after 5 s with
        "the project is locked". Trying again every few milliseconds gives it its turn.
        """
        deadline = time.monotonic() + BUSY_TIMEOUT_S
        self.conn.execute("PRAGMA busy_timeout = 0")
        try:
            while True:
                try:
                    self.conn.execute("BEGIN IMMEDIATE")
                    return
                except sqlite3.OperationalError as exc:
                    message = str(exc).lower()
                    if ("locked" not in message and "busy" not in message) or time.monotonic() >= deadline:
                        raise
                time.sleep(random.uniform(*_RETRY_S))
        finally:
            self.conn.execute(f"PRAGMA busy_timeout = {int(BUSY_TIMEOUT_S * 1000)}")

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
            # front matter (the untitled stretch before the first heading) is not a chapter
            " (SELECT COUNT(*) FROM chapters c WHERE c.book_id = b.id AND trim(c.title) != ''),"
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


RECOVERY_HINT = (
    "Nothing was written. Run `litlens check -p PROJECT` for details; restore the file from a backup, or "
    "salvage what is readable with `sqlite3 PROJECT .recover | sqlite3 recovered.litlens`"
)


def sqlite_error(path: Path, exc: sqlite3.Error, *, readonly: str | None = None) -> LitLensError | None:
    """The typed error that tells a user what an SQLite error means for their project (None: a bug)."""
    message = str(exc).lower()
    if isinstance(exc, sqlite3.OperationalError):
        if "locked" in message or "busy" in message:
            return ProjectLockedError(
                path,
                "the project is locked by another process",
                "Close the other LitLens window or command using it and try again",
            )
        if "disk is full" in message or "database or disk is full" in message:
            return DiskFullError(
                path,
                "the disk is full; nothing was written",
                "Free some disk space (or move the project elsewhere) and run the command again",
            )
        if "readonly" in message and readonly:
            return ProjectError(path, f"it is open read-only ({readonly}); nothing was written",
                                "Use a LitLens that may write this project, or a copy of it in a folder you can write to")
        if "unable to open" in message or "readonly" in message:
            return ProjectError(
                path,
                f"cannot write the project file ({exc})",
                "Check that the folder exists and that you may write to it",
            )
        if "no such table" in message or "no such column" in message:
            why = readonly or "it was made by an older LitLens and not yet upgraded, or a tool changed its tables"
            return ProjectError(path, f"the project's tables are not the ones this LitLens knows ({exc}; {why})",
                                "Run `litlens check -p PROJECT`; a command that writes to an older project upgrades it")
    if isinstance(exc, sqlite3.DatabaseError):
        if "malformed" in message:
            return DamagedProjectError(path, f"the project file is damaged (SQLite: {exc})", RECOVERY_HINT)
        if "not a database" in message:
            return NotAProjectError(
                path,
                "this file is not a LitLens project (not an SQLite database, or a damaged one)",
                "Pass a project file made by `litlens ingest`, or a new file name to create one",
            )
    return None


@contextmanager
def translate_sqlite_errors(path: Path, *, readonly: str | None = None) -> Iterator[None]:
    """Turn SQLite's low-level errors into typed errors that say what to do."""
    try:
        yield
    except sqlite3.Error as exc:
        typed = sqlite_error(path, exc, readonly=readonly)
        if typed is None:
            raise
        raise typed from exc


@dataclass(frozen=True)
class FileIdentity:
    """What an existing SQLite file is, read without writing to it."""

    kind: str  # "empty" (no tables yet), "litlens", "legacy" (a LitLens project from before the stamp), "foreign"
    application_id: int
    user_version: int
    tables: tuple[str, ...]
    applied: tuple[str, ...]  # names in _migrations
    unknown: tuple[str, ...]  # applied migrations this LitLens does not know

    @property
    def pending(self) -> tuple[str, ...]:
        return tuple(name for name, _ in MIGRATIONS if name not in self.applied)

    @property
    def newer(self) -> bool:
        return bool(self.unknown) or self.user_version > SCHEMA_VERSION

    def newer_reason(self) -> str:
        made = f"schema {max(self.user_version, len(self.applied))}"
        extra = f", with migration(s) {', '.join(self.unknown)}" if self.unknown else ""
        return f"it was made by a newer LitLens ({made}{extra}; this LitLens knows schema {SCHEMA_VERSION})"


def _file_uri(path: Path, **params: str) -> str:
    # Every character but "/" is percent-encoded: "?", "#" and "%" in a file name are not URI syntax.
    query = "&".join(f"{k}={v}" for k, v in params.items())
    return "file:" + urllib.parse.quote(str(path.resolve()), safe="/") + (f"?{query}" if query else "")


def _connect_readonly(path: Path) -> sqlite3.Connection:
    """A connection that cannot write. A WAL project in a folder or file we may not write to cannot
    get its shared-memory file, so it is read as immutable (nobody can be writing it either)."""
    kwargs = {"uri": True, "timeout": BUSY_TIMEOUT_S, "isolation_level": None, "check_same_thread": False}
    conn = sqlite3.connect(_file_uri(path, mode="ro"), **kwargs)
    try:
        conn.execute("SELECT COUNT(*) FROM sqlite_master").fetchone()
        return conn
    except sqlite3.OperationalError as exc:
        conn.close()
        if "unable to open" not in str(exc).lower() and "readonly" not in str(exc).lower():
            raise
    return sqlite3.connect(_file_uri(path, mode="ro", immutable="1"), **kwargs)


def identify(conn: sqlite3.Connection) -> FileIdentity:
    """Tell a LitLens project from another application's SQLite file (reads only)."""
    app_id = conn.execute("PRAGMA application_id").fetchone()[0]
    user_version = conn.execute("PRAGMA user_version").fetchone()[0]
    tables = tuple(r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name"))
    applied: tuple[str, ...] = ()
    if "_migrations" in tables:
        try:
            applied = tuple(r[0] for r in conn.execute("SELECT name FROM _migrations ORDER BY name"))
        except sqlite3.OperationalError:  # a table of that name with other columns: not ours
            applied = ()
    unknown = tuple(n for n in applied if n not in KNOWN_NAMES)
    if app_id == APPLICATION_ID:
        kind = "litlens"
    elif app_id != 0:
        kind = "foreign"
    elif not tables and user_version == 0:
        kind = "empty"
    elif applied and not unknown and set(tables) <= _known_tables() | {"_migrations"}:
        kind = "legacy"
    else:
        kind = "foreign"
    return FileIdentity(kind, app_id, user_version, tables, applied, unknown)


_KNOWN_TABLES: set[str] = set()


def _known_tables() -> set[str]:
    """Every table this LitLens's migrations make (found by running them on an in-memory database)."""
    if not _KNOWN_TABLES:
        conn = sqlite3.connect(":memory:", isolation_level=None)
        apply_migrations(conn)
        _KNOWN_TABLES.update(r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'"))
        conn.close()
    return _KNOWN_TABLES


def _refuse_foreign(path: Path, identity: FileIdentity) -> None:
    shown = ", ".join(identity.tables[:6]) + (", …" if len(identity.tables) > 6 else "")
    owner = f"application id {identity.application_id:#x}" if identity.application_id else f"tables: {shown}"
    raise ForeignDatabaseError(
        path,
        f"this SQLite database belongs to another application ({owner}); LitLens left it unchanged",
        "Pass a project file made by LitLens, or a new file name to create one",
    )


def quick_check(conn: sqlite3.Connection, limit: int = 5) -> list[str]:
    """SQLite's quick_check: [] when the pages are sound, else up to ``limit`` problems."""
    rows = [r[0] for r in conn.execute(f"PRAGMA quick_check({int(limit)})")]
    return [] if rows == ["ok"] else rows


def open_project(path: str | Path, *, create: bool = True, readonly: bool = False) -> Project:
    """Open a project file; ``create`` makes it when absent, ``readonly`` opens it for reading only.

    Nothing is written before the file is known to be a LitLens project: another application's
    SQLite file is refused unchanged. A read-only open never creates or migrates; a project from a
    newer LitLens is opened read-only (with a warning) and refused for writing; a project whose
    pages fail ``quick_check`` is refused for writing.
    """
    path = Path(path)
    if str(path) == ":memory:":
        return _create(path)
    if not path.exists():
        if readonly or not create:
            raise ProjectError(path, "no such project file", "Check the path, or run `litlens ingest FILE -p PROJECT` to create it")
        if not path.parent.exists():
            raise ProjectError(path, f"the folder {path.parent} does not exist", "Create the folder first or choose another path")
        return _create(path)
    if path.is_dir():
        raise NotAProjectError(path, "this is a folder, not a project file", "Pass a file name such as novel.litlens")
    with open(path, "rb") as fh:
        head = fh.read(16)
    if head and head != SQLITE_MAGIC:
        raise NotAProjectError(
            path,
            "this file is not a LitLens project (it is not an SQLite database)",
            "Pass a project file made by `litlens ingest`, or a new file name to create one",
        )
    if not head:  # an empty file: a project not made yet
        if readonly or not create:
            raise NotAProjectError(path, "the file is empty, so it holds no project yet",
                                   "Run `litlens ingest FILE -p PROJECT` to make one")
        return _create(path)
    with translate_sqlite_errors(path):
        conn = _connect_readonly(path)
        try:
            identity = identify(conn)
        except BaseException:
            conn.close()
            raise
    if identity.kind == "foreign":
        conn.close()
        _refuse_foreign(path, identity)
    if identity.kind == "empty" and (readonly or not create):
        conn.close()
        raise NotAProjectError(path, "this SQLite file holds no tables, so no project yet",
                               "Run `litlens ingest FILE -p PROJECT` to make one")
    if readonly:
        reason = identity.newer_reason() if identity.newer else None
        if reason:
            warnings.warn(f"{path}: {reason}; it was opened read-only and will not be changed",
                          LitLensWarning, stacklevel=2)
        return Project(path, conn, readonly=reason or "a read-only command", identity=identity)
    conn.close()
    if identity.newer:
        raise NewerProjectError(path, f"{identity.newer_reason()}; it was not changed",
                                "Upgrade LitLens to write to it (commands that only read it still work)")
    return _create(path, check=identity.kind != "empty")


def _create(path: Path, *, check: bool = False) -> Project:
    """Open for writing: check the pages (an existing file), then WAL mode and pending migrations."""
    with translate_sqlite_errors(path):
        conn = sqlite3.connect(str(path), timeout=BUSY_TIMEOUT_S, isolation_level=None, check_same_thread=False)
        try:
            if check:
                problems = quick_check(conn)
                if problems:
                    raise DamagedProjectError(path, f"the project file is damaged (quick_check: {problems[0]})",
                                              RECOVERY_HINT)
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
