"""The `litlens` command line: parses arguments and calls the services.

Errors a user can fix are printed as one line on stderr with a non-zero exit code.
"""

from __future__ import annotations

import argparse
import json
import sys
import textwrap
import warnings
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

from litlens.errors import LitLensError, LitLensWarning

Handler = Callable[[argparse.Namespace], int]


# ---------------------------------------------------------------- output helpers
def _emit_json(data: object) -> None:
    sys.stdout.write(json.dumps(data, indent=2, ensure_ascii=False) + "\n")


def _table(rows: list[list[object]], header: list[str]) -> None:
    cells = [header] + [["" if v is None else str(v) for v in row] for row in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(header))]
    for n, row in enumerate(cells):
        sys.stdout.write("  ".join(v.ljust(w) for v, w in zip(row, widths)).rstrip() + "\n")
        if n == 0:
            sys.stdout.write("  ".join("-" * w for w in widths) + "\n")


@contextmanager
def _progress_bar(label: str) -> Iterator[Callable[[float, str], None]]:
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


# ---------------------------------------------------------------- commands
def _cmd_sample(args: argparse.Namespace) -> int:
    from litlens.resources import sample_novel, sample_project

    project = Path(args.project) if args.project else sample_project()
    return _ingest_and_summarise(sample_novel(), project, force=False)


def _cmd_gui(args: argparse.Namespace) -> int:
    try:
        from litlens.gui.app import run
    except ImportError as exc:
        raise LitLensError(
            f"the reader window needs PySide6 and pyqtgraph ({exc}). Install them with "
            "`.venv/bin/pip install -e .` from the LitLens folder"
        ) from exc
    return run(args.target, screenshot=args.screenshot, panel=args.panel)


def _cmd_ingest(args: argparse.Namespace) -> int:
    return _ingest_and_summarise(Path(args.file), Path(args.project), force=args.force)


def _ingest_and_summarise(file: Path, project: Path, *, force: bool) -> int:
    from litlens.services.books import ingest_file, list_characters, list_quotations

    with _progress_bar(f"ingest {file.name}") as bar:
        result = ingest_file(project, file, force=force, progress=bar)
    book = result.book
    state = "already in the project (reopened, nothing re-run)" if result.reused else "ingested"
    print(f"{file.name}: {state} as book {book.id} of {project}")
    print(f"  title: {book.title or '-'}   encoding: {book.encoding}   format: {book.format}")
    for note in book.notes:
        print(f"  note: {note}")
    quotes = list_quotations(project, book.id)
    types = Counter(q["type"] for q in quotes)
    print(f"  {book.word_count:,} words, {book.chapters} chapters, {len(quotes):,} quotations "
          f"(explicit {types['explicit']}, anaphoric {types['anaphoric']}, implicit {types['implicit']}), "
          f"{book.characters} characters")
    top = list_characters(project, book.id)[:8]
    if top:
        print("  most mentioned: " + ", ".join(f"{c['name']} ({c['gender'][0]}, {c['mentions']})" for c in top))
    return 0


def _cmd_reanalyse(args: argparse.Namespace) -> int:
    from litlens.services.books import reanalyse_book

    with _progress_bar("re-analyse") as bar:
        book = reanalyse_book(args.project, args.book, progress=bar)
    print(f"book {book.id} analysed again: {book.quotations:,} quotations, {book.characters} characters "
          "(human edits kept)")
    return 0


def _cmd_books(args: argparse.Namespace) -> int:
    from litlens.services.books import list_books

    books = list_books(args.project)
    if args.json:
        _emit_json([
            {"id": b.id, "title": b.title, "author": b.author, "source_path": b.source_path, "format": b.format,
             "encoding": b.encoding, "words": b.word_count, "chapters": b.chapters, "quotations": b.quotations,
             "characters": b.characters, "created_at": b.created_at}
            for b in books
        ])
        return 0
    _table([[b.id, b.title or Path(b.source_path).name, b.word_count, b.chapters, b.quotations, b.characters]
            for b in books], ["id", "title", "words", "chapters", "quotations", "characters"])
    return 0


def _cmd_quotes(args: argparse.Namespace) -> int:
    from litlens.services.books import list_quotations

    quotes = list_quotations(args.project, args.book)
    if args.type:
        quotes = [q for q in quotes if q["type"] == args.type]
    if args.json:
        _emit_json(quotes)
        return 0
    rows = []
    for q in quotes[: args.limit] if args.limit else quotes:
        text = q["text"].replace("\n", " ")
        rows.append([q["id"], q["chapter"], q["type"], q["referring_expression"] or "", q["speaker"] or "",
                     text if len(text) <= 60 else text[:57] + "..."])
    _table(rows, ["id", "chapter", "type", "referring expression", "speaker", "text"])
    return 0


def _cmd_characters(args: argparse.Namespace) -> int:
    from litlens.services.books import list_characters

    characters = list_characters(args.project, args.book)
    if args.json:
        _emit_json(characters)
        return 0
    _table([[c["id"], c["name"], c["gender"], c["mentions"], c["quotations"], "; ".join(c["aliases"])]
            for c in characters], ["id", "name", "gender", "mentions", "quotations", "aliases"])
    return 0


def _cmd_export_quotes(args: argparse.Namespace) -> int:
    from litlens.services.books import export_quotations

    n = export_quotations(args.project, args.output, args.book)
    print(f"wrote {n} quotations to {args.output}")
    return 0


def _cmd_import_pdnc(args: argparse.Namespace) -> int:
    from litlens.services.books import import_pdnc

    with _progress_bar(f"import {Path(args.novel_dir).name}") as bar:
        book = import_pdnc(args.project, args.novel_dir, progress=bar)
    print(f"imported {Path(args.novel_dir).name} as book {book.id} of {args.project}: "
          f"{book.quotations} gold quotations, {book.characters} gold characters, {book.chapters} chapters")
    return 0


def _cmd_eval_quotes(args: argparse.Namespace) -> int:
    from litlens.services.evaluation import evaluate_quotes

    with _progress_bar("eval quotes") as bar:
        result = evaluate_quotes(args.pdnc, progress=bar)
    if args.json:
        _emit_json(result)
        return 0
    rows = [[name, s["quotations"], f"{s['precision']:.3f}", f"{s['recall']:.3f}", f"{s['f1']:.3f}",
             f"{s['type_accuracy']:.3f}"] for name, s in [*result["novels"].items(), ("POOLED", result["pooled"])]]
    _table(rows, ["novel", "gold", "precision", "recall", "F1", "type acc"])
    return 0


# ---------------------------------------------------------------- parser
def _add(sub: argparse._SubParsersAction, name: str, handler: Handler | None, summary: str, example: str) -> argparse.ArgumentParser:
    parser = sub.add_parser(
        name,
        help=summary,
        description=summary,
        epilog="example:\n  " + textwrap.dedent(example).strip().replace("\n", "\n  "),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    if handler is not None:
        parser.set_defaults(handler=handler)
    return parser


def _project_arg(parser: argparse.ArgumentParser, *, required: bool = True) -> None:
    parser.add_argument("-p", "--project", required=required, help="project file (SQLite), e.g. novels.litlens")


def _book_arg(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--book", type=int, help="book id (may be omitted when the project holds one book)")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="litlens",
        description="LitLens: quotations, speakers, evidence and annotation studies for novels.",
        epilog="example:\n  litlens ingest novel.txt -p novel.litlens && litlens quotes -p novel.litlens",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    p = _add(sub, "sample", _cmd_sample, "ingest the bundled sample novel (Pride and Prejudice) and summarise it",
             "litlens sample")
    _project_arg(p, required=False)

    p = _add(sub, "gui", _cmd_gui, "open the reader window on a novel or a project (default: the sample novel)",
             "litlens gui emma.txt\n  litlens gui --screenshot window.png --panel window")
    p.add_argument("target", nargs="?", help="a novel file (.txt/.html/.epub) or a project file; default: the sample")
    p.add_argument("--screenshot", metavar="OUT.png", help="render offscreen once loaded, save the picture, exit")
    p.add_argument("--panel", default="window", choices=["window", "reader", "inspector", "characters", "charts"],
                   help="what --screenshot captures (default: the whole window)")

    p = _add(sub, "ingest", _cmd_ingest, "read a novel (.txt, Gutenberg .txt/.html, .epub) into a project",
             "litlens ingest emma.txt -p emma.litlens")
    p.add_argument("file", help="the novel to read")
    _project_arg(p)
    p.add_argument("--force", action="store_true", help="analyse again even if this text is already stored")

    p = _add(sub, "reanalyse", _cmd_reanalyse,
             "run the pipeline again on a stored book, keeping every human correction",
             "litlens reanalyse -p emma.litlens --book 1")
    _project_arg(p)
    _book_arg(p)

    p = _add(sub, "books", _cmd_books, "list the books of a project", "litlens books -p emma.litlens --json")
    _project_arg(p)
    p.add_argument("--json", action="store_true", help="print JSON")

    p = _add(sub, "quotes", _cmd_quotes, "list a book's quotations", "litlens quotes -p emma.litlens --type explicit --limit 20")
    _project_arg(p)
    _book_arg(p)
    p.add_argument("--type", choices=["explicit", "anaphoric", "implicit"], help="only this type")
    p.add_argument("--limit", type=int, help="show at most N rows (table output)")
    p.add_argument("--json", action="store_true", help="print JSON")

    p = _add(sub, "characters", _cmd_characters, "list a book's characters with aliases and gender",
             "litlens characters -p emma.litlens")
    _project_arg(p)
    _book_arg(p)
    p.add_argument("--json", action="store_true", help="print JSON")

    p = _add(sub, "export", None, "export data from a project",
             "litlens export quotes -p emma.litlens -o emma_quotes.jsonl")
    export_sub = p.add_subparsers(dest="what", metavar="WHAT", required=True)
    q = _add(export_sub, "quotes", _cmd_export_quotes, "export a book's quotations as JSON lines",
             "litlens export quotes -p emma.litlens --book 1 -o emma_quotes.jsonl")
    _project_arg(q)
    _book_arg(q)
    q.add_argument("-o", "--output", required=True, help="output .jsonl file")

    p = _add(sub, "import-pdnc", _cmd_import_pdnc, "import a PDNC novel folder with its gold quotations and characters",
             "litlens import-pdnc ../shared/data/pdnc/Emma -p corpus.litlens")
    p.add_argument("novel_dir", help="a PDNC novel folder (novel_text.txt, quotation_info.csv, character_info.csv)")
    _project_arg(p)

    p = _add(sub, "eval", None, "evaluate the pipeline against gold data",
             "litlens eval quotes --pdnc ../shared/data/pdnc --json")
    eval_sub = p.add_subparsers(dest="what", metavar="WHAT", required=True)
    q = _add(eval_sub, "quotes", _cmd_eval_quotes,
             "detect quotations in every PDNC novel under DIR and score them against the gold",
             "litlens eval quotes --pdnc ../shared/data/pdnc --json")
    q.add_argument("--pdnc", required=True, help="PDNC data folder (or one novel's folder)")
    q.add_argument("--json", action="store_true", help="print JSON")

    p = _add(sub, "train", None, "train a model on gold data",
             "litlens train attributor --pdnc ../shared/data/pdnc -o attributor.json")
    train_sub = p.add_subparsers(dest="what", metavar="WHAT", required=True)

    # -- speaker attribution (issue 4): attribute, eval attribution, train attributor
    # -- evidence retrieval (issue 5): search, evidence, eval retrieval, train retriever, link-criticism
    # -- annotation studies (issue 6): study …, agreement, qa-metrics
    del train_sub  # (each section above registers its commands on sub / eval_sub / export_sub / train_sub)
    return parser


def command_names(parser: argparse.ArgumentParser | None = None) -> list[str]:
    """Every runnable command as typed, e.g. ["books", "export quotes", ...] (for the README test)."""
    parser = parser or build_parser()
    names: list[str] = []

    def walk(p: argparse.ArgumentParser, prefix: str) -> None:
        for action in p._actions:
            if isinstance(action, argparse._SubParsersAction):
                for name, child in action.choices.items():
                    has_sub = any(isinstance(a, argparse._SubParsersAction) for a in child._actions)
                    if has_sub:
                        walk(child, f"{prefix}{name} ")
                    else:
                        names.append(f"{prefix}{name}")

    walk(parser, "")
    return names


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", LitLensWarning)
            code = args.handler(args)
        for w in caught:
            if issubclass(w.category, LitLensWarning):
                print(f"litlens: warning: {w.message}", file=sys.stderr)
        return code
    except LitLensError as exc:
        print(f"litlens: error: {exc}", file=sys.stderr)
        return exc.exit_code
    except KeyboardInterrupt:
        print("litlens: interrupted; nothing half-written was kept", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
