"""Judgment CSV files: read any ``item_id,annotator,label`` CSV with located errors.

Extra columns are ignored. Labels that all look like integers are read as integers
(so a 1–5 scale sorts as numbers). Duplicate (item, annotator) rows, empty cells,
labels outside a given scale and non-numeric labels for ordinal/interval data are
errors naming the line.
"""

from __future__ import annotations

import csv
from dataclasses import dataclass
from pathlib import Path

from litlens.errors import DataFormatError, InputFileError

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
        lo, hi = text.split("-", 1) if not text.startswith("-") else (text, "")
        try:
            return list(range(int(lo), int(hi) + 1))
        except ValueError:
            pass
    return [parse_label(t) for t in text.split(",") if t.strip()]


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
    with open(path, newline="", encoding="utf-8-sig") as fh:
        reader = csv.DictReader(fh)
        header = reader.fieldnames or []
        missing = [c for c in REQUIRED if c not in header]
        if missing:
            raise DataFormatError(
                path, 1, f"missing column(s) {', '.join(missing)} (found: {', '.join(header) or 'nothing'})",
                "The first line must name the columns item_id,annotator,label (extra columns are ignored)",
            )
        for record in reader:
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
