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


def _m007_llm_cache(conn: sqlite3.Connection) -> None:
    # One row per LLM request of the attribution protocol (issue 4): the request, the raw
    # and parsed answer, keyed by a hash of (model, prompt version, request). No foreign key
    # on book_id: evaluation runs cache PDNC novels that are not stored as books (``source``).
    _run_script(
        conn,
        """
        CREATE TABLE llm_cache (
            key TEXT PRIMARY KEY,
            model TEXT NOT NULL,
            prompt_version TEXT NOT NULL,
            book_id INTEGER,
            source TEXT,
            chapter INTEGER,
            chunk_index INTEGER,
            attempt INTEGER NOT NULL DEFAULT 1,
            request TEXT NOT NULL,
            raw_answer TEXT NOT NULL,
            parsed_answer TEXT,
            status TEXT NOT NULL,
            error TEXT,
            seconds REAL,
            created_at TEXT NOT NULL
        );
        CREATE INDEX llm_cache_book ON llm_cache(book_id, model, prompt_version)
        """,
    )


def _m004_attribution(conn: sqlite3.Connection) -> None:
    # Speaker attribution (issue 4): every method's answer per quotation is kept in
    # ``attributions`` (character ids as they were when attributed, plus the names);
    # ``quotations.speaker_method`` says which method set the shown speaker (NULL: gold,
    # a person, or nobody), so a re-run never overwrites a human correction. No foreign
    # key on quotation_id: undo rewrites quotation rows with INSERT OR REPLACE, which must
    # not cascade; rows of quotations that no longer exist are ignored when read.
    _run_script(
        conn,
        """
        CREATE TABLE attributions (
            quotation_id INTEGER NOT NULL,
            book_id INTEGER NOT NULL REFERENCES books(id) ON DELETE CASCADE,
            method TEXT NOT NULL,
            speaker_id TEXT,
            speaker TEXT,
            confidence REAL NOT NULL,
            addressee_ids TEXT NOT NULL DEFAULT '[]',
            addressees TEXT NOT NULL DEFAULT '[]',
            created_at TEXT NOT NULL,
            PRIMARY KEY (quotation_id, method)
        );
        CREATE INDEX attributions_book ON attributions(book_id, method);
        ALTER TABLE quotations ADD COLUMN speaker_method TEXT
        """,
    )


def _m005_studies(conn: sqlite3.Connection) -> None:
    # Annotation studies (issue 6). Judgments are an append-only event log: triggers refuse
    # UPDATE and DELETE; an undo is a new 'undo' event naming the answer it takes back.
    statements = [
        """CREATE TABLE studies (
            id INTEGER PRIMARY KEY,
            name TEXT NOT NULL UNIQUE,
            kind TEXT NOT NULL CHECK (kind IN ('proxy', 'likert')),
            mode TEXT,
            scale TEXT NOT NULL,
            instructions TEXT NOT NULL DEFAULT '',
            source TEXT NOT NULL DEFAULT '',
            settings TEXT NOT NULL DEFAULT '{}',
            created_at TEXT NOT NULL
        )""",
        """CREATE TABLE study_items (
            id INTEGER PRIMARY KEY,
            study_id INTEGER NOT NULL REFERENCES studies(id) ON DELETE CASCADE,
            key TEXT NOT NULL,
            position INTEGER NOT NULL,
            data TEXT NOT NULL,
            options TEXT NOT NULL DEFAULT '[]',
            gold_position INTEGER,
            UNIQUE (study_id, key)
        )""",
        """CREATE TABLE study_annotators (
            id INTEGER PRIMARY KEY,
            study_id INTEGER NOT NULL REFERENCES studies(id) ON DELETE CASCADE,
            name TEXT NOT NULL,
            kind TEXT NOT NULL DEFAULT 'human',
            created_at TEXT NOT NULL,
            UNIQUE (study_id, name)
        )""",
        """CREATE TABLE study_assignments (
            study_id INTEGER NOT NULL REFERENCES studies(id) ON DELETE CASCADE,
            item_id INTEGER NOT NULL REFERENCES study_items(id) ON DELETE CASCADE,
            annotator_id INTEGER NOT NULL REFERENCES study_annotators(id) ON DELETE CASCADE,
            queue_position INTEGER NOT NULL,
            PRIMARY KEY (item_id, annotator_id)
        )""",
        "CREATE INDEX study_assignments_queue ON study_assignments(annotator_id, queue_position)",
        """CREATE TABLE study_judgments (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            uid TEXT NOT NULL UNIQUE,
            study_id INTEGER NOT NULL REFERENCES studies(id),
            item_id INTEGER NOT NULL REFERENCES study_items(id),
            annotator_id INTEGER NOT NULL REFERENCES study_annotators(id),
            event TEXT NOT NULL CHECK (event IN ('answer', 'skip', 'undo')),
            value TEXT,
            undoes TEXT,
            note TEXT NOT NULL DEFAULT '',
            options_shown TEXT NOT NULL DEFAULT '[]',
            duration_ms INTEGER,
            created_at TEXT NOT NULL,
            origin TEXT NOT NULL DEFAULT ''
        )""",
        "CREATE INDEX study_judgments_study ON study_judgments(study_id, id)",
        """CREATE TRIGGER study_judgments_no_update BEFORE UPDATE ON study_judgments
           BEGIN SELECT RAISE(ABORT, 'study_judgments is append-only: record a new event instead'); END""",
        """CREATE TRIGGER study_judgments_no_delete BEFORE DELETE ON study_judgments
           BEGIN SELECT RAISE(ABORT, 'study_judgments is append-only: record an undo event instead'); END""",
    ]
    for statement in statements:
        conn.execute(statement)


def _m006_retrieval(conn: sqlite3.Connection) -> None:
    # Evidence retrieval (issue 5): candidate windows per book, passage vectors keyed by
    # model + pooling, claims and the passages pinned as their evidence.
    for statement in (
        """CREATE TABLE retrieval_candidates (
            book_id INTEGER NOT NULL REFERENCES books(id) ON DELETE CASCADE,
            idx INTEGER NOT NULL,
            chapter INTEGER,
            first INTEGER NOT NULL,
            n INTEGER NOT NULL,
            start INTEGER NOT NULL,
            "end" INTEGER NOT NULL,
            text TEXT NOT NULL,
            PRIMARY KEY (book_id, idx)
        )""",
        """CREATE TABLE retrieval_embeddings (
            book_id INTEGER NOT NULL REFERENCES books(id) ON DELETE CASCADE,
            model_key TEXT NOT NULL,
            count INTEGER NOT NULL,
            dim INTEGER NOT NULL,
            vectors BLOB NOT NULL,
            created_at TEXT NOT NULL,
            PRIMARY KEY (book_id, model_key)
        )""",
        """CREATE TABLE claims (
            id INTEGER PRIMARY KEY,
            book_id INTEGER NOT NULL REFERENCES books(id) ON DELETE CASCADE,
            name TEXT NOT NULL,
            text TEXT NOT NULL DEFAULT '',
            created_at TEXT NOT NULL,
            UNIQUE (book_id, name)
        )""",
        """CREATE TABLE evidence (
            id INTEGER PRIMARY KEY,
            claim_id INTEGER NOT NULL REFERENCES claims(id) ON DELETE CASCADE,
            chapter INTEGER,
            start INTEGER NOT NULL,
            "end" INTEGER NOT NULL,
            text TEXT NOT NULL,
            query TEXT NOT NULL DEFAULT '',
            method TEXT NOT NULL DEFAULT '',
            score REAL,
            note TEXT NOT NULL DEFAULT '',
            created_at TEXT NOT NULL,
            UNIQUE (claim_id, start, "end")
        )""",
    ):
        conn.execute(statement)


def _m008_embedding_chunks(conn: sqlite3.Connection) -> None:
    # Passage vectors stored as they are made, one chunk of consecutive candidates a row, so an
    # index build that is cancelled or killed keeps its work and the next build resumes.
    conn.execute(
        """CREATE TABLE retrieval_embedding_chunks (
            book_id INTEGER NOT NULL REFERENCES books(id) ON DELETE CASCADE,
            model_key TEXT NOT NULL,
            start INTEGER NOT NULL,
            count INTEGER NOT NULL,
            dim INTEGER NOT NULL,
            vectors BLOB NOT NULL,
            chars INTEGER NOT NULL,
            seconds REAL NOT NULL,
            PRIMARY KEY (book_id, model_key, start)
        )"""
    )


def _m009_audits(conn: sqlite3.Connection) -> None:
    # Memorization audit results (issue 38): one row per probe run, with the model, the
    # settings and the whole result as JSON. book_id is NULL for a run on a loose text.
    _run_script(
        conn,
        """
        CREATE TABLE audits (
            id INTEGER PRIMARY KEY,
            book_id INTEGER REFERENCES books(id) ON DELETE CASCADE,
            probe TEXT NOT NULL,
            model TEXT NOT NULL,
            settings TEXT NOT NULL,
            result TEXT NOT NULL,
            created_at TEXT NOT NULL
        );
        CREATE INDEX audits_book ON audits(book_id, probe, created_at)
        """,
    )


MIGRATIONS: list[Migration] = [
    ("001_books_and_structure", _m001_books_and_structure),
    ("002_quotations_and_characters", _m002_quotations_and_characters),
    ("003_human_edits", _m003_human_edits),
    ("004_attribution", _m004_attribution),
    ("005_studies", _m005_studies),
    ("006_retrieval", _m006_retrieval),
    ("007_llm_cache", _m007_llm_cache),
    ("008_embedding_chunks", _m008_embedding_chunks),
    ("009_audits", _m009_audits),
]


# PRAGMA application_id of a LitLens project ("LitL"), so a project is told from any other SQLite
# file before anything is written; PRAGMA user_version is the number of migrations applied, so a
# project from a newer LitLens (more migrations) is recognised even by name-blind tools.
APPLICATION_ID = 0x4C69744C
SCHEMA_VERSION = len(MIGRATIONS)
KNOWN_NAMES = frozenset(name for name, _ in MIGRATIONS)


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
    if migrations is MIGRATIONS:
        mark_project(conn)
    return applied


def mark_project(conn: sqlite3.Connection) -> None:
    """Stamp the file as a LitLens project of this schema version (projects made before the
    stamp existed get it the first time they are opened for writing)."""
    if conn.execute("PRAGMA application_id").fetchone()[0] != APPLICATION_ID:
        conn.execute(f"PRAGMA application_id = {APPLICATION_ID}")
    if conn.execute("PRAGMA user_version").fetchone()[0] < SCHEMA_VERSION:
        conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
