"""What every command group of the CLI shares: output helpers and how a command is added."""

from __future__ import annotations

import argparse
import json
import sys
import textwrap
from collections.abc import Callable, Iterator
from contextlib import contextmanager

Handler = Callable[[argparse.Namespace], int]


def emit_json(data: object) -> None:
    sys.stdout.write(json.dumps(data, indent=2, ensure_ascii=False) + "\n")

def table(rows: list[list[object]], header: list[str], width: int | None = None) -> None:
    """A table that stays a table: line breaks in a cell become spaces, and when the rows are
    wider than the terminal the widest columns are cut, each cut cell ending in "…"."""
    import shutil

    cells = [header] + [[" ".join(("" if v is None else str(v)).split()) for v in row] for row in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(header))]
    width = width or shutil.get_terminal_size((120, 24)).columns
    room = width - 2 * (len(widths) - 1)
    while sum(widths) > room and max(widths) > 12:
        widest = widths.index(max(widths))
        widths[widest] = max(12, widths[widest] - (sum(widths) - room))

    def fit(v: str, w: int) -> str:
        return v if len(v) <= w else v[: w - 1] + "…"

    for n, row in enumerate(cells):
        sys.stdout.write("  ".join(fit(v, w).ljust(w) for v, w in zip(row, widths)).rstrip() + "\n")
        if n == 0:
            sys.stdout.write("  ".join("-" * w for w in widths) + "\n")

@contextmanager
def progress_bar(label: str) -> Iterator[Callable[[float, str], None]]:
    """A tqdm bar on stderr driven by progress(fraction, message) callbacks."""
    from tqdm import tqdm

    bar = tqdm(total=1000, desc=label, unit="", bar_format="{desc}: {percentage:3.0f}%|{bar}| {elapsed} {postfix}",
               file=sys.stderr, disable=None, leave=False)

    def report(fraction: float, message: str) -> None:
        bar.n = int(min(max(fraction, 0.0), 1.0) * 1000)
        bar.set_postfix_str(message, refresh=False)
        bar.refresh()

    try:
        yield report
    finally:
        bar.close()

def add_command(sub: argparse._SubParsersAction, name: str, handler: Handler | None, summary: str, example: str) -> argparse.ArgumentParser:
    parser = sub.add_parser(
        name,
        help=summary.replace("%", "%%"),  # argparse %-formats help strings (Min-K% broke `audit --help`)
        description=summary,
        epilog="example:\n  " + textwrap.dedent(example).strip().replace("\n", "\n  "),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    if handler is not None:
        parser.set_defaults(handler=handler)
    return parser

def project_arg(parser: argparse.ArgumentParser, *, required: bool = True) -> None:
    parser.add_argument("-p", "--project", required=required, help="project file (SQLite), e.g. novels.litlens")

def book_arg(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--book", type=int, help="book id (may be omitted when the project holds one book)")
