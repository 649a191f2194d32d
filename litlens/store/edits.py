"""Undoable human edits, stored as row snapshots in the ``edits`` table.

An edit records, for every row it touches, the row before and after (``None`` when the
row did not exist). Undo writes the "before" rows back, redo the "after" rows. Because
the log lives in the project file, undo and redo work across restarts.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass

from litlens.errors import ProjectError
from litlens.store.project import Project

# Tables an edit may touch, with their primary key column.
EDITABLE = ("characters", "quotations")

Touched = dict[str, set[int]]  # table -> row ids
Snapshot = dict[str, dict[str, dict | None]]  # table -> {row id: row or None}


@dataclass(frozen=True)
class Edit:
    id: int
    book_id: int
    kind: str
    description: str
    state: str
    created_at: str


def _snapshot(conn: sqlite3.Connection, touched: Touched) -> Snapshot:
    snap: Snapshot = {}
    for table, ids in touched.items():
        if table not in EDITABLE:
            raise ValueError(f"table {table!r} is not editable")
        rows: dict[str, dict | None] = {str(i): None for i in ids}
        if ids:
            marks = ",".join("?" * len(ids))
            cur = conn.execute(f"SELECT * FROM {table} WHERE id IN ({marks})", sorted(ids))
            names = [d[0] for d in cur.description]
            for values in cur.fetchall():
                row = dict(zip(names, values))
                rows[str(row["id"])] = row
        snap[table] = rows
    return snap


def _restore(conn: sqlite3.Connection, snap: Snapshot) -> None:
    for table, rows in snap.items():
        if table not in EDITABLE:
            raise ValueError(f"table {table!r} is not editable")
        for row_id, row in rows.items():
            if row is None:
                conn.execute(f"DELETE FROM {table} WHERE id = ?", (int(row_id),))
            else:
                names = list(row)
                cols = ", ".join(f'"{n}"' for n in names)
                conn.execute(
                    f"INSERT OR REPLACE INTO {table} ({cols}) VALUES ({', '.join('?' * len(names))})",
                    [row[n] for n in names],
                )


def _stored_snapshot(project: Project, conn: sqlite3.Connection, edit_id: int, book_id: int, which: str, raw: str) -> Snapshot:
    """The ``before`` or ``after`` rows of a stored edit, checked before anything is written back.

    The undo log is data in the project file, and a file can be crafted: a column name in
    it is spliced into SQL, so every table must be an editable one, every column one of that
    table's (``PRAGMA table_info``), every value a plain SQL value, and every row one of the
    edit's book under the id it is filed under.
    """

    def bad(problem: str) -> ProjectError:
        return ProjectError(
            project.path, f"edit {edit_id} in the undo log is damaged or was not written by LitLens: {problem}",
            "Nothing was changed. Undo and redo cannot go past this edit; the rest of the project is intact",
        )

    try:
        snap = json.loads(raw)
    except (TypeError, ValueError):
        raise bad(f"its {which!r} rows are not valid JSON") from None
    if not isinstance(snap, dict):
        raise bad(f"its {which!r} rows are not a table of rows")
    for table, rows in snap.items():
        if table not in EDITABLE:
            raise bad(f"it names table {table!r}, which edits never change")
        if not isinstance(rows, dict):
            raise bad(f"its {table} rows are not a table of rows")
        columns = {r[1] for r in conn.execute(f"PRAGMA table_info({table})")}
        for row_id, row in rows.items():
            if not (isinstance(row_id, str) and row_id.isascii() and row_id.isdigit()):
                raise bad(f"row id {row_id!r} of {table} is not a number")
            if row is None:
                owner = conn.execute(f"SELECT book_id FROM {table} WHERE id = ?", (int(row_id),)).fetchone()
                if owner is not None and owner[0] != book_id:
                    raise bad(f"it would delete {table} row {row_id} of another book")
                continue
            if not isinstance(row, dict):
                raise bad(f"{table} row {row_id} is not a row")
            unknown = [n for n in row if n not in columns]
            if unknown:
                raise bad(f"{table} has no column {', '.join(repr(n) for n in unknown)}")
            if row.get("id") != int(row_id) or row.get("book_id") != book_id:
                raise bad(f"{table} row {row_id} does not belong to this edit's book under that id")
            values = [v for v in row.values() if v is not None and not isinstance(v, (int, float, str))]
            if values:
                raise bad(f"{table} row {row_id} holds a value that is not a number or text")
    return snap


def apply_edit(
    project: Project,
    book_id: int,
    kind: str,
    description: str,
    touched: Touched,
    change: Callable[[sqlite3.Connection], Touched | None],
) -> Edit:
    """Run ``change`` in one transaction and log it as an undoable edit.

    ``touched`` names the rows ``change`` will modify or delete; ``change`` returns the
    ids of rows it inserted. A new edit discards whatever could still be redone.
    """
    with project.atomic() as conn:
        before = _snapshot(conn, touched)
        inserted = change(conn) or {}
        for table, ids in inserted.items():
            before.setdefault(table, {}).update({str(i): None for i in ids})
        all_ids = {t: {int(i) for i in rows} for t, rows in before.items()}
        after = _snapshot(conn, all_ids)
        conn.execute("UPDATE edits SET state = 'discarded' WHERE book_id = ? AND state = 'undone'", (book_id,))
        cur = conn.execute(
            "INSERT INTO edits (book_id, kind, description, before, after, state, created_at)"
            " VALUES (?, ?, ?, ?, ?, 'done', datetime('now'))",
            (book_id, kind, description, json.dumps(before), json.dumps(after)),
        )
        edit_id = int(cur.lastrowid)
    return _edit(project, edit_id)


def undo(project: Project, book_id: int) -> Edit | None:
    """Undo the latest edit still in force; ``None`` when there is nothing to undo."""
    row = project.conn.execute(
        "SELECT id, before FROM edits WHERE book_id = ? AND state = 'done' ORDER BY id DESC LIMIT 1", (book_id,)
    ).fetchone()
    if row is None:
        return None
    with project.atomic() as conn:
        _restore(conn, _stored_snapshot(project, conn, row[0], book_id, "before", row[1]))
        conn.execute("UPDATE edits SET state = 'undone' WHERE id = ?", (row[0],))
    return _edit(project, row[0])


def redo(project: Project, book_id: int) -> Edit | None:
    """Redo the earliest undone edit; ``None`` when there is nothing to redo."""
    row = project.conn.execute(
        "SELECT id, after FROM edits WHERE book_id = ? AND state = 'undone' ORDER BY id LIMIT 1", (book_id,)
    ).fetchone()
    if row is None:
        return None
    with project.atomic() as conn:
        _restore(conn, _stored_snapshot(project, conn, row[0], book_id, "after", row[1]))
        conn.execute("UPDATE edits SET state = 'done' WHERE id = ?", (row[0],))
    return _edit(project, row[0])


def history(project: Project, book_id: int) -> list[Edit]:
    rows = project.conn.execute(
        "SELECT id, book_id, kind, description, state, created_at FROM edits WHERE book_id = ? ORDER BY id",
        (book_id,),
    ).fetchall()
    return [Edit(*r) for r in rows]


def _edit(project: Project, edit_id: int) -> Edit:
    row = project.conn.execute(
        "SELECT id, book_id, kind, description, state, created_at FROM edits WHERE id = ?", (edit_id,)
    ).fetchone()
    return Edit(*row)
