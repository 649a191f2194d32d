"""The per-chunk LLM request/answer cache kept in a project (table ``llm_cache``).

Each answer is committed the moment it arrives, so a run killed at any point resumes with
every chunk answered before the kill, and a re-run with the same model and prompt version
sends nothing to the model.
"""

from __future__ import annotations

import json
from typing import Any

from litlens.store.project import Project, translate_sqlite_errors

_COLUMNS = (
    "model",
    "prompt_version",
    "book_id",
    "source",
    "chapter",
    "chunk_index",
    "attempt",
    "request",
    "raw_answer",
    "parsed_answer",
    "status",
    "error",
    "seconds",
)


class ProjectChunkCache:
    """A :class:`litlens.attribution.llm_protocol.ChunkCache` over a project's ``llm_cache``.

    ``defaults`` (e.g. ``{"book_id": 3}`` or ``{"source": "pdnc:DaisyMiller"}``) fill the
    descriptive columns of every record written through this object.
    """

    def __init__(self, project: Project, **defaults: Any):
        self.project = project
        self.defaults = defaults
        self.hits = 0
        self.writes = 0

    def get(self, key: str) -> str | None:
        with translate_sqlite_errors(self.project.path):
            row = self.project.conn.execute("SELECT raw_answer FROM llm_cache WHERE key = ?", (key,)).fetchone()
        if row is None:
            return None
        self.hits += 1
        return str(row[0])

    def put(self, key: str, record: dict[str, Any]) -> None:
        values = {**self.defaults, **record}
        row = [values.get(c) for c in _COLUMNS]
        if row[_COLUMNS.index("request")] is not None and not isinstance(row[_COLUMNS.index("request")], str):
            row[_COLUMNS.index("request")] = json.dumps(row[_COLUMNS.index("request")], ensure_ascii=False)
        with self.project.atomic() as conn:
            conn.execute(
                f"INSERT OR REPLACE INTO llm_cache (key, {', '.join(_COLUMNS)}, created_at)"
                f" VALUES (?, {', '.join('?' for _ in _COLUMNS)}, datetime('now'))",
                [key, *row],
            )
        self.writes += 1


def cache_rows(project: Project, *, book_id: int | None = None, source: str | None = None) -> list[dict[str, Any]]:
    """Stored cache records (oldest first), optionally for one book or evaluation source."""
    where, args = [], []
    if book_id is not None:
        where.append("book_id = ?")
        args.append(book_id)
    if source is not None:
        where.append("source = ?")
        args.append(source)
    sql = "SELECT key, " + ", ".join(_COLUMNS) + ", created_at FROM llm_cache"
    if where:
        sql += " WHERE " + " AND ".join(where)
    sql += " ORDER BY created_at, rowid"
    with translate_sqlite_errors(project.path):
        cur = project.conn.execute(sql, args)
        names = [d[0] for d in cur.description]
        return [dict(zip(names, r)) for r in cur.fetchall()]


def clear_cache(project: Project, *, book_id: int | None = None, model: str | None = None) -> int:
    """Delete cached answers (all, one book's, or one model's); returns rows removed."""
    where, args = [], []
    if book_id is not None:
        where.append("book_id = ?")
        args.append(book_id)
    if model is not None:
        where.append("model = ?")
        args.append(model)
    with project.atomic() as conn:
        cur = conn.execute("DELETE FROM llm_cache" + (" WHERE " + " AND ".join(where) if where else ""), args)
    return int(cur.rowcount)
