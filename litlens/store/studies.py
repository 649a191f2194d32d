"""Annotation studies in the project file: studies, items, annotators, assignments, and
the append-only judgment log.

Every judgment is one short ``BEGIN IMMEDIATE`` transaction committed before the call
returns (the connection runs with ``synchronous = FULL``), so a judgment the GUI has
acknowledged survives a killed process or a power cut. Two processes may annotate the
same file at once: WAL lets readers run beside the writer, and the busy timeout makes a
writer wait its turn instead of failing.
"""

from __future__ import annotations

import json
import socket
import sqlite3
import urllib.parse
import uuid
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

from litlens.errors import LitLensError
from litlens.store.project import Project, translate_sqlite_errors
from litlens.studies.items import StudyItem


class StudyError(LitLensError):
    """A study, item or annotator does not exist, or a study action is not possible."""


@dataclass(frozen=True)
class StudyRecord:
    id: int
    name: str
    kind: str
    mode: str | None
    scale: list
    instructions: str
    source: str
    settings: dict
    created_at: str


@dataclass(frozen=True)
class ItemRecord:
    id: int
    key: str
    position: int
    data: dict
    options: list[dict]
    gold_position: int | None


@dataclass(frozen=True)
class JudgmentEvent:
    id: int
    uid: str
    item_id: int
    item_key: str
    annotator: str
    event: str
    value: object
    undoes: str | None
    note: str
    options_shown: list
    duration_ms: int | None
    created_at: str
    origin: str


def now_iso() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds")


def _decode_value(text: str | None) -> object:
    if text is None:
        return None
    try:
        return json.loads(text)
    except ValueError:
        return text


class StudyStore:
    """Reads and writes of the studies tables over one open :class:`Project`."""

    def __init__(self, project: Project):
        self.project = project
        self.conn = project.conn
        with translate_sqlite_errors(project.path):
            self.conn.execute("PRAGMA synchronous = FULL")
        self.origin = socket.gethostname()

    # -- studies ------------------------------------------------------------------
    def create_study(
        self, name: str, kind: str, items: list[StudyItem], *, scale: list, mode: str | None = None,
        instructions: str = "", source: str = "", settings: dict | None = None,
    ) -> int:
        if not items:
            raise StudyError(f"study {name!r} would have no items; check the input data")
        with self.project.atomic() as conn:
            if conn.execute("SELECT 1 FROM studies WHERE name = ?", (name,)).fetchone():
                raise StudyError(f"a study named {name!r} already exists in {self.project.path}; choose another --name")
            cur = conn.execute(
                "INSERT INTO studies (name, kind, mode, scale, instructions, source, settings, created_at)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (name, kind, mode, json.dumps(scale), instructions, source, json.dumps(settings or {}), now_iso()),
            )
            study_id = int(cur.lastrowid)
            keys = set()
            for position, item in enumerate(items):
                if item.key in keys:
                    raise StudyError(f"item key {item.key!r} appears twice in the input; item keys must be unique")
                keys.add(item.key)
                conn.execute(
                    "INSERT INTO study_items (study_id, key, position, data, options, gold_position)"
                    " VALUES (?, ?, ?, ?, ?, ?)",
                    (study_id, item.key, position, json.dumps(item.data, ensure_ascii=False),
                     json.dumps([o.as_json() for o in item.options], ensure_ascii=False), item.gold_position),
                )
        return study_id

    def studies(self) -> list[StudyRecord]:
        rows = self.conn.execute(
            "SELECT id, name, kind, mode, scale, instructions, source, settings, created_at FROM studies ORDER BY id"
        ).fetchall()
        return [_study(r) for r in rows]

    def study(self, name_or_id: str | int) -> StudyRecord:
        row = self.conn.execute(
            "SELECT id, name, kind, mode, scale, instructions, source, settings, created_at FROM studies"
            " WHERE name = ? OR CAST(id AS TEXT) = ?", (str(name_or_id), str(name_or_id)),
        ).fetchone()
        if row is None:
            known = ", ".join(s.name for s in self.studies()) or "none yet"
            raise StudyError(f"no study {name_or_id!r} in {self.project.path} (studies: {known})")
        return _study(row)

    def items(self, study_id: int) -> list[ItemRecord]:
        rows = self.conn.execute(
            "SELECT id, key, position, data, options, gold_position FROM study_items WHERE study_id = ? ORDER BY position",
            (study_id,),
        ).fetchall()
        return [ItemRecord(r[0], r[1], r[2], json.loads(r[3]), json.loads(r[4]), r[5]) for r in rows]

    def item(self, item_id: int) -> ItemRecord:
        r = self.conn.execute(
            "SELECT id, key, position, data, options, gold_position FROM study_items WHERE id = ?", (item_id,)
        ).fetchone()
        if r is None:
            raise StudyError(f"no study item with id {item_id}")
        return ItemRecord(r[0], r[1], r[2], json.loads(r[3]), json.loads(r[4]), r[5])

    # -- annotators and assignments -----------------------------------------------------
    def add_annotators(self, study_id: int, names: list[str], kind: str = "human") -> list[int]:
        ids = []
        with self.project.atomic() as conn:
            for name in names:
                name = name.strip()
                if not name:
                    raise StudyError("an annotator name is empty; give names like A,B,C")
                conn.execute(
                    "INSERT OR IGNORE INTO study_annotators (study_id, name, kind, created_at) VALUES (?, ?, ?, ?)",
                    (study_id, name, kind, now_iso()),
                )
                ids.append(conn.execute("SELECT id FROM study_annotators WHERE study_id = ? AND name = ?",
                                        (study_id, name)).fetchone()[0])
        return ids

    def annotators(self, study_id: int) -> list[tuple[int, str, str]]:
        return [tuple(r) for r in self.conn.execute(
            "SELECT id, name, kind FROM study_annotators WHERE study_id = ? ORDER BY name", (study_id,))]

    def annotator_id(self, study_id: int, name: str) -> int:
        row = self.conn.execute("SELECT id FROM study_annotators WHERE study_id = ? AND name = ?",
                                (study_id, name)).fetchone()
        if row is None:
            known = ", ".join(a[1] for a in self.annotators(study_id)) or "none yet"
            raise StudyError(f"unknown annotator {name!r} for this study (annotators: {known}); "
                             "add them with `litlens study assign`")
        return int(row[0])

    def set_assignments(self, study_id: int, plan: dict[str, list[int]]) -> None:
        """Replace nothing: add each (annotator, item) pair in queue order (existing pairs are kept)."""
        with self.project.atomic() as conn:
            for name, item_ids in plan.items():
                ann = conn.execute("SELECT id FROM study_annotators WHERE study_id = ? AND name = ?",
                                   (study_id, name)).fetchone()[0]
                start = conn.execute("SELECT COALESCE(MAX(queue_position) + 1, 0) FROM study_assignments"
                                     " WHERE annotator_id = ?", (ann,)).fetchone()[0]
                for n, item_id in enumerate(item_ids):
                    conn.execute(
                        "INSERT OR IGNORE INTO study_assignments (study_id, item_id, annotator_id, queue_position)"
                        " VALUES (?, ?, ?, ?)", (study_id, item_id, ann, start + n),
                    )

    def assignments(self, study_id: int) -> dict[str, list[int]]:
        out: dict[str, list[int]] = {}
        for name, item_id in self.conn.execute(
            "SELECT a.name, s.item_id FROM study_assignments s JOIN study_annotators a ON a.id = s.annotator_id"
            " WHERE s.study_id = ? ORDER BY a.name, s.queue_position", (study_id,)):
            out.setdefault(name, []).append(item_id)
        return out

    # -- judgments (append-only) ------------------------------------------------------
    def record(
        self, study_id: int, item_id: int, annotator: str, event: str, *, value: object = None,
        note: str = "", options_shown: list | None = None, duration_ms: int | None = None,
        undoes: str | None = None, uid: str | None = None, created_at: str | None = None, origin: str | None = None,
    ) -> JudgmentEvent:
        """Append one event and commit it before returning."""
        if event not in ("answer", "skip", "undo"):
            raise StudyError(f"unknown judgment event {event!r}")
        ann = self.annotator_id(study_id, annotator)
        uid = uid or uuid.uuid4().hex
        created_at = created_at or now_iso()
        origin = self.origin if origin is None else origin
        options_shown = options_shown or []
        with self.project.atomic() as conn:
            cur = conn.execute(
                "INSERT INTO study_judgments (uid, study_id, item_id, annotator_id, event, value, undoes, note,"
                " options_shown, duration_ms, created_at, origin) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (uid, study_id, item_id, ann, event, None if value is None else json.dumps(value), undoes, note,
                 json.dumps(options_shown, ensure_ascii=False), duration_ms, created_at, origin),
            )
            row_id = int(cur.lastrowid)
        key = self.conn.execute("SELECT key FROM study_items WHERE id = ?", (item_id,)).fetchone()
        return JudgmentEvent(row_id, uid, item_id, key[0] if key else "", annotator, event, value, undoes, note,
                             options_shown, duration_ms, created_at, origin)

    def events(self, study_id: int, *, after_id: int = 0, annotator: str | None = None) -> list[JudgmentEvent]:
        """The log in order; with ``annotator``, only that annotator's events (an annotator's view is blind)."""
        where = " AND a.name = ?" if annotator is not None else ""
        params = (study_id, after_id) + ((annotator,) if annotator is not None else ())
        rows = self.conn.execute(
            "SELECT j.id, j.uid, j.item_id, i.key, a.name, j.event, j.value, j.undoes, j.note, j.options_shown,"
            " j.duration_ms, j.created_at, j.origin FROM study_judgments j"
            " JOIN study_items i ON i.id = j.item_id JOIN study_annotators a ON a.id = j.annotator_id"
            " WHERE j.study_id = ? AND j.id > ?" + where + " ORDER BY j.id", params,
        ).fetchall()
        return [JudgmentEvent(r[0], r[1], r[2], r[3], r[4], r[5], _decode_value(r[6]), r[7], r[8], json.loads(r[9]),
                              r[10], r[11], r[12]) for r in rows]

    def has_uid(self, uid: str) -> bool:
        return self.conn.execute("SELECT 1 FROM study_judgments WHERE uid = ?", (uid,)).fetchone() is not None

    def last_event_id(self, study_id: int) -> int:
        return int(self.conn.execute("SELECT COALESCE(MAX(id), 0) FROM study_judgments WHERE study_id = ?",
                                     (study_id,)).fetchone()[0])


def effective_judgments(events: list[JudgmentEvent]) -> dict[tuple[str, str], JudgmentEvent]:
    """The standing answer per (item key, annotator): the latest answer not taken back by an undo.

    An undo of a skip simply returns the item to the queue; skips are never answers.
    """
    undone = {e.undoes for e in events if e.event == "undo" and e.undoes}
    out: dict[tuple[str, str], JudgmentEvent] = {}
    for e in sorted(events, key=lambda e: (e.created_at, e.id)):
        if e.event == "answer" and e.uid not in undone:
            out[(e.item_key, e.annotator)] = e
    return out


def _study(r: tuple) -> StudyRecord:
    return StudyRecord(r[0], r[1], r[2], r[3], json.loads(r[4]), r[5], r[6], json.loads(r[7]), r[8])





def read_only_uri(path: str | Path) -> str:
    """A SQLite ``file:`` URI that opens ``path`` read-only, whatever characters its name holds.

    In a URI, ``?`` starts the parameters, ``#`` a fragment and ``%`` an escape, so an
    unquoted ``lead#1.litlens`` would open (and create) ``lead``: every character of the
    absolute path except ``/`` is percent-encoded.
    """
    return "file:" + urllib.parse.quote(str(Path(path).resolve()), safe="/") + "?mode=ro"


def read_study_file(path: str) -> dict:
    """Everything about the studies in another project file, read-only (for merging)."""
    conn = sqlite3.connect(read_only_uri(path), uri=True, timeout=5.0)
    try:
        tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        if "study_judgments" not in tables:
            return {}
        out = {}
        for sid, name, kind, mode, scale, instr, source, settings in conn.execute(
                "SELECT id, name, kind, mode, scale, instructions, source, settings FROM studies"):
            items = [ItemRecord(r[0], r[1], r[2], json.loads(r[3]), json.loads(r[4]), r[5]) for r in conn.execute(
                "SELECT id, key, position, data, options, gold_position FROM study_items WHERE study_id = ?"
                " ORDER BY position", (sid,))]
            annotators = [tuple(r) for r in conn.execute(
                "SELECT name, kind FROM study_annotators WHERE study_id = ?", (sid,))]
            events = [JudgmentEvent(r[0], r[1], r[2], r[3], r[4], r[5], _decode_value(r[6]), r[7], r[8],
                                    json.loads(r[9]), r[10], r[11], r[12]) for r in conn.execute(
                "SELECT j.id, j.uid, j.item_id, i.key, a.name, j.event, j.value, j.undoes, j.note, j.options_shown,"
                " j.duration_ms, j.created_at, j.origin FROM study_judgments j"
                " JOIN study_items i ON i.id = j.item_id JOIN study_annotators a ON a.id = j.annotator_id"
                " WHERE j.study_id = ? ORDER BY j.id", (sid,))]
            out[name] = {"kind": kind, "mode": mode, "scale": json.loads(scale), "instructions": instr,
                         "source": source, "settings": json.loads(settings), "items": items,
                         "annotators": annotators, "events": events}
        return out
    except sqlite3.DatabaseError as exc:
        raise StudyError(f"{path}: cannot read studies from this file ({exc})") from exc
    finally:
        conn.close()
