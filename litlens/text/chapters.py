"""Chapters from heading paragraphs.

A heading is a short paragraph (at most four short lines) whose first line reads like one:

* **part** level: "BOOK II", "PART ONE", "Part Two", "VOLUME I", "PART I: MOSQUE";
* **chapter** level: "CHAPTER IV", "Chapter 4.", "Chapter the Fourth",
  "CHAPTER XII. The Wedding", "CHAPTER" with the number on the next line;
* **number** level: a bare numeral, "IV.", "XII", "12", "I.—THE START".

Bare numerals are only trusted when the book has no CHAPTER headings and they run in
sequence (at least three, each one to three more than the last, starting again at one
only after a part heading), so a lone "I." in dialogue does not start a chapter.
Headings of a table of contents (a heading directly followed by another heading of the
same level, whose number comes again later) are not chapters.

Chapters are the finest level found; part headings prefix their titles
("BOOK II / CHAPTER III") and a part with no chapters inside is a chapter itself. Text
before the first heading, when not blank, is front matter: a chapter titled "".
Chapters tile the text: each ends where the next starts, the last at ``len(text)``.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass, replace

from litlens.model import Chapter, Paragraph

_MAX_LINES = 4
_MAX_LINE_CHARS = 100
_MAX_HEADING_CHARS = 160
_MAX_LONG_LINES = 6  # a heading whose first line is complete may carry a long title
_MAX_LONG_HEADING_CHARS = 400

# Roman numerals (the patterns below ignore case; _bare_ok wants bare ones in capitals).
_ROMAN = r"(?=[IVXLCDM]+\b)M{0,3}(?:CM|CD|D?C{0,3})(?:XC|XL|L?X{0,3})(?:IX|IV|V?I{0,3})"
_UNITS = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
          "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen",
          "eighteen", "nineteen"]
_TENS = ["", "", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"]
_ORDINAL_UNITS = ["zeroth", "first", "second", "third", "fourth", "fifth", "sixth", "seventh",
                  "eighth", "ninth", "tenth", "eleventh", "twelfth", "thirteenth", "fourteenth",
                  "fifteenth", "sixteenth", "seventeenth", "eighteenth", "nineteenth"]
_ORDINAL_TENS = ["", "", "twentieth", "thirtieth", "fortieth", "fiftieth", "sixtieth",
                 "seventieth", "eightieth", "ninetieth"]


def _number_words() -> dict[str, int]:
    words: dict[str, int] = {}
    for n in range(1, 100):
        tens, unit = divmod(n, 10)
        if n < 20:
            card, ordi = _UNITS[n], _ORDINAL_UNITS[n]
        elif unit == 0:
            card, ordi = _TENS[tens], _ORDINAL_TENS[tens]
        else:
            card, ordi = f"{_TENS[tens]}-{_UNITS[unit]}", f"{_TENS[tens]}-{_ORDINAL_UNITS[unit]}"
        words[card] = words[ordi] = n
    return words


_WORDS = _number_words()
_WORD_NUM = "|".join(sorted((re.escape(w).replace(r"\-", r"[- ]") for w in _WORDS), key=len, reverse=True))
_NUM = rf"(?:{_ROMAN}|\d{{1,3}}|(?:the\s+)?(?:{_WORD_NUM}))"
_DELIM = r"(?:\s*(?:[.:]|—|–|--?)\s*|\s+(?=[A-Z\"'“‘(\[_]))"

_PART = re.compile(rf"^(?:BOOK|PART|VOLUME|VOL\.)\s+(?P<num>{_NUM})(?P<rest>(?:{_DELIM}.*)?)$", re.IGNORECASE)
_CHAPTER = re.compile(rf"^(?:CHAPTER\s+|CHAP\.\s*)(?P<num>{_NUM})(?P<rest>(?:{_DELIM}.*)?)$", re.IGNORECASE)
_BARE = re.compile(rf"^(?P<num>{_ROMAN}|\d{{1,3}}|(?:{_WORD_NUM}))(?P<rest>(?:\s*(?:[.:]|—|–|--?)\s*.*)?)$",
                   re.IGNORECASE)
_KEYWORD_CASE = re.compile(r"^(?:[A-Z][A-Z.]*|[A-Z][a-z.]*)\b")  # "CHAPTER" / "Chapter", not "chapter"
_ANY_HEADING_LINE = re.compile(r"^(?:CHAPTER|Chapter|BOOK|Book|PART|Part|VOLUME|Volume)\s")

_MIN_SEQUENCE = 3  # bare numerals count as headings only when at least this many run in sequence
_MAX_JUMP = 3  # a missing heading or two may be skipped in a numbered sequence
_LOOK_BACK = 50  # numerals looked back at for the one a numeral continues (bounds the cost)


@dataclass(frozen=True)
class _Heading:
    paragraph: int  # position in the paragraph list
    start: int
    level: str  # "part", "chapter" or "number"
    number: int | None
    text: str  # as printed, lines joined by one space


def find_chapters(text: str, paragraphs: list[Paragraph]) -> list[Chapter]:
    """Chapters of ``text`` from its heading paragraphs; see the module docstring."""
    if not text.strip():
        return []
    headings = [h for i, p in enumerate(paragraphs) if (h := _heading(text, p, i)) is not None]
    headings = _drop_contents_lists(headings)
    headings = _keep_levels(headings)
    units = _units(headings)
    return _tile(text, units)


def assign_chapters(paragraphs: list[Paragraph], chapters: list[Chapter]) -> list[Paragraph]:
    """Copies of ``paragraphs`` with ``chapter`` set to the chapter holding their start."""
    starts = [c.start for c in chapters]
    out = []
    for p in paragraphs:
        i = bisect.bisect_right(starts, p.start) - 1
        out.append(replace(p, chapter=chapters[i].index if i >= 0 else None))
    return out


# -------------------------------------------------------------- recognising


def _heading(text: str, p: Paragraph, index: int) -> _Heading | None:
    raw = text[p.start : p.end]
    if len(raw) > _MAX_LONG_HEADING_CHARS * 2:
        return None
    lines = [" ".join(line.split()) for line in raw.split("\n")]
    lines = [line for line in lines if line]
    if not lines or len(lines) > _MAX_LONG_LINES or any(len(line) > _MAX_LINE_CHARS for line in lines):
        return None
    if sum(1 for line in lines if _ANY_HEADING_LINE.match(line)) > 1:
        return None  # several headings in one paragraph: a contents list
    flat = " ".join(lines)
    short = len(lines) <= _MAX_LINES and len(flat) <= _MAX_HEADING_CHARS
    for level, pattern in (("chapter", _CHAPTER), ("part", _PART)):
        # A short paragraph may spread its heading over lines ("CHAPTER" / "1"); a long
        # one (a chapter with a long descriptive title) must start with a whole heading.
        m = pattern.match(flat) if short else None
        if not short and pattern.match(lines[0]) and len(flat) <= _MAX_LONG_HEADING_CHARS:
            m = pattern.match(flat)
        if m and m.group("num") and _KEYWORD_CASE.match(flat) and _plausible_rest(m.group("rest")):
            return _Heading(index, p.start, level, parse_number(m.group("num")), flat)
    m = _BARE.match(lines[0]) if short else None
    if m and m.group("num") and _bare_ok(m.group("num"), m.group("rest"), lines):
        return _Heading(index, p.start, "number", parse_number(m.group("num")), flat)
    return None


def _plausible_rest(rest: str) -> bool:
    """The words after "CHAPTER IV" are a title, not the rest of a sentence."""
    rest = rest.strip(" .:—–-")
    if not rest:
        return True
    if rest[0].islower():
        return False
    # Prose ends with a full stop after a lower-case word; titles rarely do.
    return not re.search(r"[a-z]{3,}[.!?]$", rest) or len(rest.split()) <= 8 or rest.isupper()


def _bare_ok(num: str, rest: str, lines: list[str]) -> bool:
    """A bare numeral line: alone, or followed by a delimiter and a short title."""
    if num.isalpha() and not num.isupper():
        return False  # "one." or "vi" in lower case is a word, not a heading
    title = rest.strip(" .:—–-")
    if not title:
        return len(lines) <= 2
    return len(lines) <= 2 and len(title) <= 70 and not title[0].islower()


def parse_number(token: str) -> int | None:
    """Value of a heading number: roman, arabic or English words ("the Fourth" -> 4)."""
    token = token.strip()
    if token.isdigit():
        return int(token)
    lowered = re.sub(r"^the\s+", "", token.lower())
    lowered = re.sub(r"\s+", "-", lowered)
    if lowered in _WORDS:
        return _WORDS[lowered]
    return _roman_value(token)


def _roman_value(token: str) -> int | None:
    values = {"i": 1, "v": 5, "x": 10, "l": 50, "c": 100, "d": 500, "m": 1000}
    token = token.lower()
    if not token or any(ch not in values for ch in token):
        return None
    total = 0
    for ch, nxt in zip(token, token[1:] + " ", strict=True):
        v = values[ch]
        total += -v if nxt in values and values[nxt] > v else v
    return total


# ------------------------------------------------------------- filtering


def _drop_contents_lists(headings: list[_Heading]) -> list[_Heading]:
    """Drop headings of a contents list: followed at once by a same-level heading, and repeated later."""
    keep = []
    for k, h in enumerate(headings):
        nxt = headings[k + 1] if k + 1 < len(headings) else None
        adjacent = nxt is not None and nxt.paragraph == h.paragraph + 1 and nxt.level == h.level
        repeated = any(later.level == h.level and later.number == h.number for later in headings[k + 1 :])
        if adjacent and repeated and h.number is not None:
            continue
        keep.append(h)
    return keep


def _keep_levels(headings: list[_Heading]) -> list[_Heading]:
    """Keep part and chapter headings; bare numerals only as a sequence, when no CHAPTER headings."""
    has_chapters = sum(1 for h in headings if h.level == "chapter") >= 2
    if has_chapters:
        return [h for h in headings if h.level != "number"]
    sequence = _numbered_sequence(headings)
    if len(sequence) < _MIN_SEQUENCE:
        sequence = set()
    return [h for h in headings if h.level != "number" or h.paragraph in sequence]


def _numbered_sequence(headings: list[_Heading]) -> set[int]:
    """Paragraphs of the longest run of numerals that go up by one to three (or restart at
    one after a part heading); stray numerals elsewhere do not break it."""
    numbered = [h for h in headings if h.level == "number" and h.number is not None]
    parts = [h.paragraph for h in headings if h.level == "part"]
    length = [1] * len(numbered)
    before: list[int | None] = [None] * len(numbered)
    for i, h in enumerate(numbered):
        for j in range(max(0, i - _LOOK_BACK), i):
            if length[j] + 1 > length[i] and _follows(numbered[j], h, parts):
                length[i], before[i] = length[j] + 1, j
    if not numbered:
        return set()
    k: int | None = max(range(len(numbered)), key=lambda i: (length[i], -i))
    kept: set[int] = set()
    while k is not None:
        kept.add(numbered[k].paragraph)
        k = before[k]
    return kept


def _follows(previous: _Heading, h: _Heading, parts: list[int]) -> bool:
    if previous.number is None or h.number is None:
        return False
    if previous.number < h.number <= previous.number + _MAX_JUMP:
        return True
    return h.number == 1 and any(previous.paragraph < p < h.paragraph for p in parts)


# --------------------------------------------------------------- assembly


def _units(headings: list[_Heading]) -> list[tuple[int, str]]:
    """(start, title) of each chapter unit; parts prefix the titles of their chapters."""
    units: list[tuple[int, str]] = []
    part: str | None = None
    pending_start: int | None = None  # a part heading waiting for its first chapter
    for k, h in enumerate(headings):
        nxt = headings[k + 1] if k + 1 < len(headings) else None
        if h.level == "part":
            part = h.text
            if nxt is not None and nxt.level != "part":
                pending_start = h.start
            else:
                units.append((h.start, h.text))
                pending_start = None
            continue
        start = pending_start if pending_start is not None else h.start
        pending_start = None
        units.append((start, f"{part} / {h.text}" if part else h.text))
    return units


def _tile(text: str, units: list[tuple[int, str]]) -> list[Chapter]:
    if not units:
        return [Chapter(index=0, title="", start=0, end=len(text))]
    if text[: units[0][0]].strip():
        units = [(0, ""), *units]
    else:
        units = [(0, units[0][1]), *units[1:]]
    chapters = []
    for i, (start, title) in enumerate(units):
        end = units[i + 1][0] if i + 1 < len(units) else len(text)
        chapters.append(Chapter(index=i, title=title, start=start, end=end))
    return chapters
