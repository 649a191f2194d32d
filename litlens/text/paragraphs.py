"""Paragraphs: runs of non-blank lines separated by one or more blank lines."""

from __future__ import annotations

import re

from litlens.model import Paragraph

_BLANK_RUN = re.compile(r"\n[ \t\r\f\v]*\n\s*")


def find_paragraphs(text: str) -> list[Paragraph]:
    """Split ``text`` into paragraphs with offsets that exclude surrounding whitespace.

    ``chapter`` is left ``None``; :func:`litlens.text.chapters.assign_chapters` fills it.
    """
    paragraphs: list[Paragraph] = []
    pos = 0
    for gap in _BLANK_RUN.finditer(text):
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
