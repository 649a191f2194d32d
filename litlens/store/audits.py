"""Reads and writes of memorization audit results (table ``audits``)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any

from litlens.store.project import Project


@dataclass(frozen=True)
class AuditRecord:
    id: int
    book_id: int | None
    probe: str  # "name-cloze", "csg" or "mink"
    model: str
    settings: dict[str, Any]
    result: dict[str, Any]
    created_at: str


def save_audit(project: Project, book_id: int | None, probe: str, model: str,
               settings: dict[str, Any], result: dict[str, Any]) -> int:
    """Store one probe run; returns its id."""
    now = datetime.now(timezone.utc).isoformat(timespec="seconds")
    with project.atomic() as conn:
        cur = conn.execute(
            "INSERT INTO audits (book_id, probe, model, settings, result, created_at) VALUES (?, ?, ?, ?, ?, ?)",
            (book_id, probe, model, json.dumps(settings, ensure_ascii=False), json.dumps(result, ensure_ascii=False), now),
        )
        return int(cur.lastrowid)


def list_audits(project: Project, book_id: int | None = None, probe: str | None = None) -> list[AuditRecord]:
    """Stored runs, newest first, optionally of one book and one probe."""
    sql = "SELECT id, book_id, probe, model, settings, result, created_at FROM audits WHERE 1 = 1"
    args: list[Any] = []
    if book_id is not None:
        sql += " AND book_id = ?"
        args.append(book_id)
    if probe is not None:
        sql += " AND probe = ?"
        args.append(probe)
    rows = project.conn.execute(sql + " ORDER BY id DESC", args).fetchall()
    return [AuditRecord(r[0], r[1], r[2], r[3], json.loads(r[4]), json.loads(r[5]), r[6]) for r in rows]
