"""The audit commands on a real PDNC novel with the packaged model: JSON shapes, storage, bad input."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from litlens.cli import main
from tests.conftest import require_shared

ITEM_KEYS = {"passage", "answer", "guess", "correct"}


@pytest.fixture(scope="module")
def daisy(tmp_path_factory: pytest.TempPathFactory) -> Path:
    pdnc = require_shared()
    from litlens.llm import packaged_model_path
    from litlens.services.books import import_pdnc

    try:
        packaged_model_path()
    except Exception as exc:  # noqa: BLE001
        pytest.skip(f"the packaged SmolLM2 model is not installed: {exc}")
    path = tmp_path_factory.mktemp("audit") / "dm.litlens"
    import_pdnc(path, pdnc / "DaisyMiller")
    return path


def run_json(args: list[str], capsys: pytest.CaptureFixture[str]) -> dict:
    assert main(args) == 0
    return json.loads(capsys.readouterr().out)


def test_audit_store_migration_makes_the_audits_table(tmp_path):
    from litlens.store.audits import list_audits, save_audit
    from litlens.store.project import open_project

    with open_project(tmp_path / "p.litlens") as project:
        columns = [r[1] for r in project.conn.execute("PRAGMA table_info(audits)")]
        assert columns == ["id", "book_id", "probe", "model", "settings", "result", "created_at"]
        save_audit(project, None, "mink", "m", {"k": 0.2}, {"min_k": -3.5})
        [record] = list_audits(project)
    assert (record.probe, record.model, record.settings, record.result) == ("mink", "m", {"k": 0.2}, {"min_k": -3.5})


def test_audit_name_cloze_prints_the_issue_json_and_stores_it(daisy, capsys):
    from litlens.services.audit import stored_audits

    result = run_json(["audit", "name-cloze", "-p", str(daisy), "--limit", "2", "--json"], capsys)
    assert set(result) == {"passages", "accuracy", "ci", "model", "items"}
    assert result["passages"] == 2 and result["model"] == "SmolLM2-135M-Instruct"
    assert 0.0 <= result["ci"][0] <= result["accuracy"] <= result["ci"][1] <= 1.0
    for item in result["items"]:
        assert set(item) == ITEM_KEYS and item["passage"].count("[MASK]") == 1
        assert item["correct"] == (item["guess"].casefold() == item["answer"].casefold() != "")
    [stored] = stored_audits(daisy, probe="name-cloze")
    assert stored.result == result and stored.settings["limit"] == 2 and stored.settings["eligible"] >= 2


def test_audit_csg_prints_the_issue_json(daisy, capsys):
    result = run_json(["audit", "csg", "-p", str(daisy), "--limit", "2", "--json"], capsys)
    assert set(result) == {"items", "followed_text", "followed_memory", "other", "model", "details"}
    assert result["items"] == 2
    assert result["followed_text"] + result["followed_memory"] + result["other"] == pytest.approx(1.0)
    for d in result["details"]:
        assert d["replacement"] in d["passage"] and d["followed"] in ("text", "memory", "other")


def test_audit_mink_per_chapter_beside_a_shuffled_control(daisy, tmp_path, capsys):
    result = run_json(["audit", "mink", "-p", str(daisy), "--chapter-tokens", "40", "--json"], capsys)
    assert result["method"] == "min-k" and result["k"] == 0.2
    assert [c["chapter"] for c in result["chapters"]] == [1, 2]  # PART I, PART II; the title page is too short
    assert result["tokens"] == sum(c["tokens"] for c in result["chapters"]) == 2 * 39
    assert result["control"]["kind"] == "shuffled" and result["control"]["tokens"] == result["tokens"]
    assert result["min_k"] < 0 and result["min_k_plus_plus"] is not None

    passage = tmp_path / "passage.txt"
    passage.write_text("A kettle sang in the back kitchen while the cook argued with the grocer's boy about plums.",
                       encoding="utf-8")
    loose = run_json(["audit", "mink", "--text", str(passage), "--json"], capsys)
    assert {"method", "k", "tokens", "min_k", "min_k_plus_plus", "model"} <= set(loose)


def test_audit_book_without_eligible_passages_is_one_line(tmp_path, capsys):
    from litlens.services.books import ingest_file

    novel = tmp_path / "plain.txt"
    novel.write_text("CHAPTER I.\n\n" + "It rained and the river rose over the fields. " * 30 + "\n", encoding="utf-8")
    project = tmp_path / "plain.litlens"
    with pytest.warns(Warning):
        ingest_file(project, novel)
    for probe in ("name-cloze", "csg"):
        assert main(["audit", probe, "-p", str(project)]) != 0
        err = capsys.readouterr().err.strip()
        assert err.count("\n") == 0 and "cannot run" in err, err
    shutil.rmtree(tmp_path, ignore_errors=True)


def test_audit_run_goes_on_past_a_probe_that_cannot_run(tmp_path):
    """The panel's run: a book without eligible passages gives each probe's reason, and Min-K% still runs."""
    from litlens.services.audit import audit_overview, run_audit
    from litlens.services.books import ingest_file

    novel = tmp_path / "plain.txt"
    novel.write_text("CHAPTER I.\n\n" + "It rained and the river rose over the fields. " * 30 + "\n", encoding="utf-8")
    project = tmp_path / "plain.litlens"
    with pytest.warns(Warning):
        ingest_file(project, novel)
    out = run_audit(project, probes=("name-cloze", "csg", "mink"), limit=2, chapter_tokens=20)
    assert set(out["errors"]) == {"name-cloze", "csg"} and set(out["results"]) == {"mink"}
    assert all("cannot run" in message and "\n" not in message for message in out["errors"].values())
    [book] = audit_overview(project)
    assert set(book.latest) == {"mink"} and book.memorised is None and book.verdict() == "not audited (run name cloze)"


def test_audit_notes_say_when_replies_are_not_names():
    from litlens.services.audit import notes

    def cloze_result(guesses):
        return {"items": [{"passage": "[MASK] ran", "answer": "Daisy", "guess": g, "correct": g == "Daisy"}
                          for g in guesses]}

    assert notes("name-cloze", cloze_result(["Daisy", "Randolph"])) == []
    [few] = notes("name-cloze", cloze_result(["Daisy", "", "Randolph"]))
    assert few.startswith("1 of 3 replies held no one-word proper name") and "larger" not in few
    [most] = notes("name-cloze", cloze_result(["", "", "Daisy"]))
    assert "not following the prompt" in most and "--model" in most
    details = [{"answer": a} for a in ("The speaker's name is not explicitly given", "Beatrix", "")]
    [csg_note] = notes("csg", {"items": 3, "details": details})
    assert csg_note.startswith("2 of 3 replies named nobody")
