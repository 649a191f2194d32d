"""PDNC export: ``import-pdnc`` of the export gives back the same quotations, types, speakers and characters."""

from __future__ import annotations

import ast
import csv

import pytest

from litlens.cli import main
from litlens.quotes.pdnc import read_pdnc_characters, read_pdnc_quotations
from litlens.services.books import import_pdnc
from litlens.services.export_formats import export_pdnc
from litlens.store.project import open_project
from tests.conftest import SAMPLE_PDNC, require_shared
from tests.export.conftest import make_project


def _quotations(project):
    with open_project(project, readonly=True) as p:
        return sorted((tuple(q.spans), q.type, q.speaker, tuple(q.addressees), q.referring_expression, q.source_id)
                      for _, q in p.quotations(1))


def _characters(project):
    with open_project(project, readonly=True) as p:
        return sorted((c.name, tuple(c.aliases), c.gender, c.category, c.source_id) for _, c in p.characters(1))


def _round_trip(project, tmp_path):
    out = tmp_path / "export" / "Novel"
    export_pdnc(project, out)
    back = tmp_path / "back.litlens"
    import_pdnc(back, out)
    return out, back


def test_pdnc_round_trip_of_the_shipped_fixture(pp_project, tmp_path):
    out, back = _round_trip(pp_project, tmp_path)
    assert _quotations(back) == _quotations(pp_project)
    assert _characters(back) == _characters(pp_project)
    assert (out / "novel_text.txt").read_bytes() == (SAMPLE_PDNC / "novel_text.txt").read_bytes()
    # PDNC's own layout: the same header, CRLF row ends, the same leading columns row for row.
    ours = (out / "quotation_info.csv").read_bytes()
    gold = (SAMPLE_PDNC / "quotation_info.csv").read_bytes()
    assert ours.split(b"\r\n", 1)[0] == gold.split(b"\r\n", 1)[0]
    with open(out / "quotation_info.csv", newline="", encoding="utf-8") as a, \
            open(SAMPLE_PDNC / "quotation_info.csv", newline="", encoding="utf-8") as b:
        ours_dicts, gold_dicts = list(csv.DictReader(a)), list(csv.DictReader(b))
    keys = ["quoteID", "quoteByteSpans", "speaker", "addressees", "quoteType", "referringExpression"]
    ours_rows = sorted(([r[k] for k in keys] for r in ours_dicts), key=lambda r: int(r[0][1:]))
    gold_rows = sorted(([r[k] for k in keys] for r in gold_dicts), key=lambda r: int(r[0][1:]))
    assert ours_rows == gold_rows
    # quoteText is the sub-quotations joined by a space; ours are cut from the text at the spans
    # (a handful of PDNC's own rows carry text that differs from their spans).
    text = (out / "novel_text.txt").read_text(encoding="utf-8")
    same = 0
    for ours_row, gold_row in zip(sorted(ours_dicts, key=lambda r: r["quoteID"]), sorted(gold_dicts, key=lambda r: r["quoteID"])):
        pieces = [text[s:e] for s, e in ast.literal_eval(ours_row["quoteByteSpans"])]
        assert ast.literal_eval(ours_row["subQuotationList"]) == pieces
        assert ours_row["quoteText"] == " ".join(pieces)
        same += ours_row["quoteText"] == gold_row["quoteText"]
    assert same >= 0.98 * len(gold_dicts)
    assert read_pdnc_characters(out / "character_info.csv")[0].source_id == "0"


def test_pdnc_round_trip_of_a_detected_book_gives_new_ids(tmp_path):
    project = make_project(tmp_path / "p.litlens")
    out, back = _round_trip(project, tmp_path)
    quotes = read_pdnc_quotations(out / "quotation_info.csv")
    assert [q.source_id for q in quotes] == ["Q0", "Q1"]
    assert [q.speaker for q in quotes] == ["Anne", "Dr. O'Neil (the 2nd)"]
    assert [(s, t, sp, a, r) for s, t, sp, a, r, _ in _quotations(back)] == \
        [(s, t, sp, a, r) for s, t, sp, a, r, _ in _quotations(project)]
    chars = read_pdnc_characters(out / "character_info.csv")
    assert sorted(c.source_id for c in chars) == ["0", "1", "2", "3", "4"]
    assert [(n, a, g) for n, a, g, _, _ in _characters(back)] == [(n, a, g) for n, a, g, _, _ in _characters(project)]
    rows = list(csv.reader(open(out / "character_info.csv", newline="", encoding="utf-8")))
    assert rows[0] == ["Character ID", "Main Name", "Aliases", "Gender", "Category"]
    assert {r[3] for r in rows[1:]} == {"F", "M", "X"} and {r[4] for r in rows[1:]} == {"nan"}


def test_pdnc_book_without_quotations_exports_a_header_only(tmp_path):
    project = make_project(tmp_path / "p.litlens", quotations=[], characters=[])
    out = tmp_path / "x"
    summary = export_pdnc(project, out)
    assert summary.quotations == 0
    assert (out / "quotation_info.csv").read_text(encoding="utf-8").count("\n") == 1
    assert read_pdnc_quotations(out / "quotation_info.csv") == []


def test_pdnc_output_that_is_a_file_is_one_line(tmp_path, capsys):
    project = make_project(tmp_path / "p.litlens")
    target = tmp_path / "taken"
    target.write_text("x", encoding="utf-8")
    assert main(["export", "pdnc", "-p", str(project), "-o", str(target)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("litlens: error:") and err.count("\n") == 1 and "is a file" in err


@pytest.mark.parametrize("target", ["/proc/litlens-export", "/proc/self/litlens-export"])
def test_pdnc_unwritable_output_folder_is_one_line(tmp_path, capsys, target):
    """/proc refuses new folders and files even to root, like a folder the user may not write."""
    project = make_project(tmp_path / "p.litlens")
    assert main(["export", "pdnc", "-p", str(project), "-o", target]) == 2
    err = capsys.readouterr().err
    assert err.startswith("litlens: error:") and err.count("\n") == 1 and "Choose a location you can write to" in err


def test_pdnc_cli_writes_three_files(tmp_path, capsys):
    project = make_project(tmp_path / "p.litlens")
    assert main(["export", "pdnc", "-p", str(project), "-o", str(tmp_path / "out")]) == 0
    assert "2 quotations, 5 characters" in capsys.readouterr().out
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["character_info.csv", "novel_text.txt", "quotation_info.csv"]


@pytest.mark.parametrize("novel", ["DaisyMiller", "WinnieThePooh"])
def test_pdnc_round_trip_of_real_novels(novel, tmp_path):
    pdnc = require_shared()
    project = tmp_path / "n.litlens"
    import_pdnc(project, pdnc / novel)
    out, back = _round_trip(project, tmp_path)
    assert _quotations(back) == _quotations(project)
    assert _characters(back) == _characters(project)
    assert (out / "novel_text.txt").read_bytes() == (pdnc / novel / "novel_text.txt").read_bytes()
