"""Plain data passed between pipeline stages.

Every unit carries character offsets ``[start, end)`` into the stored text of
its book, so any span can be shown and exported exactly.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Literal

QuoteType = Literal["explicit", "anaphoric", "implicit"]
QUOTE_TYPES: tuple[QuoteType, ...] = ("explicit", "anaphoric", "implicit")
Gender = Literal["female", "male", "nonbinary", "unknown"]

# The entry discovery adds for the narrator of a first-person book who is never named
# (litlens.quotes.narrator); the attributor takes a character of this name as the narrator.
NARRATOR = "Narrator"

# progress(fraction in [0, 1], message); cancelled() -> True when the user gave up.
Progress = Callable[[float, str], None]
Cancelled = Callable[[], bool]


@dataclass(frozen=True)
class RawBook:
    """A book's narrative text after ingest and cleaning, with what we know of it."""

    text: str
    source_path: str
    format: str  # "txt", "gutenberg-txt", "html", "gutenberg-html", "epub"
    encoding: str  # the encoding the file was decoded with ("utf-8", "utf-8-sig", "cp1252", ...)
    title: str | None = None
    author: str | None = None
    notes: tuple[str, ...] = ()  # what ingest did that a user may want to know


@dataclass(frozen=True)
class Chapter:
    index: int  # 0-based position in the book
    title: str  # the heading as printed ("CHAPTER IV.") or "" for front matter
    start: int
    end: int


@dataclass(frozen=True)
class Paragraph:
    index: int
    start: int
    end: int
    chapter: int | None  # Chapter.index


@dataclass(frozen=True)
class Sentence:
    index: int
    start: int
    end: int
    paragraph: int  # Paragraph.index
    chapter: int | None


@dataclass(frozen=True)
class EntityMention:
    """A named-entity mention found by the NLP pass (PERSON only is kept)."""

    start: int
    end: int
    text: str
    label: str = "PERSON"


@dataclass(frozen=True)
class Structure:
    chapters: list[Chapter]
    paragraphs: list[Paragraph]
    sentences: list[Sentence]
    persons: list[EntityMention]


@dataclass
class Quotation:
    """One quotation of direct speech; interrupted speech has several spans.

    ``spans`` exclude the quote marks, like PDNC's ``quoteByteSpans``.
    """

    spans: list[tuple[int, int]]
    type: QuoteType = "implicit"
    referring_expression: str | None = None
    cue_span: tuple[int, int] | None = None  # offsets of the referring expression
    speaker: str | None = None  # a character's main name
    speaker_confidence: float | None = None
    addressees: list[str] = field(default_factory=list)
    chapter: int | None = None
    source_id: str | None = None  # e.g. the PDNC quoteID
    origin: str = "detected"  # "detected", "gold" or "human" (marked by a user)
    edited: bool = False  # a user corrected its type, speaker or spans

    @property
    def start(self) -> int:
        return self.spans[0][0]

    @property
    def end(self) -> int:
        return self.spans[-1][1]


@dataclass
class Character:
    name: str  # main name
    aliases: list[str]  # includes the main name
    gender: Gender = "unknown"
    mention_count: int = 0
    quote_count: int = 0
    category: str | None = None  # PDNC: major / intermediate / minor
    ambiguous_aliases: list[str] = field(default_factory=list)  # e.g. "Miss Bennet"
    source_id: str | None = None
