"""Project Gutenberg cleaning for plain text, and HTML-to-text extraction.

Plain text (:func:`clean_gutenberg_text`) is cleaned line by line, in the spirit of
LiteraryQA's Algorithm 2: a *start* marker throws away everything before it, an
unambiguous *end* marker ("*** END OF THE PROJECT GUTENBERG EBOOK ...") stops the text,
and an ambiguous one ("THE END", "FINIS") stops it only in the last 10 % of the body.
Credits ("Produced by ...") near the start and transcriber's notes are skipped. When in
doubt a line is kept: a stray line costs a reader little, a lost narrative line costs
the scholar the evidence.

HTML (:func:`html_to_text`), in the spirit of Algorithm 1: non-content elements are
removed with all they contain (scripts, styles, the Gutenberg header and footer
sections, page numbers, tables of contents), inline elements are unwrapped, and each
block element (``p``, ``div``, ``h1``-``h6``, ...) becomes one paragraph; paragraphs
are separated by a blank line and a ``<br>`` becomes a line break.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from bs4 import BeautifulSoup, NavigableString, Tag
from bs4.element import Comment, Declaration, Doctype, ProcessingInstruction

# Lines before (and including) a start marker are header.
_START = re.compile(
    r"^\s*\*{3}\s*START OF (?:THE |THIS )?(?:COPYRIGHTED )?PROJECT GUTENBERG"
    r"|^\s*\*+\s*END\s*\*?\s*THE SMALL PRINT",
    re.IGNORECASE,
)
# An unambiguous end: the footer and licence follow.
_END = re.compile(
    r"^\s*\*{3}\s*END OF (?:THE |THIS )?(?:COPYRIGHTED )?PROJECT GUTENBERG"
    r"|^\s*End of (?:the |this )?Project Gutenberg"
    r"|^\s*\*{3}\s*START:? FULL LICEN[CS]E",
    re.IGNORECASE,
)
# An ambiguous end: only ends the text near the end of the body.
_SOFT_END = re.compile(r"^\s*(?:THE END|The End|FINIS|Finis)\s*[.!]?\s*$")
SOFT_END_FRACTION = 0.9  # a soft end counts only at or after 90 % of the body's lines

_CREDIT = re.compile(
    r"^\s*(?:Produced by|E-?text prepared by|This e-?(?:text|book) was (?:prepared|produced) by"
    r"|Prepared by|Transcribed from|Transcribed by)\b",
    re.IGNORECASE,
)
_CREDIT_ZONE_LINES = 80  # credits are looked for this close to the start (and in its first 10 %)
_TRANSCRIBER = re.compile(r"^\s*\[?\s*(?:Transcriber|Transcribers)['’]?s?['’]?\s+Notes?\b", re.IGNORECASE)
_MAX_NOTE_LINES = 200  # a bracketed note longer than this is not trusted to be one

_META_TITLE = re.compile(r"^\s*Title:\s*(.+?)\s*$")
_META_AUTHOR = re.compile(r"^\s*Author:\s*(.+?)\s*$")
_EBOOK_OF = re.compile(
    r"^\s*(?:The )?Project Gutenberg(?:['’]s)? (?:E-?Book|Etext) of "
    r"(?P<title>.+?)(?:, by (?P<author>.+?))?\s*$",
    re.IGNORECASE,
)
_HEADER_SCAN_LINES = 120  # metadata lines are looked for in the file's first lines only


@dataclass(frozen=True)
class CleanText:
    """Text after cleaning, with what was done and the metadata found."""

    text: str
    notes: tuple[str, ...] = ()
    title: str | None = None
    author: str | None = None


# ---------------------------------------------------------------- plain text


def has_gutenberg_markers(text: str) -> bool:
    """True when ``text`` has a Project Gutenberg start marker in its first half."""
    lines = text.split("\n")
    return _find_start(lines) is not None


def clean_gutenberg_text(text: str, *, header_removed: bool = False) -> CleanText:
    """Strip the Gutenberg header, footer, licence, credits and transcriber's notes.

    ``text`` must use ``\\n`` line ends. Text without a start marker is returned unchanged
    (only its metadata is read) unless ``header_removed`` says the header is already gone
    (Gutenberg HTML whose header section was dropped): then the whole text is the body.
    """
    lines = text.split("\n")
    title, author = read_metadata(lines)
    start = _find_start(lines)
    notes: list[str] = []
    if start is None:
        if not header_removed:
            return CleanText(text, (), title, author)
        start = -1
    else:
        notes.append(f"removed the Project Gutenberg header ({start + 1} lines)")
        title = title or _title_from_start_marker(lines[start])
    end = _find_end(lines, start + 1)
    if end < len(lines):
        notes.append(f"removed the Project Gutenberg footer and licence ({len(lines) - end} lines)")
    body, more = _clean_body(lines[start + 1 : end])
    notes.extend(more)
    return CleanText(_join(body), tuple(notes), title, author)


def read_metadata(lines: list[str]) -> tuple[str | None, str | None]:
    """Title and author from "Title:"/"Author:" lines or the "Project Gutenberg EBook of" line."""
    title = author = None
    for line in lines[:_HEADER_SCAN_LINES]:
        if title is None and (m := _META_TITLE.match(line)):
            title = m.group(1)
        elif author is None and (m := _META_AUTHOR.match(line)):
            author = m.group(1)
        elif m := _EBOOK_OF.match(line):
            title = title or m.group("title")
            author = author or m.group("author")
    return title, author


def _find_start(lines: list[str]) -> int | None:
    """Index of the last start marker in the first half of the lines (old headers have two)."""
    found = None
    for i, line in enumerate(lines[: max(1, len(lines) // 2)]):
        if _START.match(line):
            found = i
    return found


def _find_end(lines: list[str], first: int) -> int:
    for i in range(first, len(lines)):
        if _END.match(lines[i]):
            return i
    return len(lines)


def _title_from_start_marker(line: str) -> str | None:
    m = re.search(r"E-?BOOK\s+(.+?)\s*\**\s*$", line, re.IGNORECASE)
    return m.group(1).strip() if m and m.group(1).strip() else None


def _clean_body(lines: list[str]) -> tuple[list[str], list[str]]:
    """Skip credits and transcriber's notes; stop at a soft end in the last 10 %."""
    out: list[str] = []
    notes: list[str] = []
    n = len(lines)
    i = 0
    while i < n:
        line = lines[i]
        para_start = i == 0 or not lines[i - 1].strip()
        if para_start and i < min(_CREDIT_ZONE_LINES, 0.1 * n) and _CREDIT.match(line):
            j = _paragraph_end(lines, i)
            notes.append(f"removed a credit line: {line.strip()[:60]!r}")
            i = j
            continue
        if para_start and _TRANSCRIBER.match(line):
            j = _note_end(lines, i, tail=i >= SOFT_END_FRACTION * n)
            notes.append(f"removed a transcriber's note ({j - i} lines)")
            i = j
            continue
        if _SOFT_END.match(line) and i >= SOFT_END_FRACTION * n:
            out.append(line)
            dropped = sum(1 for rest in lines[i + 1 :] if rest.strip())
            if dropped:
                notes.append(f"the text ends at {line.strip()!r}; dropped {dropped} non-blank lines after it")
            break
        out.append(line)
        i += 1
    return out, notes


def _paragraph_end(lines: list[str], i: int) -> int:
    while i < len(lines) and lines[i].strip():
        i += 1
    return i


def _note_end(lines: list[str], i: int, *, tail: bool) -> int:
    """End (exclusive) of a transcriber's note starting at line ``i``."""
    if lines[i].lstrip().startswith("["):
        depth = 0
        for j in range(i, min(len(lines), i + _MAX_NOTE_LINES)):
            depth += lines[j].count("[") - lines[j].count("]")
            if depth <= 0:
                return j + 1
        return _paragraph_end(lines, i)
    if tail:
        return len(lines)  # notes at the very end of the book run to its end
    return _paragraph_end(lines, i)


def _join(lines: list[str]) -> str:
    text = "\n".join(lines).strip("\n")
    return text + "\n" if text else ""


# ---------------------------------------------------------------------- HTML

_DROP_TAGS = ("script", "style", "head", "noscript", "template", "svg", "math", "nav", "iframe", "object")
_DROP_SELECTORS = (
    "#pg-header",
    "#pg-footer",
    ".pg-boilerplate",
    "#pg-machine-header",
    "#pg-start-separator",
    "#pg-end-separator",
    ".pagenum",
    ".pageno",
    ".toc",
)
_BLOCK = frozenset(
    "address article aside blockquote body center dd div dl dt figcaption figure footer h1 h2 h3 "
    "h4 h5 h6 header hr html li main ol p pre section table tbody thead tfoot tr ul".split()
)
_CELL = frozenset(("td", "th"))
_LINE_SPAN = re.compile(r"^i\d+$")  # Gutenberg poetry: <span class="i2">a line</span>
_BREAK = "\x00"  # paragraph separator while assembling; never in real text
_SPACES = re.compile(r"[ \t\r\f\v\u00a0\u2000-\u200a\u202f\u205f\u3000]+")
_PG_TITLE = re.compile(r"^\s*The Project Gutenberg e-?Book of\s+", re.IGNORECASE)


def html_to_text(markup: str | bytes) -> CleanText:
    """Visible block text of an HTML/XHTML document, one paragraph per block element."""
    soup = BeautifulSoup(markup, "lxml")
    title, author = _html_metadata(soup)
    gutenberg = soup.select_one("#pg-header, #pg-footer, .pg-boilerplate") is not None
    notes: list[str] = []
    removed = _decompose(soup)
    if gutenberg:
        notes.append("removed the Project Gutenberg header and footer sections")
    if removed.get("page numbers"):
        notes.append(f"removed {removed['page numbers']} page-number markers")
    if removed.get("contents"):
        notes.append("removed a table of contents marked as such")
    body = soup.body or soup
    text = _assemble(_flatten(body))
    return CleanText(text, tuple(notes), title, author)


def is_gutenberg_html(markup: str) -> bool:
    """Cheap test on raw markup: does it carry Gutenberg's header/footer or markers?"""
    head = markup[:200_000]
    return ('id="pg-header"' in head or "pg-boilerplate" in head or
            bool(re.search(r"\*{3}\s*START OF (?:THE|THIS) PROJECT GUTENBERG", head, re.IGNORECASE)))


def _html_metadata(soup: BeautifulSoup) -> tuple[str | None, str | None]:
    def meta(*names: str) -> str | None:
        for name in names:
            tag = soup.find("meta", attrs={"name": re.compile(rf"^{re.escape(name)}$", re.IGNORECASE)})
            if tag is None:
                tag = soup.find("meta", attrs={"property": name})
            if isinstance(tag, Tag) and str(tag.get("content", "")).strip():
                return str(tag["content"]).strip()
        return None

    title = meta("dc.title", "og:title")
    author = meta("dc.creator", "author")
    header = soup.select_one("#pg-header")
    if header is not None:
        blocks = header.find_all(["p", "div", "li", "tr", "h1", "h2", "h3"]) or [header]
        lines = [" ".join(block.get_text().split()) for block in blocks]
        t, a = read_metadata(lines)
        title, author = title or t, author or a
    if soup.title is not None and soup.title.string:
        t, a = _split_title(" ".join(soup.title.string.split()))
        title, author = title or t, author or a
    return title, author


def _split_title(raw: str) -> tuple[str | None, str | None]:
    """"The Project Gutenberg eBook of Emma, by Jane Austen" -> ("Emma", "Jane Austen")."""
    author = None
    if _PG_TITLE.match(raw):
        raw = _PG_TITLE.sub("", raw)
        if ", by " in raw:
            raw, author = raw.rsplit(", by ", 1)
            author = author.strip().rstrip(".") or None
    return raw.strip() or None, author


def _decompose(soup: BeautifulSoup) -> dict[str, int]:
    counts: dict[str, int] = {}
    for tag in soup.find_all(_DROP_TAGS):
        tag.decompose()
    for selector in _DROP_SELECTORS:
        for tag in soup.select(selector):
            if tag.decomposed:
                continue
            kind = "page numbers" if "page" in selector else "contents" if "toc" in selector else "boilerplate"
            counts[kind] = counts.get(kind, 0) + 1
            tag.decompose()
    return counts


def _flatten(root: Tag) -> list[str]:
    """Walk the tree iteratively; emit text, ``\\n`` for <br> and _BREAK around blocks."""
    out: list[str] = []
    stack: list[tuple[object, bool]] = [(root, False)]
    while stack:
        node, closing = stack.pop()
        if isinstance(node, Tag):
            name = node.name
            if closing:
                if name in _BLOCK:
                    out.append(_BREAK)
                elif name in _CELL:
                    out.append(" ")
                elif name == "span" and any(_LINE_SPAN.match(c) for c in node.get("class") or ()):
                    out.append("\n")
                continue
            if name == "br":
                out.append("\n")
                continue
            if name in _BLOCK:
                out.append(_BREAK)
            if name == "pre":
                out.append(node.get_text())
                out.append(_BREAK)
                continue
            stack.append((node, True))
            stack.extend((child, False) for child in reversed(node.contents))
        elif isinstance(node, NavigableString) and not isinstance(
            node, (Comment, Declaration, Doctype, ProcessingInstruction)
        ):
            out.append(re.sub(r"\s+", " ", str(node)))
    return out


def _assemble(parts: list[str]) -> str:
    paragraphs: list[str] = []
    for block in "".join(parts).split(_BREAK):
        lines = [_SPACES.sub(" ", line).strip() for line in block.split("\n")]
        # A blank line inside a block (e.g. in <pre>) separates paragraphs there too.
        chunk: list[str] = []
        for line in lines + [""]:
            if line:
                chunk.append(line)
            elif chunk:
                paragraphs.append("\n".join(chunk))
                chunk = []
    return "\n\n".join(paragraphs) + ("\n" if paragraphs else "")
