"""Judgment CSV files: read any ``item_id,annotator,label`` CSV with located errors.

Extra columns are ignored. Labels that all look like integers are read as integers
(so a 1–5 scale sorts as numbers). Duplicate (item, annotator) rows, empty cells,
labels outside a given scale and non-numeric labels for ordinal/interval data are
errors naming the line.
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass
from pathlib import Path

from litlens.errors import DataFormatError, InputFileError, LitLensError
from litlens.text.datafile import read_data_text

REQUIRED = ("item_id", "annotator", "label")


@dataclass(frozen=True)
class JudgmentRow:
    line: int
    item_id: str
    annotator: str
    label: object
    extra: dict


def parse_label(text: str) -> object:
    text = text.strip()
    try:
        return int(text)
    except ValueError:
        pass
    try:
        value = float(text)
    except ValueError:
        return text
    return int(value) if value.is_integer() else value


def parse_scale(text: str | None) -> list | None:
    """``"1-5"`` → [1..5]; ``"a,b,c"`` → ["a","b","c"]; None → None."""
    if not text:
        return None
    text = text.strip()
    if "," not in text and "-" in text[1:]:
        cut = text.index("-", 1)  # "1-5", "-2-2"
        lo, hi = text[:cut], text[cut + 1:]
        try:
            low, high = int(lo), int(hi)
        except ValueError:
            pass
        else:
            if low > high:
                raise LitLensError(f"--scale {text}: a range goes from the lowest label to the highest; "
                                   f"write {high}-{low}")
            if low < high:
                return list(range(low, high + 1))
    labels = [parse_label(t) for t in text.split(",") if t.strip()]
    if len(labels) < 2 or len(set(labels)) != len(labels):
        raise LitLensError(f"--scale {text}: give at least two different labels in order, e.g. 1-5 or low,mid,high")
    return labels


def read_judgments_csv(
    path: str | Path,
    *,
    scale: list | None = None,
    numeric: bool = False,
    allowed_annotators: set[str] | None = None,
) -> list[JudgmentRow]:
    """Read judgments; raise :class:`DataFormatError` with the line of the first problem."""
    path = Path(path)
    if not path.is_file():
        raise InputFileError(path, "no such judgments file", "Check the path (a CSV with columns item_id,annotator,label)")
    rows: list[JudgmentRow] = []
    seen: dict[tuple[str, str], int] = {}
    scale_set = set(scale) if scale is not None else None
    text = read_data_text(path, "judgments CSV", "Pass a CSV with the columns item_id,annotator,label")
    with io.StringIO(text, newline="") as fh:
        reader = csv.DictReader(fh)
        try:
            header = reader.fieldnames or []
        except csv.Error as exc:
            raise DataFormatError(path, 1, f"the header cannot be read as CSV ({exc})") from None
        missing = [c for c in REQUIRED if c not in header]
        if missing:
            raise DataFormatError(
                path, 1, f"missing column(s) {', '.join(missing)} (found: {', '.join(header) or 'nothing'})",
                "The first line must name the columns item_id,annotator,label (extra columns are ignored)",
            )
        for record in _records(path, reader):
            line = reader.line_num
            if None in record:
                raise DataFormatError(path, line, "more cells than header columns", "Quote cells that contain commas")
            values = {c: (record.get(c) or "").strip() for c in REQUIRED}
            empty = [c for c in REQUIRED if not values[c]]
            if empty:
                raise DataFormatError(path, line, f"empty {', '.join(empty)}", "Every row needs an item_id, an annotator and a label")
            label = parse_label(values["label"])
            if scale_set is not None and label not in scale_set:
                raise DataFormatError(path, line, f"label {values['label']!r} is outside the scale {scale}",
                                      "Use one of the scale's values, or pass the right --scale")
            if numeric and not isinstance(label, (int, float)):
                raise DataFormatError(path, line, f"label {values['label']!r} is not a number",
                                      "Ordinal and interval agreement need numeric labels (or pass --scale to order them)")
            if allowed_annotators is not None and values["annotator"] not in allowed_annotators:
                raise DataFormatError(path, line, f"unknown annotator {values['annotator']!r}",
                                      f"Known annotators: {', '.join(sorted(allowed_annotators))}")
            key = (values["item_id"], values["annotator"])
            if key in seen:
                raise DataFormatError(
                    path, line, f"duplicate judgment: {key[1]} already rated item {key[0]} on line {seen[key]}",
                    "Keep one judgment per annotator and item (export the final answers, or merge with `litlens study merge`)",
                )
            seen[key] = line
            extra = {k: v for k, v in record.items() if k not in REQUIRED}
            rows.append(JudgmentRow(line, values["item_id"], values["annotator"], label, extra))
    if not rows:
        raise DataFormatError(path, None, "no judgments in the file", "Add rows item_id,annotator,label below the header")
    return rows


def _records(path: Path, reader: csv.DictReader):
    """The reader's rows; a row the csv module cannot parse is an error naming its line."""
    while True:
        try:
            yield next(reader)
        except StopIteration:
            return
        except csv.Error as exc:
            raise DataFormatError(path, reader.line_num, f"the row cannot be read as CSV ({exc})",
                                  "Check the quoting of this row's cells") from None
