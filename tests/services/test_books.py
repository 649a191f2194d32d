"""Use cases on books: ingest, PDNC import, export — and every kind of bad input."""

from __future__ import annotations

import json
import shutil
import zipfile
from pathlib import Path

import pytest

from litlens.errors import (
    BinaryInputError,
    Cancelled,
    DataFormatError,
    EmptyInputError,
    EncodingDetectionError,
    EpubError,
    InputTooLargeError,
    NoQuotationsWarning,
    NotAProjectError,
)
from litlens.services.books import export_quotations, import_pdnc, ingest_file, list_characters, list_quotations
from litlens.store.project import open_project

from ..conftest import SAMPLE_PDNC


def _books(project: Path) -> list:
    with open_project(project) as p:
        return p.books()


@pytest.fixture(scope="module")
def sample_project(tmp_path_factory) -> Path:
    """The gold PDNC Pride and Prejudice imported once for this module."""
    project = tmp_path_factory.mktemp("pdnc") / "pp.litlens"
    import_pdnc(project, SAMPLE_PDNC)
    return project


def test_import_pdnc_keeps_gold_ids_spans_and_characters(sample_project):
    quotes = list_quotations(sample_project)
    assert len(quotes) == 1270
    first = quotes[0]
    assert first["source_id"] == "Q0"
    assert first["spans"] == [[395, 414], [447, 499]]
    assert first["type"] == "anaphoric" and first["speaker"] == "Mrs. Bennet"
    assert first["chapter"] == 1
    characters = {c["name"]: c for c in list_characters(sample_project)}
    assert characters["Elizabeth"]["gender"] == "female"
    assert characters["Elizabeth"]["quotations"] > 300
    assert characters["Elizabeth"]["mentions"] > 300


def test_export_matches_the_documented_format(sample_project, tmp_path):
    out = tmp_path / "pp.jsonl"
    n = export_quotations(sample_project, out)
    rows = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert n == len(rows) == 1270
    assert set(rows[0]) == {"id", "source_id", "spans", "type", "referring_expression", "speaker",
                            "speaker_confidence", "chapter"}
    text = (SAMPLE_PDNC / "novel_text.txt").read_text(encoding="utf-8")
    assert text[rows[0]["spans"][0][0]:rows[0]["spans"][0][1]] == "My dear Mr. Bennet,"


def test_import_pdnc_reports_bad_rows_with_line_numbers_and_stores_nothing(tmp_path):
    novel = tmp_path / "Broken"
    shutil.copytree(SAMPLE_PDNC, novel)
    csv_path = novel / "quotation_info.csv"
    lines = csv_path.read_text(encoding="utf-8").split("\n")
    lines[2] = lines[2].replace('"[[395, 414], [447, 499]]"', '"[[395, oops"')
    csv_path.write_text("\n".join(lines), encoding="utf-8")
    project = tmp_path / "p.litlens"
    with pytest.raises(DataFormatError, match=r"quotation_info\.csv:2\b"):
        import_pdnc(project, novel)
    assert not project.exists() or _books(project) == []


def test_ingest_novel_without_quotations_warns_and_stores(tmp_path):
    novel = tmp_path / "quiet.txt"
    novel.write_text("CHAPTER I.\n\nNobody spoke. The rain fell on Mr. Smith's garden.\n", encoding="utf-8")
    with pytest.warns(NoQuotationsWarning, match="no quotations"):
        result = ingest_file(tmp_path / "p.litlens", novel)
    assert result.book.quotations == 0 and result.book.chapters == 1


@pytest.mark.parametrize(
    "name, content, error",
    [
        ("empty.txt", b"", EmptyInputError),
        ("blank.txt", b"  \n\n \t\n", EmptyInputError),
        ("image.txt", b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 8, BinaryInputError),
        ("garbled.txt", bytes([0x81, 0x8D, 0x8F, 0x90, 0x9D]) * 400, EncodingDetectionError),
        ("broken.epub", b"PK\x03\x04 this zip stops here", EpubError),
    ],
)
def test_ingest_bad_input_raises_typed_error_and_keeps_project(name, content, error, tmp_path):
    project = tmp_path / "p.litlens"
    good = tmp_path / "good.txt"
    good.write_text('"Hello," said Anne.\n', encoding="utf-8")
    ingest_file(project, good)
    bad = tmp_path / name
    bad.write_bytes(content)
    with pytest.raises(error) as info:
        ingest_file(project, bad)
    assert str(bad) in str(info.value)
    assert [b.source_path for b in _books(project)] == [str(good)]


def test_ingest_truncated_real_epub_is_refused(tmp_path):
    epub = pytest.importorskip("ebooklib.epub")
    book = epub.EpubBook()
    book.set_identifier("id1")
    book.set_title("Tiny")
    book.set_language("en")
    chapter = epub.EpubHtml(title="One", file_name="one.xhtml", content="<h1>Chapter 1</h1><p>\"Hi,\" said Anne.</p>")
    book.add_item(chapter)
    book.spine = [chapter]
    book.add_item(epub.EpubNcx())
    book.add_item(epub.EpubNav())
    path = tmp_path / "tiny.epub"
    epub.write_epub(str(path), book)
    assert zipfile.is_zipfile(path)
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])
    with pytest.raises(EpubError):
        ingest_file(tmp_path / "p.litlens", path)


def test_ingest_huge_file_is_refused_before_reading(tmp_path):
    huge = tmp_path / "huge.txt"
    with open(huge, "wb") as fh:
        fh.truncate(200 * 1024 * 1024)  # sparse: 200 MB on paper, nothing on disk
    with pytest.raises(InputTooLargeError, match="MB"):
        ingest_file(tmp_path / "p.litlens", huge)


def test_ingest_into_a_file_that_is_not_a_project(tmp_path):
    notes = tmp_path / "notes.litlens"
    notes.write_text("my notes")
    good = tmp_path / "good.txt"
    good.write_text('"Hello," said Anne.\n', encoding="utf-8")
    with pytest.raises(NotAProjectError):
        ingest_file(notes, good)
    assert notes.read_text() == "my notes"


def test_ingest_cancelled_stores_nothing(tmp_path):
    project = tmp_path / "p.litlens"
    good = tmp_path / "good.txt"
    good.write_text('CHAPTER I.\n\n"Hello," said Anne.\n\n"Hi," said Tom.\n', encoding="utf-8")
    with pytest.raises(Cancelled):
        ingest_file(project, good, cancelled=lambda: True)
    assert not project.exists() or _books(project) == []


def test_ingest_reports_progress_up_to_one(tmp_path):
    good = tmp_path / "good.txt"
    good.write_text('CHAPTER I.\n\n"Hello," said Anne.\n', encoding="utf-8")
    seen: list[float] = []
    ingest_file(tmp_path / "p.litlens", good, progress=lambda f, m: seen.append(f))
    assert seen and seen[-1] == 1.0 and all(0.0 <= f <= 1.0 for f in seen)
    assert seen == sorted(seen)


def test_front_matter_is_not_counted_as_a_chapter(tmp_path):
    novel = tmp_path / "emma.txt"
    novel.write_text('EMMA\n\nBy Jane Austen\n\n\nCHAPTER I\n\n"Poor Miss Taylor!" said Emma.\n\n'
                     'CHAPTER II\n\n"Indeed," said Mr. Knightley.\n', encoding="utf-8")
    result = ingest_file(tmp_path / "p.litlens", novel)
    assert (result.book.title, result.book.author) == ("Emma", "Jane Austen")
    assert result.book.chapters == 2  # the title page before CHAPTER I is front matter, not a chapter
