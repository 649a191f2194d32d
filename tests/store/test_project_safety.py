"""A project file is only written when it is a sound LitLens project of a schema this LitLens
knows (issue 43 items 2, 3, 4 and 6)."""

from __future__ import annotations

import hashlib
import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from litlens.cli import main
from litlens.errors import DamagedProjectError, ForeignDatabaseError, LitLensWarning, NewerProjectError
from litlens.store.migrations import APPLICATION_ID, SCHEMA_VERSION
from litlens.store.project import open_project
from tests.test_cli import NOVEL


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _error_line(capsys) -> str:
    err = capsys.readouterr().err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("litlens: error: "), err
    return lines[0]


@pytest.fixture
def other_app_db(tmp_path: Path) -> Path:
    path = tmp_path / "library.db"
    conn = sqlite3.connect(path)
    conn.executescript("CREATE TABLE books (isbn TEXT PRIMARY KEY, shelf INTEGER);"
                       "INSERT INTO books VALUES ('978-0141439518', 3);")
    conn.close()
    return path


@pytest.fixture(scope="module")
def book_project(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("safety")
    novel = root / "walk.txt"
    novel.write_text(NOVEL, encoding="utf-8")
    project = root / "walk.litlens"
    assert main(["ingest", str(novel), "-p", str(project)]) == 0
    return project


def _copy(project: Path, tmp_path: Path, name: str = "copy.litlens") -> Path:
    target = tmp_path / name
    shutil.copy(project, target)
    return target


def test_project_new_projects_carry_the_litlens_application_id(book_project):
    conn = sqlite3.connect(book_project)
    assert conn.execute("PRAGMA application_id").fetchone()[0] == APPLICATION_ID
    assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    conn.close()


def test_project_made_before_the_stamp_is_recognised_and_stamped_on_write(book_project, tmp_path):
    old = _copy(book_project, tmp_path)
    conn = sqlite3.connect(old, isolation_level=None)
    conn.execute("PRAGMA application_id = 0")
    conn.execute("PRAGMA user_version = 0")
    conn.close()
    with open_project(old, readonly=True) as project:
        assert project.identity.kind == "legacy" and len(project.books()) == 1
    assert sqlite3.connect(old).execute("PRAGMA application_id").fetchone()[0] == 0  # reading stamps nothing
    open_project(old).close()
    assert sqlite3.connect(old).execute("PRAGMA application_id").fetchone()[0] == APPLICATION_ID


@pytest.mark.parametrize("argv", [
    ["books", "-p", "{db}"], ["study", "list", "-p", "{db}"], ["quotes", "-p", "{db}"],
    ["ingest", "{novel}", "-p", "{db}"], ["study", "create-likert", "-p", "{db}", "--literaryqa", "{lqa}",
                                          "--answers", "{answers}"],
    ["study", "merge", "-p", "{db}", "{judgments}"], ["check", "-p", "{db}"],
])
def test_project_another_applications_database_is_refused_unchanged(argv, other_app_db, tmp_path, capsys):
    from tests.studies.conftest import ANSWERS, LQA_MINI

    novel = tmp_path / "walk.txt"
    novel.write_text(NOVEL, encoding="utf-8")
    judgments = tmp_path / "j.csv"
    judgments.write_text("study,item_id,annotator,label,judgment_uid,created_at\n", encoding="utf-8")
    before = _sha(other_app_db)
    args = [a.format(db=other_app_db, novel=novel, lqa=LQA_MINI, answers=ANSWERS, judgments=judgments) for a in argv]
    assert main(args) != 0
    line = _error_line(capsys)
    assert "another application" in line and str(other_app_db) in line
    assert _sha(other_app_db) == before
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith("library")) == ["library.db"]


def test_project_open_refuses_a_foreign_database_before_any_write(other_app_db):
    before = _sha(other_app_db)
    with pytest.raises(ForeignDatabaseError):
        open_project(other_app_db)
    assert _sha(other_app_db) == before


@pytest.mark.parametrize("argv", [["books", "-p", "{p}"], ["study", "list", "-p", "{p}"],
                                  ["evidence", "list", "-p", "{p}"], ["check", "-p", "{p}"]])
def test_project_read_commands_never_create_or_migrate(argv, tmp_path, capsys):
    missing = tmp_path / "absent.litlens"
    assert main([a.format(p=missing) for a in argv]) != 0
    _error_line(capsys)
    assert not missing.exists()
    empty = tmp_path / "empty.litlens"
    empty.write_bytes(b"")
    assert main([a.format(p=empty) for a in argv]) != 0
    _error_line(capsys)
    assert empty.read_bytes() == b""


def test_project_read_command_leaves_an_older_project_unmigrated(book_project, tmp_path, capsys):
    old = _copy(book_project, tmp_path)
    conn = sqlite3.connect(old, isolation_level=None)
    conn.execute("DELETE FROM _migrations WHERE name = '008_embedding_chunks'")
    conn.execute("DROP TABLE retrieval_embedding_chunks")
    conn.execute("PRAGMA user_version = 7")
    conn.close()
    before = _sha(old)
    assert main(["books", "-p", str(old), "--json"]) == 0
    assert _sha(old) == before


def _make_newer(project: Path, *, rename: bool) -> None:
    conn = sqlite3.connect(project, isolation_level=None)
    conn.execute("INSERT INTO _migrations VALUES ('009_from_the_future', datetime('now'))")
    conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    if rename:
        conn.execute("ALTER TABLE books RENAME COLUMN word_count TO words")
    conn.close()


@pytest.mark.parametrize("argv, exit_ok", [
    (["ingest", "{novel}", "-p", "{p}"], False), (["reanalyse", "-p", "{p}"], False),
    (["evidence", "pin", "-p", "{p}", "--claim", "c", "--start", "0", "--end", "9"], False),
    (["books", "-p", "{p}"], False),  # a column the newer LitLens renamed cannot be read: one line
    (["quotes", "-p", "{p}", "--json"], True),  # (no renamed column) read-only, with a warning
])
def test_project_from_a_newer_litlens_is_never_written(argv, exit_ok, book_project, tmp_path, capsys):
    newer = _copy(book_project, tmp_path)
    _make_newer(newer, rename=not exit_ok)
    novel = tmp_path / "other.txt"
    novel.write_text(NOVEL.replace("Darcy", "Bingley"), encoding="utf-8")
    before = _sha(newer)
    code = main([a.format(p=newer, novel=novel) for a in argv])
    err = capsys.readouterr().err
    assert "newer LitLens" in err and "Traceback" not in err
    if exit_ok:
        assert code == 0 and err.startswith("litlens: warning: ") and "read-only" in err
    else:
        assert code != 0 and len([x for x in err.splitlines() if x.startswith("litlens: error:")]) == 1
    assert _sha(newer) == before


def test_project_newer_write_open_raises(book_project, tmp_path):
    newer = _copy(book_project, tmp_path)
    _make_newer(newer, rename=False)
    with pytest.raises(NewerProjectError, match="newer LitLens"):
        open_project(newer)
    with pytest.warns(LitLensWarning, match="read-only"), open_project(newer, readonly=True) as project:
        assert [b.id for b in project.books()] == [1]


def _damage(project: Path) -> None:
    data = bytearray(project.read_bytes())
    for page in range(2, len(data) // 4096):
        data[page * 4096 + 100: page * 4096 + 400] = b"\xa5" * 300
    project.write_bytes(bytes(data))


def test_project_with_damaged_pages_is_not_written(book_project, tmp_path, capsys):
    damaged = _copy(book_project, tmp_path)
    _damage(damaged)
    before = _sha(damaged)
    with pytest.raises(DamagedProjectError, match="litlens check"):
        open_project(damaged)
    novel = tmp_path / "other.txt"
    novel.write_text(NOVEL.replace("Darcy", "Bingley"), encoding="utf-8")
    for argv in (["ingest", str(novel), "-p", str(damaged)], ["evidence", "list", "-p", str(damaged)],
                 ["search", "-p", str(damaged), "walk [MASK]", "--method", "bm25"]):
        assert main(argv) != 0
        assert "damaged" in _error_line(capsys)
    assert _sha(damaged) == before


def test_check_reports_integrity_counts_and_a_recovery_hint(book_project, tmp_path, capsys):
    import json

    assert main(["check", "-p", str(book_project), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["ok"] and report["integrity"] == "ok" and report["hint"] is None
    assert report["tables"]["books"] == 1 and report["tables"]["quotations"] == 3
    assert report["schema"]["version"] == SCHEMA_VERSION and report["schema"]["unknown"] == []
    damaged = _copy(book_project, tmp_path)
    _damage(damaged)
    before = _sha(damaged)
    assert main(["check", "-p", str(damaged)]) != 0
    captured = capsys.readouterr()
    assert "integrity: DAMAGED" in captured.out
    errors = captured.err.strip().splitlines()
    assert len(errors) == 1 and ".recover" in errors[0]
    assert _sha(damaged) == before


def test_ingest_of_the_same_file_twice_at_once_stores_it_once(tmp_path, monkeypatch):
    """The second run stores the text while the first is still analysing it (the race of two
    processes, played in order): the first must then reuse that book, not store a copy."""
    from litlens.services import books

    novel = tmp_path / "walk.txt"
    novel.write_text(NOVEL, encoding="utf-8")
    project = tmp_path / "race.litlens"
    real_analyse = books.analyse
    calls = []

    def analyse_while_another_run_stores(raw, **kwargs):
        calls.append(1)
        if len(calls) == 1:
            assert not books.ingest_file(project, novel).reused  # the other run finishes first
        return real_analyse(raw, **kwargs)

    monkeypatch.setattr(books, "analyse", analyse_while_another_run_stores)
    result = books.ingest_file(project, novel)
    assert result.reused
    with open_project(project, readonly=True) as p:
        assert [b.id for b in p.books()] == [1]


@pytest.mark.skipif(not hasattr(os, "geteuid"), reason="POSIX permissions")
def test_project_in_a_read_only_folder_can_still_be_read(book_project, tmp_path):
    folder = tmp_path / "ro"
    folder.mkdir()
    project = _copy(book_project, folder, "walk.litlens")
    project.chmod(0o444)
    folder.chmod(0o555)
    command = [sys.executable, "-c", "import sys; from litlens.cli import main; "
               f"sys.exit(main(['books', '-p', {str(project)!r}, '--json']))"]
    if os.geteuid() == 0:  # root writes through permissions: mount the folder read-only instead
        if not shutil.which("unshare"):
            pytest.skip("needs unshare to mount a read-only folder as root")
        command = ["unshare", "--mount", "--", "sh", "-c", f'mount --bind "{folder}" "{folder}" && '
                   f'mount -o remount,bind,ro "{folder}" && exec "$@"', "sh", *command]
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=120,
                              cwd=Path(__file__).resolve().parents[2])
    finally:
        folder.chmod(0o755)
        project.chmod(0o644)
    if "mount" in done.stderr and "permission denied" in done.stderr.lower():
        pytest.skip(f"cannot mount a read-only folder here: {done.stderr.strip()}")
    assert done.returncode == 0, done.stderr
    assert '"quotations": 3' in done.stdout
    assert sorted(p.name for p in folder.iterdir()) == ["walk.litlens"]
