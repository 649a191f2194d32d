from __future__ import annotations

import zipfile
from pathlib import Path

import pytest

from litlens.errors import (
    BinaryInputError,
    EmptyInputError,
    EncodingDetectionError,
    EpubError,
    InputFileError,
    InputTooLargeError,
)
from litlens.text.ingest import read_book
from tests.text.conftest import PRIDE, require_pdnc

NARRATIVE = "\u201cWell,\u201d said she, \u201cthe caf\u00e9 is na\u00efve\u2014I think.\u201d\n\nHe nodded.\n"


def _write(tmp_path: Path, name: str, data: bytes | str) -> Path:
    path = tmp_path / name
    if isinstance(data, str):
        path.write_text(data, encoding="utf-8", newline="")
    else:
        path.write_bytes(data)
    return path


# ------------------------------------------------------------------ encodings


def test_ingest_utf8_txt_is_stored_exactly(tmp_path):
    path = _write(tmp_path, "novel.txt", "CHAPTER I.\n\n" + NARRATIVE + "\n\n\n  indented line  \n")
    book = read_book(path)
    with open(path, encoding="utf-8") as handle:
        assert book.text == handle.read()
    assert (book.format, book.encoding, book.notes) == ("txt", "utf-8", ())
    assert book.source_path == str(path)


def test_ingest_pdnc_novel_offsets_are_file_offsets():
    require_pdnc()
    book = read_book(PRIDE)
    with open(PRIDE, encoding="utf-8") as handle:
        assert book.text == handle.read()
    assert book.format == "txt"


def test_ingest_strips_utf8_bom(tmp_path):
    path = _write(tmp_path, "bom.txt", b"\xef\xbb\xbf" + NARRATIVE.encode("utf-8"))
    book = read_book(path)
    assert book.text == NARRATIVE
    assert book.encoding == "utf-8-sig"
    assert any("byte-order mark" in note for note in book.notes)


def test_ingest_decodes_utf16_with_bom(tmp_path):
    path = _write(tmp_path, "wide.txt", NARRATIVE.encode("utf-16"))
    book = read_book(path)
    assert book.text == NARRATIVE
    assert book.encoding == "utf-16"


def test_ingest_detects_cp1252(tmp_path):
    text = ("It was a long tale. " * 40 + "\n\n") + NARRATIVE
    path = _write(tmp_path, "windows.txt", text.encode("cp1252"))
    book = read_book(path)
    assert book.text == text
    assert book.encoding == "cp1252"
    assert "decoded as cp1252" in book.notes


def test_ingest_reads_stray_cp1252_bytes_in_utf8(tmp_path):
    data = NARRATIVE.encode("utf-8") + "A \u201cquoted\u201d word.\n".encode("cp1252")
    book = read_book(_write(tmp_path, "mixed.txt", data))
    assert book.text == NARRATIVE + "A \u201cquoted\u201d word.\n"
    assert book.encoding == "utf-8"
    assert any("cp1252" in note for note in book.notes)


@pytest.mark.parametrize(
    ("raw", "note"),
    [(b"One.\r\n\r\nTwo.\r\n", "CRLF"), (b"One.\r\rTwo.\r", "CR line ends")],
)
def test_ingest_normalises_line_ends(tmp_path, raw, note):
    book = read_book(_write(tmp_path, "lines.txt", raw))
    assert book.text == "One.\n\nTwo.\n"
    assert any(note in n for n in book.notes)


def test_ingest_short_cp1252_file(tmp_path):
    book = read_book(_write(tmp_path, "short.txt", "caf\u00e9 na\u00efve".encode("cp1252")))
    assert (book.text, book.encoding) == ("caf\u00e9 na\u00efve", "cp1252")


def test_ingest_detects_non_western_legacy_encoding(tmp_path):
    text = "Привет, как дела? Я читаю роман о войне и мире.\n" * 5
    book = read_book(_write(tmp_path, "russian.txt", text.encode("cp1251")))
    assert book.text == text
    assert book.encoding == "cp1251"


@pytest.mark.parametrize(
    "data", [bytes(range(0x80, 0x100)) * 4, bytes([0x81, 0x8D, 0x8F, 0x90, 0x9D]) * 400]
)
def test_ingest_undetectable_encoding_raises(tmp_path, data):
    path = _write(tmp_path, "odd.txt", data)
    with pytest.raises(EncodingDetectionError) as err:
        read_book(path)
    assert str(path) in str(err.value)
    assert "UTF-8" in str(err.value)


# ---------------------------------------------------------------------- errors


def test_ingest_missing_file_raises(tmp_path):
    path = tmp_path / "nowhere.txt"
    with pytest.raises(InputFileError) as err:
        read_book(path)
    assert str(path) in str(err.value)
    assert "no such file" in str(err.value)


@pytest.mark.parametrize("name", ["novel.pdf", "novel.docx", "novel.mobi"])
def test_ingest_unsupported_extension_raises(tmp_path, name):
    path = _write(tmp_path, name, b"something")
    with pytest.raises(InputFileError) as err:
        read_book(path)
    assert type(err.value) is InputFileError
    assert ".epub" in str(err.value) and name in str(err.value)


@pytest.mark.parametrize("content", [b"", b"   \n\n\t  \r\n"])
def test_ingest_empty_or_blank_file_raises(tmp_path, content):
    path = _write(tmp_path, "empty.txt", content)
    with pytest.raises(EmptyInputError) as err:
        read_book(path)
    assert str(path) in str(err.value)


@pytest.mark.parametrize(
    ("data", "words"),
    [
        (b"Hello\x00world\x00" * 20, "NUL"),
        (b"\x89PNG\r\n\x1a\n" + b"\x00\x01\x02" * 50, "PNG"),
        (b"GIF89a" + b"abc" * 10, "GIF"),
        (b"%PDF-1.7\n" + b"stream" * 10, "PDF"),
    ],
)
def test_ingest_binary_file_raises(tmp_path, data, words):
    path = _write(tmp_path, "picture.txt", data)
    with pytest.raises(BinaryInputError) as err:
        read_book(path)
    assert words in str(err.value)
    assert "plain text" in str(err.value)  # the fix


@pytest.mark.parametrize("encoding", ["utf-8", "cp1252"])
def test_ingest_nul_after_the_first_100_kb_is_refused_with_its_offset(tmp_path, encoding):
    text = "\u201cWell,\u201d said she. He nodded.\n\n" * 4000  # about 150 KB; cp1252 keeps the quotes as one byte
    data = text.encode(encoding)
    offset = 100_003 - 100_003 % len("x".encode(encoding))
    path = _write(tmp_path, "book.txt", data[:offset] + b"\x00" + data[offset:])
    with pytest.raises(BinaryInputError, match=f"NUL byte \\(at byte {offset:,}\\)"):
        read_book(path)


def test_ingest_nul_character_in_a_utf16_text_is_refused_with_its_offset(tmp_path):
    text = "She said so.\n\n" * 9000 + "\x00" + "And then more.\n"
    path = _write(tmp_path, "book.txt", b"\xff\xfe" + text.encode("utf-16-le"))
    with pytest.raises(BinaryInputError, match=f"NUL character \\(at character {len('She said so.') * 9000 + 18000:,}"):
        read_book(path)


def test_ingest_nul_refused_by_the_cli_and_nothing_stored(tmp_path, capsys):
    from litlens.cli import main

    data = (b"He came in. " * 10_000) + b"\x00" + b"The end.\n"
    book = _write(tmp_path, "book.txt", data)
    project = tmp_path / "p.litlens"
    assert main(["ingest", str(book), "-p", str(project)]) != 0
    err = capsys.readouterr().err
    assert err.startswith("litlens: error:") and "at byte 120,000" in err
    assert not project.exists() or _books(project) == 0


def _books(project: Path) -> int:
    import sqlite3

    conn = sqlite3.connect(project)
    try:
        return conn.execute("SELECT count(*) FROM books").fetchone()[0]
    finally:
        conn.close()


def test_ingest_zip_renamed_txt_raises(tmp_path):
    path = tmp_path / "archive.txt"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("a.txt", "hello")
    with pytest.raises(BinaryInputError, match="ZIP"):
        read_book(path)


def test_ingest_too_large_is_refused_before_reading(tmp_path, monkeypatch):
    path = tmp_path / "huge.txt"
    with open(path, "wb") as handle:
        handle.truncate(200_000_000)  # sparse: 200 MB on paper, nothing on disk
    monkeypatch.setattr(Path, "read_bytes", lambda self: pytest.fail("read a file that is too large"))
    with pytest.raises(InputTooLargeError) as err:
        read_book(path)
    assert "200.0 MB" in str(err.value) and "50.0 MB" in str(err.value)


def test_ingest_max_bytes_is_a_parameter(tmp_path):
    path = _write(tmp_path, "small.txt", "x" * 2_000)
    with pytest.raises(InputTooLargeError):
        read_book(path, max_bytes=1_000)
    assert read_book(path, max_bytes=2_000).text == "x" * 2_000


# ---------------------------------------------------------------- Gutenberg


def test_ingest_gutenberg_txt(tmp_path, gutenberg_text):
    path = _write(tmp_path, "pg99999.txt", gutenberg_text.replace("\n", "\r\n"))
    book = read_book(path)
    assert book.format == "gutenberg-txt"
    assert (book.title, book.author) == ("The Tiny Tale", "Ann Example")
    assert book.text.startswith("CHAPTER I.\n\nThe first line of the story")
    assert book.text.rstrip().endswith("THE END")
    assert book.text.count("THE END") == 2
    assert "LICENSE" not in book.text and "Produced by" not in book.text
    assert any("CRLF" in note for note in book.notes)


def test_ingest_plain_txt_title_and_author_lines(tmp_path):
    path = _write(tmp_path, "emma.txt", "EMMA\n\nBy Jane Austen\n\n\nCHAPTER I\n\nEmma Woodhouse...\n")
    book = read_book(path)
    assert (book.title, book.author) == ("Emma", "Jane Austen")  # capitals written as a title
    assert book.text.startswith("EMMA\n")


# ---------------------------------------------------------------------- HTML


def test_ingest_html(tmp_path):
    html = (
        "<!DOCTYPE html><html><head><meta charset='utf-8'><title>A Short Book</title>"
        "<meta name='author' content='Ann Example'></head><body>"
        "<h1>CHAPTER I</h1><p>First <i>para</i>.</p><p>Second<br>line.</p></body></html>"
    )
    book = read_book(_write(tmp_path, "book.html", html))
    assert book.format == "html"
    assert book.text == "CHAPTER I\n\nFirst para.\n\nSecond\nline.\n"
    assert (book.title, book.author) == ("A Short Book", "Ann Example")


def test_ingest_gutenberg_html_declared_latin1(tmp_path):
    html = (
        "<html><head><meta http-equiv='Content-Type' content='text/html; charset=iso-8859-1'>"
        "<title>The Project Gutenberg eBook of Caf\u00e9 Days, by Ann Example</title></head><body>"
        "<pre>The Project Gutenberg EBook of Caf\u00e9 Days\n\n"
        "*** START OF THIS PROJECT GUTENBERG EBOOK CAF\u00c9 DAYS ***</pre>"
        "<h2>CHAPTER I</h2><p>The caf\u00e9 opened.<span class='pagenum'>[Pg 1]</span></p>"
        "<pre>*** END OF THIS PROJECT GUTENBERG EBOOK CAF\u00c9 DAYS ***\n\nlicence</pre>"
        "</body></html>"
    )
    book = read_book(_write(tmp_path, "pg.htm", html.encode("latin-1")))
    assert book.format == "gutenberg-html"
    assert book.encoding == "cp1252"
    assert book.text == "CHAPTER I\n\nThe caf\u00e9 opened.\n"
    assert (book.title, book.author) == ("Caf\u00e9 Days", "Ann Example")


def test_ingest_html_content_in_txt_is_read_as_html(tmp_path):
    book = read_book(_write(tmp_path, "saved.txt", "<!DOCTYPE html><html><body><p>One.</p><p>Two.</p></body></html>"))
    assert book.format == "html"
    assert book.text == "One.\n\nTwo.\n"
    assert any("HTML" in note for note in book.notes)


# ---------------------------------------------------------------------- EPUB


def _make_epub(path: Path) -> Path:
    from ebooklib import epub

    book = epub.EpubBook()
    book.set_identifier("litlens-test-1")
    book.set_title("The Spine Test")
    book.set_language("en")
    book.add_author("Ann Example")
    one = epub.EpubHtml(title="One", file_name="one.xhtml", lang="en")
    one.content = "<h1>CHAPTER I</h1><p>First chapter text.</p><p>Still <b>first</b>.</p>"
    two = epub.EpubHtml(title="Two", file_name="two.xhtml", lang="en")
    two.content = "<h1>CHAPTER II</h1><p>Second chapter text.</p>"
    for item in (two, one):  # manifest order differs from reading order
        book.add_item(item)
    book.toc = (one, two)
    book.add_item(epub.EpubNcx())
    book.add_item(epub.EpubNav())
    book.spine = ["nav", one, two]
    epub.write_epub(str(path), book)
    return path


def test_ingest_epub_in_spine_order(tmp_path):
    book = read_book(_make_epub(tmp_path / "book.epub"))
    assert book.format == "epub"
    assert book.text == (
        "CHAPTER I\n\nFirst chapter text.\n\nStill first.\n\nCHAPTER II\n\nSecond chapter text.\n"
    )
    assert (book.title, book.author) == ("The Spine Test", "Ann Example")


def test_ingest_truncated_epub_raises(tmp_path):
    good = _make_epub(tmp_path / "good.epub").read_bytes()
    path = _write(tmp_path, "cut.epub", good[: len(good) // 2])
    with pytest.raises(EpubError) as err:
        read_book(path)
    assert str(path) in str(err.value)
    assert "again" in str(err.value)  # the fix: get the file again


def test_ingest_epub_that_is_not_a_zip_raises(tmp_path):
    with pytest.raises(EpubError, match="ZIP"):
        read_book(_write(tmp_path, "fake.epub", "just some text"))


def test_ingest_epub_renamed_txt_is_read_as_epub(tmp_path):
    path = _make_epub(tmp_path / "book.epub").rename(tmp_path / "book.txt")
    book = read_book(path)
    assert book.format == "epub"
    assert "Second chapter text." in book.text
    assert any("EPUB" in note for note in book.notes)


def test_ingest_modern_gutenberg_html_ends_at_the_end(tmp_path):
    story = "".join(f"<p>\u201cLine {i},\u201d said Anne.</p>" for i in range(30))
    html = (
        "<html><head><title>The Project Gutenberg eBook of Tiny, by Ann Example</title></head><body>"
        "<section class='pg-boilerplate pgheader' id='pg-header'><p>Title: Tiny</p>"
        "<p>Credits: A. Volunteer</p></section>"
        f"<h2>CHAPTER I</h2>{story}<p>THE END</p>"
        "<div class='transnote'><p>Transcriber\u2019s Notes</p><p>Typos fixed.</p></div>"
        "<section class='pg-boilerplate pgfooter' id='pg-footer'><p>Licence.</p></section></body></html>"
    )
    book = read_book(_write(tmp_path, "pg.html", html))
    assert book.format == "gutenberg-html"
    assert book.text.startswith("CHAPTER I\n\n\u201cLine 0,\u201d said Anne.")
    assert book.text.endswith("\u201cLine 29,\u201d said Anne.\n\nTHE END\n")
    assert "Volunteer" not in book.text and "Licence" not in book.text
    assert (book.title, book.author) == ("Tiny", "Ann Example")


@pytest.mark.parametrize(
    ("head", "title", "author"),
    [
        ("MANSFIELD PARK\n\n(1814)\n\nBY JANE AUSTEN\n\n", "Mansfield Park", "Jane Austen"),
        ("Oliver Twist\n\nOR\nTHE PARISH BOY'S PROGRESS\n\nby Charles Dickens\n\n", "Oliver Twist", "Charles Dickens"),
        ("The Time Machine, by H. G. Wells\n\n", "The Time Machine", "H. G. Wells"),
        ("THE SECRET GARDEN\n\nWritten by Frances Hodgson Burnett.\n\n", "The Secret Garden", "Frances Hodgson Burnett"),
        ("CHAPTER I\n\nIt was told by Mr. Smith\n\n", None, None),
    ],
)
def test_title_and_author_from_the_first_lines(tmp_path, head, title, author):
    path = _write(tmp_path, "book.txt", head + "CHAPTER I\n\nThe story begins here and goes on.\n")
    book = read_book(path)
    assert (book.title, book.author) == (title, author)
