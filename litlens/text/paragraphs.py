"""Paragraphs, in the three ways plain-text books lay them out.

Most books (Project Gutenberg's among them) wrap their lines and put a blank line between
paragraphs. Others put each paragraph on one long line, with or without blank lines, or
wrap their lines and mark a new paragraph only by indenting its first line.
:func:`paragraph_layout` tells which from the lines themselves.
"""

from __future__ import annotations

import re
from typing import Literal

from litlens.model import Paragraph

Layout = Literal["blank", "line", "indent"]

_BLANK_RUN = re.compile(r"\n[ \t\r\f\v]*\n\s*")
_LINE_BREAK = re.compile(r"\n\s*")
# A blank line, or a line break before an indented line that does not go on in lower case
# (a paragraph does not open with a small letter; " said Marilla" is a wrapped line that a
# stray space happens to indent).
_BLANK_OR_INDENT = re.compile(r"\n[ \t\r\f\v]*\n\s*|\n(?=[ \t]+\S)(?![ \t]+[a-z])\s*")

_NONEMPTY_LINE = re.compile(r"^[ \t\r\f\v]*\S", re.MULTILINE)
_INDENTED_LINE = re.compile(r"^[ \t]+\S", re.MULTILINE)
_LONG = re.compile(r"^[^\n]{161,}", re.MULTILINE)  # longer than any line a wrapping book prints
_UNWRAPPED = 0.05  # share of long lines that shows paragraphs are not wrapped
_FEW_BLANKS = 0.05  # blank lines per line below which blank lines do not separate paragraphs
_INDENTED = 0.05  # share of indented lines that shows indentation marks paragraphs


def paragraph_layout(text: str) -> Layout:
    """How ``text`` separates its paragraphs.

    ``"line"``: one paragraph per line (a twentieth of the lines or more run past 160
    characters, which no wrapping book prints; blank lines between them change nothing).
    ``"indent"``: wrapped lines, hardly any blank lines (under one per twenty lines), and
    a twentieth of the lines or more indented: a paragraph starts at each indented line.
    ``"blank"``: otherwise, paragraphs are separated by blank lines. On the 20 PDNC novels
    (all ``"blank"``) no line is longer than 78 characters and there are 0.14 to 0.49 blank
    lines per line.
    """
    lines = _count(_NONEMPTY_LINE, text)
    if not lines:
        return "blank"
    if _count(_LONG, text) >= _UNWRAPPED * lines:
        return "line"
    if lines >= 20 and _count(_BLANK_RUN, text) < _FEW_BLANKS * lines and _count(_INDENTED_LINE, text) >= _INDENTED * lines:
        return "indent"
    return "blank"


def _count(pattern: re.Pattern[str], text: str) -> int:
    return sum(1 for _ in pattern.finditer(text))


def find_paragraphs(text: str, layout: Layout | None = None) -> list[Paragraph]:
    """Split ``text`` into paragraphs with offsets that exclude surrounding whitespace.

    ``layout`` defaults to :func:`paragraph_layout`. ``chapter`` is left ``None``;
    :func:`litlens.text.chapters.assign_chapters` fills it.
    """
    gaps = {"blank": _BLANK_RUN, "line": _LINE_BREAK, "indent": _BLANK_OR_INDENT}[layout or paragraph_layout(text)]
    paragraphs: list[Paragraph] = []
    pos = 0
    for gap in gaps.finditer(text):
        _append(text, pos, gap.start(), paragraphs)
        pos = gap.end()
    _append(text, pos, len(text), paragraphs)
    return paragraphs


def _append(text: str, start: int, end: int, out: list[Paragraph]) -> None:
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    if end > start:
        out.append(Paragraph(index=len(out), start=start, end=end, chapter=None))
