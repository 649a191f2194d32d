from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from litlens.cli import build_parser, command_names, main

REPO = Path(__file__).resolve().parents[1]
NOVEL = """CHAPTER I.

"Good morning, Mr. Darcy," said Elizabeth. "Is it not a fine day?"

"It is," he replied.

"Then let us walk."

CHAPTER II.

Mr. Darcy and Elizabeth walked. Elizabeth smiled at Darcy; she was happy.
"""

EXPORT_KEYS = ["id", "source_id", "spans", "type", "referring_expression", "speaker", "speaker_confidence", "chapter"]


@pytest.fixture
def novel(tmp_path: Path) -> Path:
    path = tmp_path / "walk.txt"
    path.write_text(NOVEL, encoding="utf-8")
    return path


def test_cli_every_command_is_in_the_readme():
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    missing = [name for name in command_names() if f"litlens {name}" not in readme]
    assert not missing, f"commands missing from README.md: {missing}"


@pytest.mark.parametrize("name", command_names())
def test_cli_every_command_has_help_with_example(name, capsys):
    with pytest.raises(SystemExit) as exit_info:
        main([*name.split(), "--help"])
    assert exit_info.value.code == 0
    out = capsys.readouterr().out
    assert "example:" in out and f"litlens {name}" in out


def test_cli_ingest_list_and_export(novel, tmp_path, capsys):
    project = tmp_path / "walk.litlens"
    assert main(["ingest", str(novel), "-p", str(project)]) == 0
    assert "3 quotations" in capsys.readouterr().out

    assert main(["books", "-p", str(project), "--json"]) == 0
    books = json.loads(capsys.readouterr().out)
    assert [(b["id"], b["chapters"], b["quotations"]) for b in books] == [(1, 2, 3)]

    assert main(["quotes", "-p", str(project), "--json"]) == 0
    quotes = json.loads(capsys.readouterr().out)
    assert [q["type"] for q in quotes] == ["explicit", "anaphoric", "implicit"]
    assert quotes[0]["referring_expression"] == "said Elizabeth"
    first = quotes[0]["spans"]
    assert [NOVEL[s:e] for s, e in first] == ["Good morning, Mr. Darcy,", "Is it not a fine day?"]

    out = tmp_path / "q.jsonl"
    assert main(["export", "quotes", "-p", str(project), "-o", str(out)]) == 0
    assert "wrote 3 quotations" in capsys.readouterr().out
    rows = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert [list(r) for r in rows] == [EXPORT_KEYS] * 3
    assert rows[0]["chapter"] == 1 and rows[0]["source_id"] is None and isinstance(rows[0]["id"], str)

    assert main(["characters", "-p", str(project), "--json"]) == 0
    names = {c["name"] for c in json.loads(capsys.readouterr().out)}
    assert any("Darcy" in n for n in names) and any("Elizabeth" in n for n in names)

    assert main(["characters", "-p", str(project), "--suggest", "--json"]) == 0
    suggestions = json.loads(capsys.readouterr().out)
    assert isinstance(suggestions, list)
    assert all(set(s) == {"keep_id", "keep", "fold_id", "fold", "probability", "reason", "evidence"} for s in suggestions)
    assert main(["characters", "-p", str(project), "--suggest"]) == 0
    out = capsys.readouterr().out
    assert ("merge" in out and "into" in out) if suggestions else out.startswith("no suggestions")


# Mr. Darcy is named most, Elizabeth speaks most
TALKER = """CHAPTER I.

Mr. Darcy rode out. Mr. Darcy was proud, and Mr. Darcy was rich. Everyone looked at Mr. Darcy.

"Good morning," said Elizabeth. "It is a fine day."

"It is," said Elizabeth's mother.

"Let us walk," said Elizabeth.

"Yes," said Mr. Darcy.
"""


def test_cli_ingest_summary_lists_the_most_mentioned_by_mentions(tmp_path, capsys):
    path = tmp_path / "talker.txt"
    path.write_text(TALKER, encoding="utf-8")
    project = str(tmp_path / "t.litlens")
    assert main(["ingest", str(path), "-p", project]) == 0
    assert main(["attribute", "-p", project]) == 0
    capsys.readouterr()
    assert main(["ingest", str(path), "-p", project]) == 0  # reopened: the summary once speakers are known
    top = re.search(r"most mentioned: (.*)", capsys.readouterr().out).group(1)
    counts = [int(n) for n in re.findall(r", (\d+)\)", top)]
    assert top.startswith("Mr. Darcy") and counts == sorted(counts, reverse=True)


def test_cli_reingest_reopens_without_rerunning(novel, tmp_path, capsys, monkeypatch):
    project = tmp_path / "walk.litlens"
    assert main(["ingest", str(novel), "-p", str(project)]) == 0
    capsys.readouterr()

    def must_not_run(*args, **kwargs):
        raise AssertionError("the pipeline ran again on a stored book")

    monkeypatch.setattr("litlens.services.books.analyse", must_not_run)
    assert main(["ingest", str(novel), "-p", str(project)]) == 0
    assert "already in the project" in capsys.readouterr().out


@pytest.mark.parametrize(
    "content, pattern",
    [(b"", "empty"), (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" * 20, "binary")],
)
def test_cli_bad_input_prints_one_line_and_fails(content, pattern, tmp_path, capsys):
    bad = tmp_path / "bad.txt"
    bad.write_bytes(content)
    code = main(["ingest", str(bad), "-p", str(tmp_path / "p.litlens")])
    err = capsys.readouterr().err
    assert code != 0
    assert len(err.strip().splitlines()) == 1
    assert err.startswith("litlens: error: ") and str(bad) in err and re.search(pattern, err, re.I)


def test_cli_missing_project_is_one_line(tmp_path, capsys):
    assert main(["books", "-p", str(tmp_path / "none.litlens")]) != 0
    assert capsys.readouterr().err.startswith("litlens: error: ")


def test_cli_parser_builds():
    assert build_parser().prog == "litlens"


def test_table_collapses_line_breaks_and_cuts_long_cells_to_the_width(capsys):
    from litlens.cli.common import table

    table([[1, "said\nhis lady", "x" * 170], [2, "she cried", "short"]], ["id", "cue", "text"], width=60)
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 4  # header, rule, two rows: no row broken by a line break
    assert all(len(line) <= 60 for line in lines)
    assert "said his lady" in lines[2] and lines[2].endswith("…")


def test_cli_suggests_a_merge_the_dialogue_shows_and_says_why(tmp_path, capsys):
    from tests.quotes.test_dialogue_leads import SPOUSES

    path = tmp_path / "inn.txt"
    path.write_text("CHAPTER I.\n\n" + SPOUSES, encoding="utf-8")
    project = tmp_path / "inn.litlens"
    assert main(["ingest", str(path), "-p", str(project)]) == 0
    capsys.readouterr()
    assert main(["characters", "-p", str(project), "--suggest", "--json"]) == 0
    suggestions = json.loads(capsys.readouterr().out)
    family = [s for s in suggestions if s["reason"] == "family"]
    assert [(s["keep"], s["fold"]) for s in family] == [("Mrs. Hall", "Janet")]
    assert "Mr. Hall" in family[0]["evidence"]
    assert main(["characters", "-p", str(project), "--suggest"]) == 0
    assert "the one woman of the family" in capsys.readouterr().out
