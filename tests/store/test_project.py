from __future__ import annotations

import sqlite3
import subprocess
import sys
import textwrap

import pytest

from litlens.errors import BookNotFoundError, DiskFullError, NotAProjectError, ProjectError, ProjectLockedError
from litlens.model import Chapter, Character, EntityMention, Paragraph, Quotation, RawBook, Sentence, Structure
from litlens.store import project as project_module
from litlens.store.migrations import MIGRATIONS, apply_migrations
from litlens.store.project import open_project

TEXT = 'CHAPTER I.\n\n"Hello," said Anne. "Goodbye."\n\nShe left.'


def _book() -> tuple[RawBook, Structure, list[Quotation], list[Character]]:
    raw = RawBook(text=TEXT, source_path="a.txt", format="txt", encoding="utf-8", title="A")
    structure = Structure(
        chapters=[Chapter(0, "CHAPTER I.", 0, len(TEXT))],
        paragraphs=[Paragraph(0, 0, 10, 0), Paragraph(1, 12, 42, 0), Paragraph(2, 44, 53, 0)],
        sentences=[Sentence(0, 12, 26, 1, 0), Sentence(1, 27, 42, 1, 0)],
        persons=[EntityMention(25, 29, "Anne")],
    )
    quotes = [Quotation(spans=[(13, 19), (33, 41)], type="explicit", referring_expression="said Anne",
                        cue_span=(21, 30), chapter=0)]
    characters = [Character(name="Anne", aliases=["Anne"], gender="female", mention_count=1, quote_count=1)]
    return raw, structure, quotes, characters


def _add(project) -> int:
    raw, structure, quotes, characters = _book()
    return project.add_book(raw, structure, quotes, characters, sha256="x", word_count=7, pipeline_version="1")


def test_project_roundtrip_keeps_every_unit(tmp_path):
    path = tmp_path / "p.litlens"
    with open_project(path) as project:
        book_id = _add(project)
    with open_project(path, create=False) as project:
        stored = project.load_book(book_id)
        record = project.book(book_id)
    raw, structure, quotes, characters = _book()
    assert stored.raw.text == TEXT
    assert stored.structure == structure
    assert stored.quotations == quotes
    assert stored.characters == characters
    assert (record.chapters, record.quotations, record.characters) == (1, 1, 1)


def test_project_uses_wal_and_records_migrations(tmp_path):
    path = tmp_path / "p.litlens"
    open_project(path).close()
    conn = sqlite3.connect(path)
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    names = [r[0] for r in conn.execute("SELECT name FROM _migrations ORDER BY name")]
    assert names == [name for name, _ in MIGRATIONS]


def test_project_upgrades_an_old_database(tmp_path):
    # A project written by the first release only has migration 001 applied.
    path = tmp_path / "old.litlens"
    conn = sqlite3.connect(path, isolation_level=None)
    apply_migrations(conn, MIGRATIONS[:1])
    conn.execute(
        "INSERT INTO books (title, source_path, format, encoding, sha256, word_count, text, pipeline_version,"
        " created_at) VALUES ('Old', 'o.txt', 'txt', 'utf-8', 'h', 1, 'x', '0', 'then')"
    )
    conn.close()
    with open_project(path) as project:
        assert [b.title for b in project.books()] == ["Old"]
        assert project.quotations(1) == []
        names = [r[0] for r in project.conn.execute("SELECT name FROM _migrations")]
    assert len(names) == len(MIGRATIONS)


def test_project_failed_migration_leaves_database_unchanged(tmp_path):
    path = tmp_path / "p.litlens"
    conn = sqlite3.connect(path, isolation_level=None)

    def broken(c):
        c.execute("CREATE TABLE half (x)")
        raise RuntimeError("boom")

    with pytest.raises(RuntimeError):
        apply_migrations(conn, [("001_broken", broken)])
    tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    assert "half" not in tables
    assert conn.execute("SELECT COUNT(*) FROM _migrations").fetchone()[0] == 0


def test_project_rejects_a_file_that_is_not_sqlite(tmp_path):
    path = tmp_path / "notes.litlens"
    path.write_text("these are my notes, not a database")
    with pytest.raises(NotAProjectError, match="not a LitLens project"):
        open_project(path)
    assert path.read_text() == "these are my notes, not a database"


def test_project_missing_without_create_says_how_to_make_one(tmp_path):
    with pytest.raises(ProjectError, match="litlens ingest"):
        open_project(tmp_path / "absent.litlens", create=False)


def test_project_locked_by_another_process_gives_typed_error(tmp_path, monkeypatch):
    path = tmp_path / "p.litlens"
    open_project(path).close()
    holder = subprocess.Popen(
        [sys.executable, "-c", textwrap.dedent(f"""
            import sqlite3, sys
            c = sqlite3.connect({str(path)!r}, isolation_level=None)
            c.execute("BEGIN EXCLUSIVE")
            print("locked", flush=True)
            sys.stdin.readline()
        """)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
    )
    try:
        assert holder.stdout.readline().strip() == "locked"
        monkeypatch.setattr(project_module, "BUSY_TIMEOUT_S", 0.2)
        with pytest.raises(ProjectLockedError, match="locked by another process"):
            with open_project(path) as project:
                _add(project)
    finally:
        holder.stdin.write("\n")
        holder.stdin.flush()
        holder.wait(timeout=10)
    with open_project(path) as project:
        assert project.books() == []


def test_project_full_disk_keeps_earlier_books(tmp_path):
    path = tmp_path / "p.litlens"
    with open_project(path) as project:
        first = _add(project)
        pages = project.conn.execute("PRAGMA page_count").fetchone()[0]
        # SQLite reports SQLITE_FULL when it cannot grow the file: exactly what a full disk does.
        project.conn.execute(f"PRAGMA max_page_count = {pages}")
        raw, structure, quotes, characters = _book()
        big = RawBook(text="x" * 200_000, source_path="b.txt", format="txt", encoding="utf-8")
        with pytest.raises(DiskFullError, match="disk is full"):
            project.add_book(big, structure, quotes, characters, sha256="y", word_count=1, pipeline_version="1")
    with open_project(path) as project:
        assert [b.id for b in project.books()] == [first]
        assert project.conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"


def test_project_unknown_book_lists_known_ids(tmp_path):
    with open_project(tmp_path / "p.litlens") as project:
        book_id = _add(project)
        with pytest.raises(BookNotFoundError, match=f"books in this project: {book_id}"):
            project.book(book_id + 5)
