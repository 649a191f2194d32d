"""CSV files that are safe to open in a spreadsheet.

A spreadsheet runs a cell that starts with ``=``, ``+``, ``-`` or ``@`` (and, in some,
a tab or carriage return) as a formula, so a quotation like "- and then?" or an
annotator's note "=HYPERLINK(…)" in an export could become one ("CSV injection").
Every text cell we write that starts that way is prefixed with ``'``, which spreadsheets
show as plain text; numbers are written as they are (a negative score stays a number). A cell
that already starts with ``'`` ("'Tis true") gets one too, so that reading our own CSV back
(``study merge``) can strip exactly one and get every value as it was; a spreadsheet hides
the added one and shows "'Tis true" (without it, it would hide the text's own).
"""

from __future__ import annotations

import csv
import os
from collections.abc import Iterable, Sequence
from pathlib import Path

from litlens.errors import InputFileError

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
_ESCAPED_STARTS = (*FORMULA_STARTS, "'")


def safe_cell(value: object) -> object:
    """``value`` as a CSV cell a spreadsheet shows as text, never runs; None becomes ''."""
    if value is None:
        return ""
    if isinstance(value, str) and value.startswith(_ESCAPED_STARTS):
        return "'" + value
    return value


def unescape_cell(text: str) -> str:
    """Undo :func:`safe_cell` on a cell read back from one of our exports."""
    # "'\n" too: only an escaped "'\r" whose line end a reader normalised comes back like that
    # (a cell of ours that starts with "'" followed by anything else had its own "'" doubled).
    if text.startswith("'") and text[1:].startswith((*_ESCAPED_STARTS, "\n")):
        return text[1:]
    return text


def safe_row(row: Iterable[object]) -> list[object]:
    return [safe_cell(v) for v in row]


def write_csv(out_path: str | Path, header: Sequence[str], rows: Iterable[Sequence[object]]) -> int:
    """Write ``rows`` under ``header`` with every cell made safe; atomic (a ``.part`` file
    renamed at the end). Returns the number of rows written."""
    out_path = Path(out_path)
    tmp = out_path.with_name(out_path.name + ".part")
    n = 0
    try:
        with open(tmp, "w", newline="", encoding="utf-8") as fh:
            writer = csv.writer(fh)
            writer.writerow(header)
            for row in rows:
                writer.writerow(safe_row(row))
                n += 1
        os.replace(tmp, out_path)
    except OSError as exc:
        tmp.unlink(missing_ok=True)
        raise InputFileError(out_path, f"cannot write the export ({exc.strerror})",
                             "Choose a writable location with free space") from exc
    return n
