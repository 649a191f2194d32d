"""Undo and redo of a crafted undo log: stored rows are checked against the table before any is written."""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

import pytest

from litlens.errors import ProjectError
from litlens.services import editing
from litlens.services.books import ingest_file
from litlens.store.edits import history
from litlens.store.project import open_project

NOVEL = '"Good morning, Mr. Darcy," said Elizabeth Bennet.\n\n"It is," said Mr. Darcy.\n\n"Where is Jane?" asked Mrs. Bennet.\n'


@pytest.fixture(scope="module")
def ingested(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("edits_replay")
    (folder / "novel.txt").write_text(NOVEL, encoding="utf-8")
    ingest_file(folder / "novel.litlens", folder / "novel.txt")
    return folder / "novel.litlens"


@pytest.fixture
def renamed(ingested, tmp_path) -> tuple[Path, int, str]:
    """A copy with one real edit (a rename) in its undo log: (project, character id, new name)."""
    project = tmp_path / "novel.litlens"
    shutil.copy(ingested, project)
    with open_project(project) as p:
        cid, character = p.characters(1)[0]
        editing.rename_character(p, 1, int(cid), "Renamed Person")
    return project, int(cid), "Renamed Person"


def _tamper(project: Path, which: str, change) -> None:
    conn = sqlite3.connect(project)
    try:
        edit_id, raw = conn.execute(f"SELECT id, {which} FROM edits ORDER BY id DESC LIMIT 1").fetchone()
        conn.execute(f"UPDATE edits SET {which} = ? WHERE id = ?", (change(json.loads(raw)), edit_id))
        conn.commit()
    finally:
        conn.close()


def _rows(project: Path) -> list[tuple]:
    conn = sqlite3.connect(project)
    try:
        return conn.execute("SELECT * FROM characters ORDER BY id").fetchall()
    finally:
        conn.close()


def _with_column(name: str, value: object = "x"):
    def change(snap: dict) -> str:
        row = next(iter(snap["characters"].values()))
        row[name] = value
        return json.dumps(snap)

    return change


def _injected(snap: dict) -> str:
    """A column name that closes the quoted name and writes SQL of its own: unchecked, the
    INSERT would store the gender 'pwned', which the JSON never held."""
    row = next(iter(snap["characters"].values()))
    row.pop("gender")
    row['gender") VALUES (' + ", ".join("?" * len(row)) + ", coalesce('pwned', ?)) --"] = "x"
    return json.dumps(snap)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (_injected, r"characters has no column 'gender\"\) VALUES"),
        (_with_column("no_such_column"), "characters has no column 'no_such_column'"),
        (lambda s: json.dumps({"books": {"1": None}}), "names table 'books', which edits never change"),
        (lambda s: json.dumps({"characters; DROP TABLE books": {}}), "which edits never change"),
        (lambda s: json.dumps({"characters": {"1 OR 1": None}}), "row id '1 OR 1' of characters is not a number"),
        (lambda s: "{not json", "rows are not valid JSON"),
        (_with_column("aliases", ["a", "list"]), "holds a value that is not a number or text"),
        (_with_column("book_id", 2), "does not belong to this edit's book"),
        (_with_column("id", 999), "does not belong to this edit's book"),
    ],
)
def test_edits_replay_of_a_crafted_row_is_refused_and_changes_nothing(renamed, change, message):
    project, cid, name = renamed
    _tamper(project, "before", change)
    before = _rows(project)
    with open_project(project) as p:
        with pytest.raises(ProjectError, match=f"edit \\d+ in the undo log is damaged.*{message}.*Nothing was changed"):
            editing.undo(p, 1)
        assert [e.state for e in history(p, 1)][-1] == "done"  # still the edit in force
    assert _rows(project) == before
    assert any(r[0] == cid and name in r for r in before)
    assert not any("pwned" in r for r in _rows(project))


def test_edits_redo_of_a_crafted_row_is_refused(renamed):
    project, cid, _ = renamed
    with open_project(project) as p:
        assert editing.undo(p, 1).kind == "rename"
    _tamper(project, "after", _injected)
    before = _rows(project)
    with open_project(project) as p:
        with pytest.raises(ProjectError, match="characters has no column"):
            editing.redo(p, 1)
    assert _rows(project) == before


def test_edits_replay_of_an_untouched_log_still_works(renamed):
    project, cid, name = renamed
    with open_project(project) as p:
        assert editing.undo(p, 1).kind == "rename"
        assert all(c.name != name for _, c in p.characters(1))
        assert editing.redo(p, 1).kind == "rename"
        assert any(c.name == name for _, c in p.characters(1))
