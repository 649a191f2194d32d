"""A book, its quotations and its characters in the Project Dialogism Novel Corpus's files.

PDNC's conventions, which :mod:`litlens.quotes.pdnc` reads back:

- ``novel_text.txt``: the text; every offset is a character offset into it.
- ``quotation_info.csv``: every field quoted, rows ending in CRLF (newlines inside a field
  stay LF), columns ``quoteID, quoteText,
  subQuotationList, quoteByteSpans, speaker, addressees, quoteType, referringExpression,
  mentionTextsList, mentionSpansList, mentionEntitiesList``. ``quoteText`` is the
  sub-quotations joined by one space; lists are Python literals; a missing value is ``nan``;
  types are capitalised (``Explicit``). LitLens keeps no mentions inside quotations, so the
  three mention columns hold one empty list per sub-quotation.
- ``character_info.csv``: ``Character ID, Main Name, Aliases, Gender, Category``, LF line
  ends, quoted only where needed, in id order; aliases a Python set literal (main name first),
  gender ``F`` / ``M`` / ``N`` / ``X`` (unknown).

Cells are written as they are (no spreadsheet escaping): these files are for PDNC tools.
Quotation and character ids are kept when the book came from PDNC; the others get the next
free ``Q<n>`` / integer.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Sequence
from dataclasses import dataclass

from litlens.model import Character, Quotation
from litlens.quotes.pdnc import CHARACTER_COLUMNS

QUOTATION_INFO_COLUMNS = (
    "quoteID", "quoteText", "subQuotationList", "quoteByteSpans", "speaker", "addressees",
    "quoteType", "referringExpression", "mentionTextsList", "mentionSpansList", "mentionEntitiesList",
)
MISSING = "nan"
_GENDER = {"female": "F", "male": "M", "nonbinary": "N", "unknown": "X"}


@dataclass(frozen=True)
class PdncFiles:
    novel_text: str
    quotation_info: str
    character_info: str
    quotations: int
    characters: int


def _ids(existing: Sequence[str | None], make) -> list[str]:
    """Keep each unique existing id; give the rest the next free one from ``make(n)``."""
    seen: set[str] = set()
    keep: list[str | None] = []
    for ident in existing:
        ident = (ident or "").strip()
        if ident and ident not in seen:
            seen.add(ident)
            keep.append(ident)
        else:
            keep.append(None)
    out: list[str] = []
    n = 0
    for ident in keep:
        if ident is None:
            while make(n) in seen:
                n += 1
            ident = make(n)
            seen.add(ident)
        out.append(ident)
    return out


def _py_list(items: Sequence[object]) -> str:
    return "[" + ", ".join(repr(x) for x in items) + "]"


def quotation_info_csv(text: str, quotations: Sequence[Quotation]) -> str:
    """``quotation_info.csv`` of ``quotations`` (written in text order)."""
    ordered = sorted(quotations, key=lambda q: (q.start, q.end))
    ids = _ids([q.source_id for q in ordered], lambda n: f"Q{n}")
    buffer = io.StringIO()
    writer = csv.writer(buffer, quoting=csv.QUOTE_ALL, lineterminator="\r\n")
    writer.writerow(QUOTATION_INFO_COLUMNS)
    for ident, q in zip(ids, ordered):
        spans = sorted(q.spans)
        pieces = [text[s:e] for s, e in spans]
        empty = _py_list([[] for _ in spans])
        writer.writerow([
            ident,
            " ".join(pieces),
            _py_list(pieces),
            _py_list([[s, e] for s, e in spans]),
            q.speaker or MISSING,
            _py_list(list(dict.fromkeys(q.addressees))),
            q.type.capitalize() if q.type else MISSING,
            q.referring_expression or MISSING,
            empty,
            empty,
            empty,
        ])
    return buffer.getvalue()


def character_info_csv(characters: Sequence[Character]) -> str:
    """``character_info.csv`` of ``characters`` (in the order given)."""
    ids = _ids([c.source_id for c in characters], str)
    rows = sorted(zip(ids, characters), key=lambda row: (0, int(row[0])) if row[0].isdigit() else (1, 0))
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(CHARACTER_COLUMNS)
    for ident, c in rows:
        aliases = [c.name] + [a for a in dict.fromkeys(c.aliases) if a != c.name]
        writer.writerow([
            ident,
            c.name,
            "{" + ", ".join(repr(a) for a in aliases) + "}",
            _GENDER.get(c.gender, "X"),
            c.category or MISSING,
        ])
    return buffer.getvalue()


def pdnc_files(text: str, quotations: Sequence[Quotation], characters: Sequence[Character]) -> PdncFiles:
    """The three files of a PDNC novel folder, as strings."""
    return PdncFiles(
        novel_text=text,
        quotation_info=quotation_info_csv(text, quotations),
        character_info=character_info_csv(characters),
        quotations=len(quotations),
        characters=len(characters),
    )
