"""The analysis pipeline: raw text -> structure -> quotations -> characters."""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass

from litlens.model import Cancelled, Character, Progress, Quotation, RawBook, Structure
from litlens.quotes.characters import discover_characters
from litlens.quotes.detect import detect_quotations
from litlens.services.progress import check_cancelled, sub_progress
from litlens.text import build_structure

# Bump when a stage changes what it produces, so stored books can say how they were made.
PIPELINE_VERSION = "1"

_WORD = re.compile(r"\w+(?:['’]\w+)*")


@dataclass
class AnalysedBook:
    raw: RawBook
    structure: Structure
    quotations: list[Quotation]
    characters: list[Character]
    sha256: str
    word_count: int


def text_sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def count_words(text: str) -> int:
    return sum(1 for _ in _WORD.finditer(text))


def analyse(
    raw: RawBook,
    *,
    progress: Progress | None = None,
    cancelled: Cancelled | None = None,
) -> AnalysedBook:
    """Run every stage on a book's text. Raises :class:`litlens.errors.Cancelled`."""
    structure = build_structure(raw.text, progress=sub_progress(progress, 0.0, 0.85), cancelled=cancelled)
    check_cancelled(cancelled, "ingest")
    if progress:
        progress(0.85, "finding quotations")
    quotations = detect_quotations(raw.text, structure.paragraphs, structure.chapters, structure.persons)
    check_cancelled(cancelled, "ingest")
    if progress:
        progress(0.93, "discovering characters")
    characters = discover_characters(raw.text, structure.persons, quotations)
    if progress:
        progress(1.0, "analysed")
    return AnalysedBook(
        raw=raw,
        structure=structure,
        quotations=quotations,
        characters=characters,
        sha256=text_sha256(raw.text),
        word_count=count_words(raw.text),
    )
