"""File ▸ Export writes the same files as the CLI's exports, through the services (issue 36)."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest
from PySide6.QtWidgets import QFileDialog

from litlens.services.csv_cells import safe_cell, unescape_cell


def _open(window, qtbot, project: Path) -> None:
    with qtbot.waitSignal(window.book_opened, timeout=10000):
        assert window.open_project(project)


def _export(window, qtbot, monkeypatch, kind: str, path: Path) -> list:
    monkeypatch.setattr(QFileDialog, "getSaveFileName", staticmethod(lambda *args, **kwargs: (str(path), "")))
    with qtbot.waitSignal(window.exporter.done, timeout=60000) as done:
        window.export_actions[kind].trigger()
    return done.args


def _rows(path: Path) -> list[dict]:
    with open(path, newline="", encoding="utf-8") as fh:
        return list(csv.DictReader(fh))


def test_export_menu_lists_every_export(window):
    file_menu = next(a.menu() for a in window.menuBar().actions() if a.text() == "&File")
    export = next(a.menu() for a in file_menu.actions() if a.text() == "&Export")
    assert [a.text() for a in export.actions()] == [
        "&Quotations (JSON lines)…", "Quotations (&CSV)…", "C&haracters (CSV)…", "&Evidence (CSV)…",
        "Evidence (&Markdown)…", "Study &judgments (CSV)…", "Book as &TEI P5 (XML)…", "Book as &PDNC folder…"]


def test_export_quotations_jsonl_is_the_cli_export(window, qtbot, monkeypatch, gold_project, tmp_path):
    from litlens.services.books import export_quotations

    _open(window, qtbot, gold_project)
    out = tmp_path / "gui.jsonl"
    kind, path, count = _export(window, qtbot, monkeypatch, "quotations-jsonl", out)
    assert (kind, path, count) == ("quotations-jsonl", str(out), 1270)
    cli = tmp_path / "cli.jsonl"
    export_quotations(gold_project, cli)
    assert out.read_text(encoding="utf-8") == cli.read_text(encoding="utf-8")
    assert "Exported 1,270 quotations" in window.statusBar().currentMessage()


def test_export_quotations_and_characters_csv(window, qtbot, monkeypatch, fresh_gold, tmp_path):
    _open(window, qtbot, fresh_gold)
    elizabeth = next(r for r in window.state.session.characters if r.character.name == "Elizabeth")
    assert window.state.edit("rename_character", elizabeth.id, "=Lizzy+1")  # a name a spreadsheet would run
    quotes = tmp_path / "q.csv"
    _export(window, qtbot, monkeypatch, "quotations-csv", quotes)
    rows = _rows(quotes)
    assert len(rows) == 1270
    first = window.state.session.quotes[0]
    assert rows[0]["type"] == first.quotation.type and json.loads(rows[0]["spans"])[0][0] == first.start
    assert {r["speaker"] for r in rows} >= {"'=Lizzy+1", "Mr. Darcy"}
    assert "=Lizzy+1" not in {r["speaker"] for r in rows}
    characters = tmp_path / "c.csv"
    _export(window, qtbot, monkeypatch, "characters-csv", characters)
    rows = _rows(characters)
    assert len(rows) == len(window.state.session.characters)
    lizzy = next(r for r in rows if r["name"] == "'=Lizzy+1")
    assert int(lizzy["quotations"]) > 300 and "Lizzy" in lizzy["aliases"]


def test_export_evidence_csv_and_markdown(window, qtbot, monkeypatch, fresh_gold, tmp_path):
    from litlens.services.retrieval import pin_evidence

    pin_evidence(fresh_gold, "pride", 100, 260, claim_text="-Darcy is proud")
    _open(window, qtbot, fresh_gold)
    _, _, count = _export(window, qtbot, monkeypatch, "evidence-csv", tmp_path / "e.csv")
    row = _rows(tmp_path / "e.csv")[0]
    assert count == 1 and row["claim"] == "pride" and row["claim_text"] == "'-Darcy is proud"
    _, _, count = _export(window, qtbot, monkeypatch, "evidence-md", tmp_path / "e.md")
    text = (tmp_path / "e.md").read_text(encoding="utf-8")
    assert count == 1 and "## pride" in text and "*-Darcy is proud*" in text


def test_export_study_judgments(window, qtbot, monkeypatch, fresh_gold, tmp_path):
    from litlens.services.studies import AnnotationSession, assign, create_proxy_study
    from tests.studies.conftest import BEIR_MINI

    create_proxy_study(fresh_gold, beir=BEIR_MINI, distractors="bm25", per_item=3, name="proxy")
    assign(fresh_gold, "proxy", ["A", "B"], overlap=2)
    for name in "AB":
        session = AnnotationSession.open(fresh_gold, "proxy", name)
        session.answer(0, 2, note="=looks like a formula" if name == "A" else "")
        session.close()
    _open(window, qtbot, fresh_gold)
    out = tmp_path / "judgments.csv"
    _, _, count = _export(window, qtbot, monkeypatch, "judgments-csv", out)
    rows = _rows(out)
    assert count == 2 and {r["annotator"] for r in rows} == {"A", "B"} and {r["label"] for r in rows} == {"2"}
    assert {r["note"] for r in rows} == {"'=looks like a formula", ""}  # a note a spreadsheet would run is text
    assert (tmp_path / "agreement.json").is_file()


def test_export_without_a_book_says_so(window, qtbot):
    with qtbot.waitSignal(window.error_shown, timeout=5000) as shown:
        window.export_actions["quotations-csv"].trigger()
    assert "Open a book first" in shown.args[0]


@pytest.mark.parametrize("value, cell", [("=SUM(A1)", "'=SUM(A1)"), ("+1", "'+1"), ("-x", "'-x"), ("@a", "'@a"),
                                         ("\tx", "'\tx"), ("\rx", "'\rx"), ("plain", "plain"), (-3, -3), (None, "")])
def test_csv_cells_that_a_spreadsheet_would_run_are_text(value, cell):
    assert safe_cell(value) == cell
    if isinstance(value, str):
        assert unescape_cell(safe_cell(value)) == value
