"""Read a novel file (plain text, Project Gutenberg text or HTML, EPUB) into a RawBook.

The format comes from the extension, checked against the content: a PNG or ZIP renamed
``.txt`` is refused, an EPUB or HTML file with the wrong extension is read as what it
is (with a note). A plain UTF-8 ``.txt`` without Gutenberg markers is stored exactly
as Python reads it, so character offsets into the stored text are offsets into the file
read with ``open(path, encoding="utf-8")``.
"""

from __future__ import annotations

import codecs
import os
import re
import zipfile
from dataclasses import dataclass, replace
from pathlib import Path

from charset_normalizer import from_bytes

from litlens.errors import (
    BinaryInputError,
    EmptyInputError,
    EncodingDetectionError,
    EpubError,
    InputFileError,
    InputTooLargeError,
)
from litlens.model import RawBook
from litlens.text.gutenberg import (
    CleanText,
    clean_gutenberg_text,
    has_gutenberg_markers,
    html_to_text,
    is_gutenberg_html,
    read_metadata,
)

MAX_BYTES = 50_000_000
TEXT_EXTENSIONS = frozenset({".txt", ".text"})
HTML_EXTENSIONS = frozenset({".html", ".htm", ".xhtml"})
EPUB_EXTENSIONS = frozenset({".epub"})
SUPPORTED = ".txt, .html, .htm, .xhtml, .epub"
_EXPORT_FIX = "Export the book as plain text (.txt), HTML or EPUB and read that file instead"

# Leading bytes of common binary formats someone might rename by mistake.
_MAGIC: tuple[tuple[bytes, str], ...] = (
    (b"\x89PNG\r\n\x1a\n", "a PNG image"),
    (b"\xff\xd8\xff", "a JPEG image"),
    (b"GIF87a", "a GIF image"),
    (b"GIF89a", "a GIF image"),
    (b"%PDF-", "a PDF document"),
    (b"PK\x03\x04", "a ZIP archive"),
    (b"PK\x05\x06", "a ZIP archive"),
    (b"\x1f\x8b", "a gzip archive"),
    (b"7z\xbc\xaf\x27\x1c", "a 7-Zip archive"),
    (b"Rar!\x1a\x07", "a RAR archive"),
    (b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1", "a Microsoft Office (OLE) document"),
    (b"\x7fELF", "a program (ELF executable)"),
    (b"{\\rtf", "an RTF document"),
)
_BOMS: tuple[tuple[bytes, str], ...] = (
    (b"\xef\xbb\xbf", "utf-8-sig"),
    (b"\xff\xfe\x00\x00", "utf-32"),
    (b"\x00\x00\xfe\xff", "utf-32"),
    (b"\xff\xfe", "utf-16"),
    (b"\xfe\xff", "utf-16"),
)
_CONTROL = re.compile(rb"[\x01-\x08\x0e-\x1a\x1c-\x1f]")
_HTML_SNIFF = re.compile(
    rb"^\s*(?:<\?xml[^>]*>\s*)?(?:<!--.*?-->\s*)*<(?:!DOCTYPE\s+html|html)\b", re.IGNORECASE | re.DOTALL
)
_TAG = re.compile(r"<[A-Za-z!/]")


@dataclass(frozen=True)
class _Decoded:
    text: str
    encoding: str
    notes: tuple[str, ...]


def read_book(path: str | os.PathLike[str], *, max_bytes: int = MAX_BYTES) -> RawBook:
    """Read, decode and clean a novel file. Raises a subclass of :class:`InputFileError`."""
    path = Path(path)
    size = _check_file(path, max_bytes)
    kind = _kind_from_extension(path)
    if size == 0:
        raise EmptyInputError(path, "the file is empty (0 bytes)", "Choose the file that holds the book's text")
    with open(path, "rb") as handle:
        head = handle.read(8192)
    kind, sniff_note = _sniff(path, kind, head)
    if kind == "epub":
        book = _read_epub(path)
    else:
        data = path.read_bytes()
        decoded = _decode(path, data, _declared_charset(data) if kind == "html" else None)
        if not decoded.text.strip():
            raise EmptyInputError(path, "the file holds only blank space", "Choose the file that holds the book's text")
        book = _read_html(path, decoded) if kind == "html" else _read_text(path, decoded)
    if sniff_note:
        book = replace(book, notes=(sniff_note, *book.notes))
    nul = book.text.find("\x00")  # e.g. a UTF-16 file or an EPUB chapter holding U+0000
    if nul >= 0:
        raise BinaryInputError(
            path, f"the text contains a NUL character (at character {nul:,} of the text read from it), so it is "
            "binary data, not text", _EXPORT_FIX,
        )
    if not book.text.strip():
        raise EmptyInputError(
            path,
            "no text is left after reading it" + (" and removing the Project Gutenberg header and footer"
                                                   if book.format.startswith("gutenberg") else ""),
            "Check that the file holds the book itself and not only front matter or a licence",
        )
    return book


# ------------------------------------------------------------------ checks


def _check_file(path: Path, max_bytes: int) -> int:
    if not path.exists():
        raise InputFileError(path, "no such file", "Check the path and the file name")
    if path.is_dir():
        raise InputFileError(path, "this is a folder, not a book file", f"Choose one book file ({SUPPORTED})")
    size = os.stat(path).st_size
    if size > max_bytes:
        raise InputTooLargeError(
            path,
            f"the file is {size / 1e6:.1f} MB, more than the {max_bytes / 1e6:.1f} MB limit for one book",
            "Check that it is a single novel; if it is, raise the limit (max_bytes), otherwise split it",
        )
    return size


def _kind_from_extension(path: Path) -> str:
    ext = path.suffix.lower()
    if ext in TEXT_EXTENSIONS:
        return "txt"
    if ext in HTML_EXTENSIONS:
        return "html"
    if ext in EPUB_EXTENSIONS:
        return "epub"
    if ext == "":
        return "unknown"
    raise InputFileError(path, f"unsupported file type {ext!r}", f"LitLens reads {SUPPORTED}. {_EXPORT_FIX}")


def _sniff(path: Path, kind: str, head: bytes) -> tuple[str, str | None]:
    """Check the claimed kind against the first bytes; return the kind to read it as."""
    is_zip = head.startswith(b"PK\x03\x04")
    is_epub = is_zip and b"mimetypeapplication/epub+zip" in head[:100]
    if kind == "epub":
        if not is_zip:
            what = _magic_name(head)
            raise EpubError(
                path,
                "not a valid EPUB: an EPUB is a ZIP archive" + (f", but this file is {what}" if what else
                                                                 ", but this file is not one"),
                "The file may be truncated or mislabelled; download or export the EPUB again",
            )
        return "epub", None
    if is_epub:
        return "epub", f"the file is an EPUB despite its name {path.name!r}; read it as EPUB"
    what = _magic_name(head)
    if what:
        raise BinaryInputError(path, f"this is binary data ({what}), not a text, HTML or EPUB file", _EXPORT_FIX)
    looks_html = bool(_HTML_SNIFF.match(head))
    if kind == "txt" and looks_html:
        return "html", "the file holds HTML despite its .txt name; read it as HTML"
    if kind == "unknown":
        return ("html" if looks_html else "txt"), None
    return kind, None


def _magic_name(head: bytes) -> str | None:
    for magic, name in _MAGIC:
        if head.startswith(magic):
            return name
    return None


# ---------------------------------------------------------------- decoding


def _decode(path: Path, data: bytes, declared: str | None = None) -> _Decoded:
    """Decode bytes: BOM, UTF-8, a declared HTML charset, then detection (cp1252 for Latin text)."""
    notes: list[str] = []
    for bom, encoding in _BOMS:
        if data.startswith(bom):
            text = _decode_strict(path, data, encoding)
            notes.append(f"removed a byte-order mark and decoded as {encoding.replace('-sig', '')}")
            return _normalise_newlines(text, encoding, notes)
    _check_binary(path, data)
    try:
        return _normalise_newlines(data.decode("utf-8"), "utf-8", notes)
    except UnicodeDecodeError:
        pass
    if declared and _decodes(data, declared):
        notes.append(f"decoded as {declared}, the charset the HTML declares")
        return _normalise_newlines(data.decode(declared), declared, notes)
    mixed = _decode_mostly_utf8(data)
    if mixed is not None:
        text, bad = mixed
        notes.append(f"decoded as utf-8; {bad} stray byte(s) that are not UTF-8 were read as cp1252")
        return _normalise_newlines(text, "utf-8", notes)
    encoding = _detect_encoding(path, data)
    notes.append(f"decoded as {encoding}")
    return _normalise_newlines(data.decode(encoding), encoding, notes)


_META_CHARSET = re.compile(rb"""<meta[^>]+charset\s*=\s*["']?([A-Za-z0-9_.:-]+)""", re.IGNORECASE)


def _declared_charset(data: bytes) -> str | None:
    """The charset an HTML file declares in a <meta> tag (latin-1 read as cp1252, like browsers)."""
    m = _META_CHARSET.search(data[:8192])
    if not m:
        return None
    try:
        name = codecs.lookup(m.group(1).decode("ascii")).name
    except LookupError:
        return None
    return "cp1252" if name in ("iso8859-1", "latin-1", "ascii") else name


def _decode_strict(path: Path, data: bytes, encoding: str) -> str:
    try:
        return data.decode(encoding)
    except UnicodeDecodeError as exc:
        raise EncodingDetectionError(
            path,
            f"the file starts with a {encoding} byte-order mark but is not valid {encoding} "
            f"(byte {exc.start})",
            "Re-save the file as UTF-8 in a text editor",
        ) from exc


def _check_binary(path: Path, data: bytes) -> None:
    nul = data.find(b"\x00")  # anywhere: a NUL stored in the text makes SQLite's length() differ from Python's
    if nul >= 0:
        raise BinaryInputError(
            path, f"the file contains a NUL byte (at byte {nul:,}), so it is binary data, not text", _EXPORT_FIX
        )
    sample = data[:65536]
    controls = len(_CONTROL.findall(sample))
    if controls > max(8, len(sample) // 100):
        raise BinaryInputError(
            path, f"the file contains {controls} control bytes in its first {len(sample)} bytes, so it "
            "is binary data, not text", _EXPORT_FIX
        )


def _decode_mostly_utf8(data: bytes) -> tuple[str, int] | None:
    """UTF-8 with a few stray single-byte characters (a file edited on Windows)."""
    text = data.decode("utf-8", "surrogateescape")
    bad = sum(1 for ch in text if "\udc80" <= ch <= "\udcff")
    good = sum(1 for ch in text if ord(ch) > 127 and not "\udc80" <= ch <= "\udcff")
    if good == 0 or bad > good:
        return None
    fixed = re.sub(
        "[\udc80-\udcff]", lambda m: bytes([ord(m.group()) - 0xDC00]).decode("cp1252", "replace"), text
    )
    return fixed, bad


def _detect_encoding(path: Path, data: bytes) -> str:
    if _looks_western(data):
        return "cp1252"
    best = from_bytes(data[:2_000_000]).best()
    if best is None or not _plausible_text(data.decode(best.encoding, "replace")):
        raise EncodingDetectionError(
            path,
            "it is not UTF-8 and its text encoding could not be recognised",
            "Open it in a text editor and save it as UTF-8, then read it again",
        )
    return best.encoding


def _looks_western(data: bytes) -> bool:
    """Valid cp1252 whose letters are mostly plain ASCII: English or another Western text."""
    try:
        text = data.decode("cp1252")
    except UnicodeDecodeError:
        return False
    letters = [ch for ch in text if ch.isalpha()]
    ascii_letters = sum(1 for ch in letters if ch.isascii())
    return bool(letters) and ascii_letters >= 0.6 * len(letters)


def _plausible_text(text: str) -> bool:
    """A book has spaces or line breaks; a long run of characters without any is not one."""
    return len(text) < 200 or any(ch.isspace() for ch in text[:20_000])


def _decodes(data: bytes, encoding: str) -> bool:
    try:
        data.decode(encoding)
    except UnicodeDecodeError:
        return False
    return True


def _normalise_newlines(text: str, encoding: str, notes: list[str]) -> _Decoded:
    if "\r" in text:
        crlf = text.count("\r\n")
        text = text.replace("\r\n", "\n").replace("\r", "\n")
        notes.append("converted Windows (CRLF) line ends to LF" if crlf else "converted CR line ends to LF")
    return _Decoded(text, encoding, tuple(notes))


# ---------------------------------------------------------------- formats


def _read_text(path: Path, decoded: _Decoded) -> RawBook:
    if has_gutenberg_markers(decoded.text):
        clean = clean_gutenberg_text(decoded.text)
        return _book(path, "gutenberg-txt", decoded, clean)
    lines = decoded.text.split("\n", 200)[:200]
    title, author = read_metadata(lines)
    if title is None:
        title, author = _title_by_line(lines, author)
    return RawBook(
        text=decoded.text, source_path=str(path), format="txt", encoding=decoded.encoding,
        title=title, author=author, notes=decoded.notes,
    )


def _read_html(path: Path, decoded: _Decoded) -> RawBook:
    markup = decoded.text
    if not _TAG.search(markup[:65536]):
        book = _read_text(path, decoded)
        return replace(book, notes=(*book.notes, "no HTML tags found; read as plain text"))
    gutenberg = is_gutenberg_html(markup)
    clean = html_to_text(markup)
    if gutenberg or has_gutenberg_markers(clean.text):
        lines_clean = clean_gutenberg_text(clean.text, header_removed=gutenberg)
        clean = CleanText(
            lines_clean.text, clean.notes + lines_clean.notes,
            clean.title or lines_clean.title, clean.author or lines_clean.author,
        )
        return _book(path, "gutenberg-html", decoded, clean)
    return _book(path, "html", decoded, clean)


def _book(path: Path, fmt: str, decoded: _Decoded, clean: CleanText) -> RawBook:
    return RawBook(
        text=clean.text, source_path=str(path), format=fmt, encoding=decoded.encoding,
        title=clean.title, author=clean.author, notes=decoded.notes + clean.notes,
    )


_BY_LINE = re.compile(r"^\s*(?:written\s+)?by\s+([A-Z][\w.'’ -]{1,60}?)\s*[.,]?\s*$", re.IGNORECASE)
_TITLE_BY = re.compile(r"^\s*(.{2,80}?),?\s+by\s+([A-Z][\w.'’-]+(?:\s+[A-Z][\w.'’-]+){0,4})\s*$")
_SMALL_WORDS = frozenset("a an and as at but by for from in into of on or the to with".split())


def _title_case(text: str) -> str:
    """A heading printed in capitals as a title is written ("MANSFIELD PARK" -> "Mansfield Park");
    text with lower-case letters is kept as it is."""
    if not text.isupper():
        return text
    words = text.lower().split()
    return " ".join(w if n and w in _SMALL_WORDS else w[:1].upper() + w[1:] for n, w in enumerate(words))


def _title_by_line(lines: list[str], author: str | None) -> tuple[str | None, str | None]:
    """A title at the top of a plain text with its author in a "by" line below it ("EMMA" /
    "By Jane Austen", with a subtitle, a date or "OR ..." between), or on the same line
    ("Emma, by Jane Austen")."""
    filled = [line.strip() for line in lines[:60] if line.strip()][:8]
    if not filled:
        return None, author
    m = _TITLE_BY.match(filled[0])
    if m and not filled[0].lower().startswith(("chapter", "by ")):
        return _title_case(m.group(1).strip("_* ")), author or _title_case(m.group(2))
    for line in filled[1:]:
        m = _BY_LINE.match(line)
        if m:
            title = filled[0].strip("_* ")
            if len(title) <= 80 and not title.lower().startswith("chapter"):
                return _title_case(title), author or _title_case(m.group(1).strip("_* "))
            break
    return None, author


# -------------------------------------------------------------------- EPUB


def _read_epub(path: Path) -> RawBook:
    from ebooklib import ITEM_DOCUMENT, epub  # imported here: only EPUB ingest needs it

    try:
        book = epub.read_epub(str(path), options={"ignore_ncx": True})
    except (epub.EpubException, zipfile.BadZipFile, KeyError, ValueError, OSError, SyntaxError) as exc:
        raise EpubError(
            path,
            f"cannot open it as an EPUB ({type(exc).__name__}: {exc})",
            "The file may be truncated or damaged; download or export the EPUB again",
        ) from exc
    except Exception as exc:  # lxml and zip errors of many kinds; all mean a damaged file
        raise EpubError(
            path,
            f"cannot read the EPUB's contents ({type(exc).__name__}: {exc})",
            "The file may be truncated or damaged; download or export the EPUB again",
        ) from exc
    texts: list[str] = []
    notes: list[str] = []
    skipped = 0
    for idref, _linear in book.spine:
        item = book.get_item_with_id(idref)
        if item is None or isinstance(item, epub.EpubNav) or item.get_type() != ITEM_DOCUMENT:
            skipped += 1
            continue
        try:
            content = item.get_content()
        except Exception as exc:  # a member that cannot be decompressed
            raise EpubError(path, f"cannot read {item.get_name()} inside the EPUB ({exc})",
                            "The file may be damaged; download or export the EPUB again") from exc
        part = html_to_text(content)
        if part.text.strip():
            texts.append(part.text.strip("\n"))
    if skipped:
        notes.append(f"skipped {skipped} spine item(s) that are not text documents (e.g. the navigation page)")
    text = "\n\n".join(texts) + ("\n" if texts else "")
    fmt_notes: tuple[str, ...] = ()
    title, author = _dc(book, "title"), _dc(book, "creator")
    if has_gutenberg_markers(text):
        clean = clean_gutenberg_text(text)
        text, fmt_notes = clean.text, clean.notes
        title, author = title or clean.title, author or clean.author
    return RawBook(
        text=text, source_path=str(path), format="epub", encoding="utf-8",
        title=title, author=author, notes=tuple(notes) + fmt_notes,
    )


def _dc(book: object, name: str) -> str | None:
    values = book.get_metadata("DC", name)  # type: ignore[attr-defined]
    for value, _attrs in values:
        if value and str(value).strip():
            return " ".join(str(value).split())
    return None
