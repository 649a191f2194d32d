"""Ordered, named schema migrations, applied when a project is opened.

Each migration runs once, inside a transaction, and is recorded in ``_migrations``.
Append new migrations at the end; never edit or reorder one that has shipped.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable

Migration = tuple[str, Callable[[sqlite3.Connection], None]]


def _m001_books_and_structure(conn: sqlite3.Connection) -> None:
    _run_script(
        conn,
        """
        CREATE TABLE books (
            id INTEGER PRIMARY KEY,
            title TEXT,
            author TEXT,
            source_path TEXT NOT NULL,
            format TEXT NOT NULL,
            encoding TEXT NOT NULL,
            notes TEXT NOT NULL DEFAULT '[]',
            sha256 TEXT NOT NULL,
            word_count INTEGER NOT NULL,
            text TEXT NOT NULL,
            pipeline_version TEXT NOT NULL,
            created_at TEXT NOT NULL
        );
        CREATE TABLE chapters (
            book_id INTEGER NOT NULL REFERENCES books(id) ON DELETE CASCADE,
            idx INTEGER NOT NULL,
            title TEXT NOT NULL,
            start INTEGER NOT NULL,
            "end" INTEGER NOT NULL,
            PRIMARY KEY (book_id, idx)
        );
        CREATE TABLE paragraphs (
            book_id INTEGER NOT NULL REFERENCES books(id) ON DELETE CASCADE,
            idx INTEGER NOT NULL,
            start INTEGER NOT NULL,
            "end" INTEGER NOT NULL,
            chapter INTEGER,
            PRIMARY KEY (book_id, idx)
        );
        CREATE TABLE sentences (
            book_id INTEGER NOT NULL REFERENCES books(id) ON DELETE CASCADE,
            idx INTEGER NOT NULL,
            start INTEGER NOT NULL,
            "end" INTEGER NOT NULL,
            paragraph INTEGER NOT NULL,
            chapter INTEGER,
            PRIMARY KEY (book_id, idx)
        );
        CREATE TABLE person_mentions (
            book_id INTEGER NOT NULL REFERENCES books(id) ON DELETE CASCADE,
            start INTEGER NOT NULL,
            "end" INTEGER NOT NULL,
            text TEXT NOT NULL
        );
        CREATE INDEX person_mentions_book ON person_mentions(book_id, start);
        """
    )


def _m002_quotations_and_characters(conn: sqlite3.Connection) -> None:
    _run_script(
        conn,
        """
        CREATE TABLE quotations (
            id INTEGER PRIMARY KEY,
            book_id INTEGER NOT NULL REFERENCES books(id) ON DELETE CASCADE,
            source_id TEXT,
            spans TEXT NOT NULL,
            start INTEGER NOT NULL,
            "end" INTEGER NOT NULL,
            type TEXT NOT NULL CHECK (type IN ('explicit', 'anaphoric', 'implicit')),
            referring_expression TEXT,
            cue_start INTEGER,
            cue_end INTEGER,
            speaker TEXT,
            speaker_confidence REAL,
            addressees TEXT NOT NULL DEFAULT '[]',
            chapter INTEGER,
            origin TEXT NOT NULL
        );
        CREATE INDEX quotations_book ON quotations(book_id, start);
        CREATE TABLE characters (
            id INTEGER PRIMARY KEY,
            book_id INTEGER NOT NULL REFERENCES books(id) ON DELETE CASCADE,
            name TEXT NOT NULL,
            aliases TEXT NOT NULL,
            gender TEXT NOT NULL,
            mention_count INTEGER NOT NULL DEFAULT 0,
            quote_count INTEGER NOT NULL DEFAULT 0,
            category TEXT,
            ambiguous_aliases TEXT NOT NULL DEFAULT '[]',
            source_id TEXT,
            origin TEXT NOT NULL
        );
        CREATE INDEX characters_book ON characters(book_id);
        """
    )


def _m003_human_edits(conn: sqlite3.Connection) -> None:
    _run_script(
        conn,
        """
        ALTER TABLE quotations ADD COLUMN edited INTEGER NOT NULL DEFAULT 0;
        ALTER TABLE quotations ADD COLUMN status TEXT NOT NULL DEFAULT 'active';
        CREATE TABLE edits (
            id INTEGER PRIMARY KEY,
            book_id INTEGER NOT NULL REFERENCES books(id) ON DELETE CASCADE,
            kind TEXT NOT NULL,
            description TEXT NOT NULL,
            before TEXT NOT NULL,
            after TEXT NOT NULL,
            state TEXT NOT NULL DEFAULT 'done' CHECK (state IN ('done', 'undone', 'discarded', 'sealed')),
            created_at TEXT NOT NULL
        );
        CREATE INDEX edits_book ON edits(book_id, id)
        """,
    )


MIGRATIONS: list[Migration] = [
    ("001_books_and_structure", _m001_books_and_structure),
    ("002_quotations_and_characters", _m002_quotations_and_characters),
    ("003_human_edits", _m003_human_edits),
]


def _run_script(conn: sqlite3.Connection, script: str) -> None:
    # executescript() would COMMIT the open transaction; run statements one by one instead.
    for statement in script.split(";"):
        if statement.strip():
            conn.execute(statement)


def apply_migrations(conn: sqlite3.Connection, migrations: list[Migration] | None = None) -> list[str]:
    """Apply the migrations not yet recorded; return the names applied now."""
    migrations = MIGRATIONS if migrations is None else migrations
    conn.execute(
        "CREATE TABLE IF NOT EXISTS _migrations (name TEXT PRIMARY KEY, applied_at TEXT NOT NULL)"
    )
    done = {row[0] for row in conn.execute("SELECT name FROM _migrations")}
    applied = []
    for name, migrate in migrations:
        if name in done:
            continue
        conn.execute("BEGIN IMMEDIATE")
        try:
            migrate(conn)
            conn.execute(
                "INSERT INTO _migrations (name, applied_at) VALUES (?, datetime('now'))", (name,)
            )
            conn.execute("COMMIT")
        except BaseException:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise
        applied.append(name)
    return applied
