"""Reading PDNC annotation files, and the errors a malformed file gives."""

from __future__ import annotations

from pathlib import Path

import pytest

from litlens.errors import DataFormatError, InputFileError
from litlens.quotes.pdnc import (
    collect_pdnc_characters,
    collect_pdnc_quotations,
    read_pdnc_characters,
    read_pdnc_quotations,
)

SAMPLE = Path(__file__).resolve().parents[1] / "fixtures" / "pdnc" / "PrideAndPrejudice"

QUOTE_HEADER = (
    '"quoteID","quoteText","subQuotationList","quoteByteSpans","speaker","addressees",'
    '"quoteType","referringExpression","mentionTextsList","mentionSpansList","mentionEntitiesList"\n'
)


def quote_row(qid="Q0", spans="[[5, 10]]", speaker="Jane", addressees="['Tom']", qtype="Explicit", ref="said Jane", text="hello"):
    return f'"{qid}","{text}","[]","{spans}","{speaker}","{addressees}","{qtype}","{ref}","[]","[]","[]"\n'


def write(tmp_path: Path, name: str, content: str) -> Path:
    path = tmp_path / name
    path.write_text(content, encoding="utf-8")
    return path


# --------------------------------------------------------------------------- quotations


def test_read_pdnc_quotations_fields(tmp_path):
    path = write(
        tmp_path,
        "quotation_info.csv",
        QUOTE_HEADER
        + quote_row()
        + quote_row("Q1", "[[40, 50], [20, 30]]", "Tom", "[]", "Anaphoric", "he said")
        + quote_row("Q2", "[[60, 70]]", "Jane", "['Tom', 'Ann']", "Implicit", "nan"),
    )
    q0, q1, q2 = read_pdnc_quotations(path)
    assert q0.spans == [(5, 10)] and q0.type == "explicit" and q0.referring_expression == "said Jane"
    assert q0.speaker == "Jane" and q0.addressees == ["Tom"] and q0.source_id == "Q0" and q0.origin == "gold"
    assert q1.spans == [(20, 30), (40, 50)]  # sorted
    assert q1.type == "anaphoric" and q1.addressees == []
    assert q2.type == "implicit" and q2.referring_expression is None and q2.addressees == ["Tom", "Ann"]


@pytest.mark.parametrize("raw_type", ["nan", ""])
def test_read_pdnc_quotations_missing_type(tmp_path, raw_type):
    path = write(tmp_path, "q.csv", QUOTE_HEADER + quote_row(qtype=raw_type, ref="said Bear") + quote_row("Q1", qtype=raw_type, ref=""))
    inferred = read_pdnc_quotations(path)
    assert [q.type for q in inferred] == ["explicit", "implicit"]  # from the referring expression
    assert [q.type for q in read_pdnc_quotations(path, untyped="none")] == [None, None]


def test_read_pdnc_quotations_multiline_fields_keep_physical_line_numbers(tmp_path):
    multiline = '"Q1","first line\nsecond line\nthird line","[]","[[1, 5]]","Jane","[]","Implicit","nan","[]","[]","[]"\n'
    bad = quote_row("Q2", spans="[[9, 3]]")
    path = write(tmp_path, "q.csv", QUOTE_HEADER + quote_row() + multiline + bad)
    with pytest.raises(DataFormatError) as info:
        read_pdnc_quotations(path)
    # header line 1, Q0 line 2, Q1 lines 3-5, Q2 line 6
    assert info.value.line == 6
    assert str(info.value).startswith(f"{path}:6: ")
    assert "[9, 3]" in str(info.value) and "start < end" in str(info.value)


@pytest.mark.parametrize(
    "row, words",
    [
        (quote_row(spans="[5, 10]"), "not a [start, end] pair"),
        (quote_row(spans="[[5, 10"), "not a Python literal"),
        (quote_row(spans="[]"), "non-empty list"),
        (quote_row(qtype="Shouted"), "quoteType is 'Shouted'"),
        (quote_row(addressees="Tom and Ann"), "addressees is not a Python list"),
        (quote_row(addressees="[1, 2]"), "not a quoted string"),
        (quote_row(qid=""), "quoteID is empty"),
        ('"Q0","too","few"\n', "3 fields but the header has 11"),
    ],
)
def test_read_pdnc_quotations_bad_rows_name_line_problem_and_fix(tmp_path, row, words):
    path = write(tmp_path, "q.csv", QUOTE_HEADER + quote_row("Q9") + row)
    with pytest.raises(DataFormatError) as info:
        read_pdnc_quotations(path)
    message = str(info.value)
    assert info.value.line == 3 and f"{path}:3:" in message
    assert words in message
    assert ". " in message.split(": ", 1)[1]  # a fix follows the problem


def test_read_pdnc_quotations_duplicate_ids(tmp_path):
    path = write(tmp_path, "q.csv", QUOTE_HEADER + quote_row("Q1") + quote_row("Q1"))
    with pytest.raises(DataFormatError, match="already appears on line 2") as info:
        read_pdnc_quotations(path)
    assert info.value.line == 3


def test_read_pdnc_quotations_missing_column(tmp_path):
    path = write(tmp_path, "q.csv", '"quoteID","quoteByteSpans","speaker"\n"Q0","[[1, 2]]","Jane"\n')
    with pytest.raises(DataFormatError) as info:
        read_pdnc_quotations(path)
    assert info.value.line == 1
    assert "addressees" in str(info.value) and "quoteType" in str(info.value) and "referringExpression" in str(info.value)


def test_read_pdnc_quotations_empty_and_absent_files(tmp_path):
    with pytest.raises(DataFormatError, match="empty"):
        read_pdnc_quotations(write(tmp_path, "q.csv", ""))
    with pytest.raises(InputFileError, match="no such file"):
        read_pdnc_quotations(tmp_path / "absent.csv")


def test_collect_pdnc_quotations_reports_every_bad_row(tmp_path):
    path = write(
        tmp_path,
        "q.csv",
        QUOTE_HEADER + quote_row("Q0") + quote_row("Q1", spans="oops") + quote_row("Q2") + quote_row("Q3", qtype="Loud"),
    )
    quotations, errors = collect_pdnc_quotations(path)
    assert [q.source_id for q in quotations] == ["Q0", "Q2"]
    assert [e.line for e in errors] == [3, 5]


def test_read_pdnc_quotations_blank_lines_are_skipped(tmp_path):
    path = write(tmp_path, "q.csv", QUOTE_HEADER + quote_row("Q0") + "\n" + quote_row("Q1"))
    assert [q.source_id for q in read_pdnc_quotations(path)] == ["Q0", "Q1"]


def test_read_pdnc_quotations_shipped_sample():
    quotations = read_pdnc_quotations(SAMPLE / "quotation_info.csv")
    text = (SAMPLE / "novel_text.txt").read_text(encoding="utf-8")
    assert len(quotations) == 1270
    first = quotations[0]
    assert first.source_id == "Q0" and first.speaker == "Mrs. Bennet" and first.type == "anaphoric"
    assert text[first.spans[0][0] : first.spans[0][1]] == "My dear Mr. Bennet,"


# --------------------------------------------------------------------------- characters

CHAR_HEADER = "Character ID,Main Name,Aliases,Gender,Category\n"


def test_read_pdnc_characters_fields(tmp_path):
    path = write(
        tmp_path,
        "character_info.csv",
        CHAR_HEADER
        + "0,Charlotte Lucas,\"{'Mrs. Collins', 'Charlotte', 'Charlotte Lucas'}\",F,intermediate\n"
        + "1,Colonel Forster,['Colonel Forster'],X,minor\n"
        + "2,Mr. Darcy,\"['Darcy', 'Fitzwilliam Darcy']\",M,MAJOR\n"
        + "3,The Cat,\"{'The Cat', 'Cheshire Cat'}\",U,minor\n"
        + "4,Pat,{'Pat'},NB,\n",
    )
    chars = read_pdnc_characters(path)
    assert [c.name for c in chars] == ["Charlotte Lucas", "Colonel Forster", "Mr. Darcy", "The Cat", "Pat"]
    assert chars[0].aliases == ["Charlotte Lucas", "Mrs. Collins", "Charlotte"]  # main name first, file order
    assert [c.gender for c in chars] == ["female", "unknown", "male", "unknown", "nonbinary"]
    assert [c.category for c in chars] == ["intermediate", "minor", "major", "minor", None]
    assert [c.source_id for c in chars] == ["0", "1", "2", "3", "4"]


@pytest.mark.parametrize(
    "row, words",
    [
        ("5,,{'X'},M,minor\n", "Main Name is empty"),
        ("5,Tom,\"{'Tom', 3}\",M,minor\n", "not a quoted string"),
        ("5,Tom,Tom Jones,M,minor\n", "Aliases is not a Python list or set literal"),
        ("5,Tom,{'Tom'},M\n", "4 fields but the header has 5"),
    ],
)
def test_read_pdnc_characters_bad_rows(tmp_path, row, words):
    path = write(tmp_path, "c.csv", CHAR_HEADER + "0,Jane,{'Jane'},F,major\n" + row)
    with pytest.raises(DataFormatError) as info:
        read_pdnc_characters(path)
    assert info.value.line == 3 and words in str(info.value)


def test_read_pdnc_characters_multiline_alias_field_and_line_numbers(tmp_path):
    path = write(
        tmp_path,
        "c.csv",
        CHAR_HEADER + "0,Jane,\"{'Jane',\n'Miss Bennet'}\",F,major\n" + "0,Jane,{'Jane'},F,major\n",
    )
    characters, errors = collect_pdnc_characters(path)
    assert characters[0].aliases == ["Jane", "Miss Bennet"]
    assert [e.line for e in errors] == [4]  # the two-line row 0 starts on line 2
    assert "Character ID '0' already appears on line 2" in errors[0].problem


def test_read_pdnc_characters_missing_column(tmp_path):
    path = write(tmp_path, "c.csv", "Character ID,Main Name,Gender\n0,Jane,F\n")
    with pytest.raises(DataFormatError, match="Aliases, Category"):
        read_pdnc_characters(path)


def test_read_pdnc_characters_shipped_sample():
    characters = read_pdnc_characters(SAMPLE / "character_info.csv")
    assert len(characters) == 74
    by_name = {c.name: c for c in characters}
    assert by_name["Charlotte Lucas"].gender == "female"
    assert "Mrs. Collins" in by_name["Charlotte Lucas"].aliases
    assert by_name["Charlotte Lucas"].aliases[0] == "Charlotte Lucas"
