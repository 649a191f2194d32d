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
        _restore(conn, json.loads(row[1]))
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
        _restore(conn, json.loads(row[1]))
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
