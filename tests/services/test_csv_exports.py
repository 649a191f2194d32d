"""Every CSV LitLens writes about a book shows a formula-like cell as text in a spreadsheet."""

from __future__ import annotations

import csv
import shutil
import sqlite3
from pathlib import Path

import pytest

from litlens.services.books import export_characters_csv, export_quotations_csv, ingest_file
from litlens.services.csv_cells import unescape_cell
from litlens.services.retrieval import export_evidence, pin_evidence

NOVEL = '"Good morning, Mr. Darcy," said Elizabeth Bennet.\n\n"It is," said Mr. Darcy.\n\n"Where is Jane?" asked Mrs. Bennet.\n'
PREFIXES = ["=", "+", "-", "@", "\t", "\r"]
VALUE = "{}HYPERLINK(\"http://example.invalid\",\"x\")"


def assert_no_cell_runs(path: Path) -> list[dict]:
    """Every cell of the CSV a spreadsheet would read as a formula is a plain number; returns the rows."""
    with open(path, newline="", encoding="utf-8") as fh:
        rows = list(csv.reader(fh))
    for row in rows:
        for cell in row:
            if cell and cell[0] in "=+-@\t\r":
                float(cell)  # only a number may start like that (a negative score)
    return [dict(zip(rows[0], r)) for r in rows[1:]]


@pytest.fixture(scope="module")
def ingested(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("csv_exports")
    (folder / "novel.txt").write_text(NOVEL, encoding="utf-8")
    ingest_file(folder / "novel.litlens", folder / "novel.txt")
    return folder / "novel.litlens"


@pytest.fixture(params=PREFIXES, ids=["equals", "plus", "minus", "at", "tab", "cr"])
def crafted(request, ingested, tmp_path) -> tuple[Path, str]:
    """A copy whose first character, its aliases, and a quotation's speaker and cue start with the prefix."""
    project = tmp_path / "novel.litlens"
    shutil.copy(ingested, project)
    value = VALUE.format(request.param)
    conn = sqlite3.connect(project)
    try:
        conn.execute("UPDATE characters SET name = ?, aliases = json_array(?, 'plain') WHERE id = "
                     "(SELECT min(id) FROM characters)", (value, value))
        conn.execute("UPDATE quotations SET speaker = ?, referring_expression = ? WHERE id = "
                     "(SELECT min(id) FROM quotations)", (value, value))
        conn.commit()
    finally:
        conn.close()
    return project, value


def test_csv_exports_quotations_write_formula_cells_as_text(crafted, tmp_path):
    project, value = crafted
    out = tmp_path / "q.csv"
    export_quotations_csv(project, out)
    rows = assert_no_cell_runs(out)
    assert "'" + value in {r["speaker"] for r in rows}
    assert "'" + value in {r["referring_expression"] for r in rows}
    assert value in {unescape_cell(r["speaker"]) for r in rows}


def test_csv_exports_characters_write_formula_cells_as_text(crafted, tmp_path):
    project, value = crafted
    out = tmp_path / "c.csv"
    export_characters_csv(project, out)
    rows = assert_no_cell_runs(out)
    assert "'" + value in {r["name"] for r in rows}
    assert "'" + value + "; plain" in {r["aliases"] for r in rows}


@pytest.mark.parametrize("prefix", PREFIXES, ids=["equals", "plus", "minus", "at", "tab", "cr"])
def test_csv_exports_evidence_writes_formula_cells_as_text(ingested, tmp_path, prefix):
    project = tmp_path / "novel.litlens"
    shutil.copy(ingested, project)
    value = VALUE.format(prefix)
    claim = value.strip() if prefix.isspace() else value  # claim names are stripped; their text is kept
    pin_evidence(project, claim, 0, 20, claim_text=value, query=value, method="bm25", score=-1.5)
    out = tmp_path / "e.csv"
    export_evidence(project, out)
    rows = assert_no_cell_runs(out)
    assert rows[0]["claim_text"] == "'" + value and rows[0]["query"] == "'" + value
    assert rows[0]["score"] == "-1.5"  # a number stays a number


@pytest.mark.parametrize("value", ["'Tis true", "'=x", "''", "=1+2", "plain", "-"])
def test_csv_exports_cells_read_back_as_written(value):
    from litlens.services.csv_cells import safe_cell

    assert unescape_cell(safe_cell(value)) == value


def test_csv_exports_escaped_carriage_return_read_as_line_feed_loses_its_mark():
    from litlens.services.csv_cells import safe_cell

    written = safe_cell("\rnote")
    assert written == "'\rnote"
    assert unescape_cell(written.replace("\r", "\n")) == "\nnote"  # a reader that normalises line ends
    assert unescape_cell("'\\n literal") == "'\\n literal"  # a backslash is no line end
