"""`litlens check`: is a project file sound? Integrity, schema version and rows per table,
read without writing a byte, with what to do when something is wrong."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from litlens.errors import DamagedProjectError
from litlens.store.migrations import SCHEMA_VERSION
from litlens.store.project import RECOVERY_HINT, open_project


def check_project(project_path: str | Path, *, max_problems: int = 20) -> dict:
    """A report: ``ok``, ``integrity`` ("ok" or SQLite's problems), the schema (applied, pending,
    unknown migrations), ``tables`` (rows per table, or why a table cannot be counted) and
    ``hint`` (what to do, or None when all is well)."""
    report: dict = {"project": str(project_path), "ok": False, "integrity": "ok", "schema": {}, "tables": {},
                    "hint": None}
    try:
        project = open_project(project_path, readonly=True)
    except DamagedProjectError as exc:  # not even the list of tables can be read
        report.update(integrity=[str(exc.__cause__ or exc)], hint=RECOVERY_HINT)
        return report
    with project:
        ident = project.identity
        report["schema"] = {
            "application": "litlens" if ident.kind == "litlens" else "litlens (made before projects were stamped; "
                                                                     "stamped at the next write)",
            "version": max(ident.user_version, len(ident.applied)), "this_litlens": SCHEMA_VERSION,
            "applied": len(ident.applied), "pending": list(ident.pending), "unknown": list(ident.unknown),
        }
        try:
            rows = [r[0] for r in project.conn.execute(f"PRAGMA integrity_check({int(max_problems)})")]
        except sqlite3.DatabaseError as exc:
            rows = [str(exc)]
        report["integrity"] = "ok" if rows == ["ok"] else rows
        for table in ident.tables:
            try:
                count = project.conn.execute(f'SELECT COUNT(*) FROM "{table}"').fetchone()[0]
            except sqlite3.DatabaseError as exc:
                count = f"unreadable ({exc})"
            report["tables"][table] = count
    damaged = report["integrity"] != "ok" or any(isinstance(v, str) for v in report["tables"].values())
    report["ok"] = not damaged
    if damaged:
        report["hint"] = RECOVERY_HINT
    elif ident.newer:
        report["hint"] = f"{ident.newer_reason()}: this LitLens only reads it; upgrade LitLens to change it"
    elif ident.pending:
        report["hint"] = ("made by an older LitLens: the next command that writes to it adds "
                          f"{len(ident.pending)} schema step(s) ({', '.join(ident.pending)})")
    return report
