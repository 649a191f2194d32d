"""Read the Project Dialogism Novel Corpus (PDNC) annotation files.

``quotation_info.csv`` has one row per quotation: ``quoteID``, ``quoteByteSpans`` (a
Python list literal of ``[start, end]`` character offsets into ``novel_text.txt``, one per
sub-quotation, quote marks excluded), ``speaker``, ``addressees`` (a Python list literal),
``quoteType`` (``Explicit`` / ``Anaphoric`` / ``Implicit``; a few rows have it empty or
``nan``) and ``referringExpression`` (``nan`` or empty when there is none).

``character_info.csv`` has ``Character ID, Main Name, Aliases, Gender, Category`` where
``Aliases`` is a Python set or list literal of strings.

Fields may hold newlines, so one row can span several physical lines; every error names
the physical line on which the offending row starts, what is wrong and how to fix it. Bad
rows are never dropped silently: the ``read_*`` functions raise the first
:class:`~litlens.errors.DataFormatError`, the ``collect_*`` functions return every good
row together with one error per bad row, so a caller can report them all at once.
"""

from __future__ import annotations

import ast
import csv
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Literal, TypeVar

from litlens.errors import DataFormatError, InputFileError
from litlens.model import QUOTE_TYPES, Character, Gender, Quotation, QuoteType
from litlens.quotes.types import classify_referring_expression

QUOTATION_COLUMNS = ("quoteID", "quoteByteSpans", "speaker", "addressees", "quoteType", "referringExpression")
CHARACTER_COLUMNS = ("Character ID", "Main Name", "Aliases", "Gender", "Category")

_MISSING = {"", "nan", "none", "null"}
_GENDERS: dict[str, Gender] = {
    "f": "female",
    "female": "female",
    "w": "female",
    "m": "male",
    "male": "male",
    "n": "nonbinary",
    "nb": "nonbinary",
    "non-binary": "nonbinary",
    "nonbinary": "nonbinary",
    # PDNC uses X (unknown, groups, non-persons) and U (unknown).
    "x": "unknown",
    "u": "unknown",
    "unknown": "unknown",
}

UntypedPolicy = Literal["infer", "none"]
T = TypeVar("T")


class _RowError(Exception):
    """A problem with one field of one row; turned into a DataFormatError with the line."""

    def __init__(self, problem: str, fix: str):
        super().__init__(problem)
        self.problem = problem
        self.fix = fix


def _missing(value: str | None) -> bool:
    return value is None or value.strip().lower() in _MISSING


def _rows(path: Path, required: tuple[str, ...]) -> Iterator[tuple[int, dict[str, str] | _RowError]]:
    """Yield ``(first physical line, row dict or error)`` for every non-blank data row."""
    try:
        handle = open(path, encoding="utf-8-sig", newline="")  # noqa: SIM115 - closed by the with below
    except FileNotFoundError:
        raise InputFileError(path, "no such file", "Check the path; a PDNC novel folder holds quotation_info.csv and character_info.csv") from None
    except OSError as exc:
        raise InputFileError(path, f"cannot be opened ({exc.strerror})", "Check the file's permissions") from None
    with handle:
        reader = csv.reader(handle)
        try:
            header = next(reader, None)
        except (csv.Error, UnicodeDecodeError) as exc:
            raise DataFormatError(path, 1, f"the header cannot be read as CSV ({exc})", "Save the file as UTF-8 CSV") from None
        if header is None:
            raise DataFormatError(path, 1, "the file is empty", f"Expected a header with the columns {', '.join(required)}")
        header = [h.strip() for h in header]
        absent = [c for c in required if c not in header]
        if absent:
            raise DataFormatError(
                path,
                1,
                f"missing required column(s) {', '.join(absent)} (the header has {', '.join(header) or 'no columns'})",
                f"Add the column(s) to the header line; a PDNC file has {', '.join(required)}",
            )
        start = reader.line_num + 1
        while True:
            try:
                row = next(reader)
            except StopIteration:
                return
            except UnicodeDecodeError as exc:
                raise DataFormatError(path, start, f"the file is not valid UTF-8 ({exc.reason})", "Re-save the file as UTF-8") from None
            except csv.Error as exc:
                yield start, _RowError(f"the row cannot be parsed as CSV ({exc})", "Check the quoting of this row's fields")
                start = reader.line_num + 1
                continue
            line = start
            start = reader.line_num + 1
            if not row or all(not cell.strip() for cell in row):
                continue
            if len(row) != len(header):
                yield line, _RowError(
                    f"the row has {len(row)} fields but the header has {len(header)}",
                    'Quote fields that contain commas or newlines with double quotes ("...")',
                )
                continue
            yield line, dict(zip(header, row))


def _collect(
    path: str | Path, required: tuple[str, ...], parse: Callable[[dict[str, str]], T]
) -> tuple[list[tuple[int, T]], list[DataFormatError]]:
    path = Path(path)
    items: list[tuple[int, T]] = []
    errors: list[DataFormatError] = []
    for line, row in _rows(path, required):
        if isinstance(row, _RowError):
            errors.append(DataFormatError(path, line, row.problem, row.fix))
            continue
        try:
            items.append((line, parse(row)))
        except _RowError as exc:
            errors.append(DataFormatError(path, line, exc.problem, exc.fix))
    return items, errors


def _literal(value: str, column: str, example: str) -> object:
    try:
        return ast.literal_eval(value.strip())
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        raise _RowError(f"{column} is not a Python literal: {value[:60]!r}", f"Write it like {example}") from None


def _spans(value: str) -> list[tuple[int, int]]:
    example = "[[395, 414], [447, 499]]"
    parsed = _literal(value, "quoteByteSpans", example)
    if not isinstance(parsed, (list, tuple)) or not parsed:
        raise _RowError(f"quoteByteSpans must be a non-empty list of [start, end] pairs, got {value[:60]!r}", f"Write it like {example}")
    spans: list[tuple[int, int]] = []
    for pair in parsed:
        if (
            not isinstance(pair, (list, tuple))
            or len(pair) != 2
            or not all(isinstance(x, int) and not isinstance(x, bool) for x in pair)
        ):
            raise _RowError(f"quoteByteSpans has an entry that is not a [start, end] pair of integers: {pair!r}", f"Write it like {example}")
        start, end = pair
        if start < 0 or end <= start:
            raise _RowError(f"quoteByteSpans has an empty or reversed span [{start}, {end}]", "Each span needs 0 <= start < end")
        spans.append((start, end))
    return sorted(spans)


def _string_list(value: str, column: str) -> list[str]:
    """A Python list/set/tuple literal of strings, in the order written ([] when empty/nan)."""
    if _missing(value):
        return []
    example = "['Mr. Bennet', 'Jane']" if column == "addressees" else "{'Elizabeth', 'Lizzy'}"
    try:
        node = ast.parse(value.strip(), mode="eval").body
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        raise _RowError(f"{column} is not a Python list or set literal: {value[:60]!r}", f"Write it like {example}") from None
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value]
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "set" and not node.args:
        return []
    if not isinstance(node, (ast.List, ast.Set, ast.Tuple)):
        raise _RowError(f"{column} is not a Python list or set literal: {value[:60]!r}", f"Write it like {example}")
    out: list[str] = []
    for element in node.elts:
        if not (isinstance(element, ast.Constant) and isinstance(element.value, str)):
            raise _RowError(f"{column} holds something that is not a quoted string: {ast.unparse(element)[:40]!r}", f"Write it like {example}")
        if element.value.strip() and element.value not in out:
            out.append(element.value)
    return out


def _quotation(row: dict[str, str], untyped: UntypedPolicy) -> Quotation:
    quote_id = row["quoteID"].strip()
    if not quote_id:
        raise _RowError("quoteID is empty", "Give every quotation a unique id such as Q17")
    spans = _spans(row["quoteByteSpans"])
    raw_type = row["quoteType"].strip().lower()
    referring = None if _missing(row["referringExpression"]) else row["referringExpression"].strip()
    q_type: QuoteType | None
    if raw_type in QUOTE_TYPES:
        q_type = raw_type  # type: ignore[assignment]
    elif raw_type in _MISSING:
        q_type = classify_referring_expression(referring) if untyped == "infer" else None
    else:
        raise _RowError(
            f"quoteType is {row['quoteType']!r}",
            "Use Explicit, Anaphoric or Implicit (or leave it empty when unknown)",
        )
    speaker = None if _missing(row["speaker"]) else row["speaker"].strip()
    return Quotation(
        spans=spans,
        type=q_type,  # type: ignore[arg-type]  # None only with untyped="none"
        referring_expression=referring,
        speaker=speaker,
        addressees=_string_list(row["addressees"], "addressees"),
        source_id=quote_id,
        origin="gold",
    )


def _character(row: dict[str, str]) -> Character:
    source_id = row["Character ID"].strip()
    if not source_id:
        raise _RowError("Character ID is empty", "Give every character a unique id")
    name = row["Main Name"].strip()
    if _missing(name):
        raise _RowError("Main Name is empty", "Give every character a main name")
    aliases = [name] + [a.strip() for a in _string_list(row["Aliases"], "Aliases") if a.strip() != name]
    gender_raw = row["Gender"].strip().lower()
    gender: Gender = "unknown" if gender_raw in _MISSING else _GENDERS.get(gender_raw, "unknown")
    category = None if _missing(row["Category"]) else row["Category"].strip().lower()
    return Character(name=name, aliases=list(dict.fromkeys(aliases)), gender=gender, category=category, source_id=source_id)


def _unique_ids(path: Path, items: list[tuple[int, T]], key: Callable[[T], str | None], what: str, errors: list[DataFormatError]) -> list[T]:
    first_line: dict[str, int] = {}
    out: list[T] = []
    for line, item in items:
        ident = key(item) or ""
        if ident in first_line:
            errors.append(
                DataFormatError(path, line, f"{what} {ident!r} already appears on line {first_line[ident]}", f"Give every row a unique {what}")
            )
            continue
        first_line[ident] = line
        out.append(item)
    errors.sort(key=lambda e: e.line or 0)
    return out


def collect_pdnc_quotations(
    csv_path: str | Path, *, untyped: UntypedPolicy = "infer"
) -> tuple[list[Quotation], list[DataFormatError]]:
    """Every well-formed quotation of a PDNC ``quotation_info.csv`` and one error per bad row.

    A missing header column still raises (no row can be read without it).
    ``untyped`` decides what a row without a quoteType gets: ``"infer"`` (the default)
    types it from its referring expression (implicit when there is none), so it can be
    stored; ``"none"`` leaves ``type=None`` so that evaluation leaves it out of the type
    accuracy, as PDNC gives no type for it.
    """
    path = Path(csv_path)
    items, errors = _collect(path, QUOTATION_COLUMNS, lambda row: _quotation(row, untyped))
    return _unique_ids(path, items, lambda q: q.source_id, "quoteID", errors), errors


def read_pdnc_quotations(csv_path: str | Path, *, untyped: UntypedPolicy = "infer") -> list[Quotation]:
    """The quotations of a PDNC ``quotation_info.csv`` (``origin="gold"``), in file order.

    Raises :class:`~litlens.errors.DataFormatError` for the first malformed row (with its
    physical line number) or a missing column. See :func:`collect_pdnc_quotations`.
    """
    quotations, errors = collect_pdnc_quotations(csv_path, untyped=untyped)
    if errors:
        raise errors[0]
    return quotations


def collect_pdnc_characters(csv_path: str | Path) -> tuple[list[Character], list[DataFormatError]]:
    """Every well-formed character of a PDNC ``character_info.csv`` and one error per bad row.

    ``aliases`` starts with the main name and keeps the file's order; gender F/M map to
    female/male, X and U (and anything unrecognised) to unknown, N/NB to nonbinary;
    ``category`` is lower-cased (major / intermediate / minor).
    """
    path = Path(csv_path)
    items, errors = _collect(path, CHARACTER_COLUMNS, _character)
    return _unique_ids(path, items, lambda c: c.source_id, "Character ID", errors), errors


def read_pdnc_characters(csv_path: str | Path) -> list[Character]:
    """The characters of a PDNC ``character_info.csv``; raises on the first malformed row."""
    characters, errors = collect_pdnc_characters(csv_path)
    if errors:
        raise errors[0]
    return characters
