"""Reads and writes of speaker attributions.

Every method's answers are kept in the ``attributions`` table (one row per quotation and
method). Saving a method's answers also shows them as the quotations' speakers, except
where the speaker is protected:

- a person set it (a ``quote-speaker`` edit that is still in force), or
- it came from somewhere other than an attribution method (``speaker_method`` is NULL
  while ``speaker`` is set: imported gold annotations, older human corrections).

Undoing a person's correction removes the protection, so the next run may fill it.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence

from litlens.attribution.base import Attribution
from litlens.store.project import Project


def human_speaker_ids(conn: sqlite3.Connection, book_id: int) -> set[int]:
    """Ids of quotations whose speaker a person set (edits still in force)."""
    ids: set[int] = set()
    rows = conn.execute(
        "SELECT after FROM edits WHERE book_id = ? AND kind = 'quote-speaker' AND state IN ('done', 'sealed')",
        (book_id,),
    ).fetchall()
    for (after,) in rows:
        ids.update(int(i) for i in json.loads(after).get("quotations", {}))
    return ids


def protected_quotation_ids(conn: sqlite3.Connection, book_id: int) -> set[int]:
    """Quotations whose shown speaker an attribution run must not overwrite."""
    rows = conn.execute(
        "SELECT id FROM quotations WHERE book_id = ? AND speaker IS NOT NULL AND speaker_method IS NULL",
        (book_id,),
    ).fetchall()
    return {r[0] for r in rows} | human_speaker_ids(conn, book_id)


def save_attributions(
    project: Project,
    book_id: int,
    attributions: Sequence[Attribution],
    method: str,
    *,
    show: bool = True,
) -> dict:
    """Replace the book's earlier attributions of ``method`` by ``attributions``, atomically.

    With ``show``, each attribution also becomes its quotation's speaker (name),
    ``speaker_confidence`` and addressees, unless that speaker is protected (see the
    module docs). Returns counts: ``saved``, ``shown`` and ``kept`` (protected).
    Speaker and addressee ids must be ids of the book's characters.
    """
    project.book(book_id)
    names = {str(r[0]): r[1] for r in project.conn.execute("SELECT id, name FROM characters WHERE book_id = ?", (book_id,))}
    active = {
        r[0]
        for r in project.conn.execute("SELECT id FROM quotations WHERE book_id = ? AND status = 'active'", (book_id,))
    }
    for a in attributions:
        if a.method != method:
            raise ValueError(f"attribution of quotation {a.quotation_id} is by {a.method!r}, not {method!r}")
        if a.speaker is not None and a.speaker not in names:
            raise ValueError(f"speaker id {a.speaker!r} of quotation {a.quotation_id} is not a character of book {book_id}")
    shown = kept = 0
    with project.atomic() as conn:
        protected = protected_quotation_ids(conn, book_id)
        conn.execute("DELETE FROM attributions WHERE book_id = ? AND method = ?", (book_id, method))
        rows = []
        for a in attributions:
            qid = int(a.quotation_id)
            if qid not in active:
                continue
            addressees = [x for x in a.addressees if x in names]
            rows.append(
                (
                    qid,
                    book_id,
                    method,
                    a.speaker,
                    names.get(a.speaker) if a.speaker is not None else None,
                    float(a.confidence),
                    json.dumps(addressees),
                    json.dumps([names[x] for x in addressees]),
                )
            )
            if not show:
                continue
            if qid in protected:
                kept += 1
                continue
            conn.execute(
                "UPDATE quotations SET speaker = ?, speaker_confidence = ?, addressees = ?, speaker_method = ? WHERE id = ?",
                (
                    names.get(a.speaker) if a.speaker is not None else None,
                    round(float(a.confidence), 4) if a.speaker is not None else None,
                    json.dumps([names[x] for x in addressees]),
                    method,
                    qid,
                ),
            )
            shown += 1
        conn.executemany(
            "INSERT INTO attributions (quotation_id, book_id, method, speaker_id, speaker, confidence,"
            " addressee_ids, addressees, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, datetime('now'))",
            rows,
        )
    return {"saved": len(rows), "shown": shown, "kept": kept}


def read_attributions(project: Project, book_id: int, method: str | None = None) -> list[Attribution]:
    """Stored attributions of the book's active quotations (all methods, or one), in text order."""
    sql = (
        "SELECT a.quotation_id, a.speaker_id, a.confidence, a.method, a.addressee_ids FROM attributions a"
        " JOIN quotations q ON q.id = a.quotation_id AND q.book_id = a.book_id"
        " WHERE a.book_id = ? AND q.status = 'active'"
    )
    args: list = [book_id]
    if method is not None:
        sql += " AND a.method = ?"
        args.append(method)
    sql += " ORDER BY q.start, q.id, a.method"
    return [
        Attribution(str(r[0]), r[1], float(r[2]), r[3], tuple(json.loads(r[4])))
        for r in project.conn.execute(sql, args).fetchall()
    ]


def attribution_methods(project: Project, book_id: int) -> list[str]:
    """Methods that have attributions stored for the book."""
    rows = project.conn.execute("SELECT DISTINCT method FROM attributions WHERE book_id = ? ORDER BY method", (book_id,))
    return [r[0] for r in rows]
