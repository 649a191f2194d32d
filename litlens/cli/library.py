"""Books in a project: the sample, the window, ingest, listing, checks, exports and PDNC import."""

from __future__ import annotations

import argparse
from collections import Counter
from pathlib import Path

from litlens.cli.common import add_command, book_arg, emit_json, progress_bar, project_arg, table
from litlens.errors import LitLensError
from litlens.gui.app import PANELS, window_size  # plain Python; Qt is imported only when the window starts


def _cmd_sample(args: argparse.Namespace) -> int:
    from litlens.resources import sample_novel, sample_project
    from litlens.services.sample import prepare_sample

    project = Path(args.project) if args.project else sample_project()
    with progress_bar("sample: ingest and attribute") as bar:
        result, attributed = prepare_sample(project, progress=bar)
    _summarise(sample_novel(), project, result)
    if attributed is not None:
        print(f"  speakers: {attributed['attributed']:,} of {attributed['quotations']:,} quotations attributed on the CPU "
              f"in {attributed['seconds']} s")
    return 0

def _cmd_gui(args: argparse.Namespace) -> int:
    from litlens.gui.app import display_problem  # no Qt yet: a missing display is told before Qt aborts

    problem = display_problem(screenshot=bool(args.screenshot))
    if problem:
        raise LitLensError(problem)
    try:
        from litlens.gui.app import run
    except ImportError as exc:
        raise LitLensError(
            f"the reader window needs PySide6 and pyqtgraph ({exc}). Install them with "
            "`.venv/bin/pip install -e .` from the LitLens folder"
        ) from exc
    return run(args.target, screenshot=args.screenshot, panel=args.panel, size=args.size)

def _cmd_ingest(args: argparse.Namespace) -> int:
    return _ingest_and_summarise(Path(args.file), Path(args.project), force=args.force)

def _ingest_and_summarise(file: Path, project: Path, *, force: bool) -> int:
    from litlens.services.books import ingest_file

    with progress_bar(f"ingest {file.name}") as bar:
        result = ingest_file(project, file, force=force, progress=bar)
    return _summarise(file, project, result)

def _summarise(file: Path, project: Path, result) -> int:
    from litlens.services.books import list_characters, list_quotations

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
    top = sorted(list_characters(project, book.id), key=lambda c: -c["mentions"])[:8]
    if top:
        print("  most mentioned: " + ", ".join(f"{c['name']} ({c['gender'][0]}, {c['mentions']})" for c in top))
    return 0

def _cmd_reanalyse(args: argparse.Namespace) -> int:
    from litlens.services.books import reanalyse_book

    with progress_bar("re-analyse") as bar:
        book = reanalyse_book(args.project, args.book, progress=bar)
    print(f"book {book.id} analysed again: {book.quotations:,} quotations, {book.characters} characters "
          "(human edits kept)")
    return 0

def _cmd_books(args: argparse.Namespace) -> int:
    from litlens.services.books import list_books

    books = list_books(args.project)
    if args.json:
        emit_json([
            {"id": b.id, "title": b.title, "author": b.author, "source_path": b.source_path, "format": b.format,
             "encoding": b.encoding, "words": b.word_count, "chapters": b.chapters, "quotations": b.quotations,
             "characters": b.characters, "created_at": b.created_at}
            for b in books
        ])
        return 0
    table([[b.id, b.title or Path(b.source_path).name, b.word_count, b.chapters, b.quotations, b.characters]
            for b in books], ["id", "title", "words", "chapters", "quotations", "characters"])
    return 0

def _cmd_check(args: argparse.Namespace) -> int:
    from litlens.services.health import check_project

    report = check_project(args.project)
    if args.json:
        emit_json(report)
    else:
        _print_check(args.project, report)
    if not report["ok"]:
        from litlens.errors import DamagedProjectError

        raise DamagedProjectError(args.project, "the project file is damaged (see the report above)", report["hint"])
    return 0

def _print_check(project: str, report: dict) -> None:
    schema = report["schema"]
    if schema:
        print(f"{project}: {schema['application']}, schema {schema['version']} "
              f"(this LitLens: {schema['this_litlens']})")
    integrity = report["integrity"]
    print("integrity: ok" if integrity == "ok" else "integrity: DAMAGED\n" + "\n".join(f"  {p}" for p in integrity))
    if report["tables"]:
        table([[name, count] for name, count in report["tables"].items()], ["table", "rows"])
    if report["hint"] and report["ok"]:
        print("note: " + report["hint"])

def _cmd_quotes(args: argparse.Namespace) -> int:
    from litlens.services.books import list_quotations

    quotes = list_quotations(args.project, args.book)
    if args.type:
        quotes = [q for q in quotes if q["type"] == args.type]
    if args.json:
        emit_json(quotes)
        return 0
    rows = []
    for q in quotes[: args.limit] if args.limit else quotes:
        text = q["text"].replace("\n", " ")
        rows.append([q["id"], q["chapter"], q["type"], q["referring_expression"] or "", q["speaker"] or "",
                     text if len(text) <= 60 else text[:57] + "..."])
    table(rows, ["id", "chapter", "type", "referring expression", "speaker", "text"])
    return 0

def _cmd_characters(args: argparse.Namespace) -> int:
    from litlens.services.books import list_characters, merge_suggestions

    if args.suggest:
        suggestions = merge_suggestions(args.project, args.book)
        if args.json:
            emit_json(suggestions)
            return 0
        if not suggestions:
            print("no suggestions: neither the names, the same-person model nor the dialogue pair two characters")
            return 0
        table([[s["fold"], s["keep"], f"{s['probability']:.2f}", s["evidence"] or s["reason"],
                 f"{s['fold_id']} -> {s['keep_id']}"] for s in suggestions], ["merge", "into", "probability", "why", "ids"])
        return 0
    characters = list_characters(args.project, args.book)
    if args.json:
        emit_json(characters)
        return 0
    table([[c["id"], c["name"], c["gender"], c["mentions"], c["quotations"], "; ".join(c["aliases"])]
            for c in characters], ["id", "name", "gender", "mentions", "quotations", "aliases"])
    return 0

def _cmd_export_quotes(args: argparse.Namespace) -> int:
    from litlens.services.books import export_quotations

    n = export_quotations(args.project, args.output, args.book)
    print(f"wrote {n} quotations to {args.output}")
    return 0

def _export_corpus(args: argparse.Namespace, fmt: str) -> int:
    """`litlens export tei|pdnc -p OUT/` on a `litlens batch` output folder: every book."""
    from litlens.services.export_formats import export_corpus

    if args.book is not None:
        raise LitLensError("--book picks a book of one project; a batch folder is exported whole (leave --book out)")
    with progress_bar(f"export {fmt}") as bar:
        result = export_corpus(args.project, fmt, args.output, progress=bar)
    print(f"wrote {len(result.books)} books as {'TEI P5' if fmt == 'tei' else 'PDNC folders'} to {result.path}: "
          f"{sum(s.quotations for _, s in result.books):,} quotations")
    if result.left_out:
        print(f"  left out (failed in the batch, no project): {', '.join(result.left_out)}")
    return 0

def _cmd_export_tei(args: argparse.Namespace) -> int:
    from litlens.services.export_formats import export_tei

    if Path(args.project).is_dir():
        return _export_corpus(args, "tei")
    result = export_tei(args.project, args.output, args.book)
    print(f"wrote TEI P5 to {result.path}: {result.quotations} quotations as {result.saids} <said> elements, "
          f"{result.characters} persons")
    for note in result.notes:
        print(f"  note: {note}")
    return 0

def _cmd_export_pdnc(args: argparse.Namespace) -> int:
    from litlens.services.export_formats import export_pdnc

    if Path(args.project).is_dir():
        return _export_corpus(args, "pdnc")
    result = export_pdnc(args.project, args.output, args.book)
    print(f"wrote PDNC files to {result.path}: {result.quotations} quotations, {result.characters} characters")
    return 0

def _cmd_import_pdnc(args: argparse.Namespace) -> int:
    from litlens.services.books import import_pdnc

    with progress_bar(f"import {Path(args.novel_dir).name}") as bar:
        book = import_pdnc(args.project, args.novel_dir, progress=bar)
    print(f"imported {Path(args.novel_dir).name} as book {book.id} of {args.project}: "
          f"{book.quotations} gold quotations, {book.characters} gold characters, {book.chapters} chapters")
    return 0

def _cmd_eval_quotes(args: argparse.Namespace) -> int:
    from litlens.services.evaluation import evaluate_quotes

    with progress_bar("eval quotes") as bar:
        result = evaluate_quotes(args.pdnc, progress=bar)
    if args.json:
        emit_json(result)
        return 0
    rows = [[name, s["quotations"], f"{s['precision']:.3f}", f"{s['recall']:.3f}", f"{s['f1']:.3f}",
             f"{s['type_accuracy']:.3f}"] for name, s in [*result["novels"].items(), ("POOLED", result["pooled"])]]
    table(rows, ["novel", "gold", "precision", "recall", "F1", "type acc"])
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    """sample, gui, ingest, reanalyse, books, check, quotes, characters, export …, import-pdnc."""
    p = add_command(sub, "sample", _cmd_sample, "ingest the bundled sample novel (Pride and Prejudice) and summarise it",
             "litlens sample")
    project_arg(p, required=False)

    p = add_command(sub, "gui", _cmd_gui, "open the reader window on a novel or a project (default: the sample novel)",
             "litlens gui emma.txt\n  litlens gui --screenshot window.png --size 1366x768 --panel window")
    p.add_argument("target", nargs="?", help="a novel file (.txt/.html/.epub) or a project file; default: the sample")
    p.add_argument("--screenshot", metavar="OUT.png", help="render offscreen once loaded, save the picture, exit")
    p.add_argument("--panel", default="window", choices=list(PANELS),
                   help="what --screenshot captures (default: the whole window)")
    p.add_argument("--size", metavar="WxH", type=window_size,
                   help="open the window at exactly this size, e.g. 1366x768 (a --screenshot of the window is W×H)")

    p = add_command(sub, "ingest", _cmd_ingest, "read a novel (.txt, Gutenberg .txt/.html, .epub) into a project",
             "litlens ingest emma.txt -p emma.litlens")
    p.add_argument("file", help="the novel to read")
    project_arg(p)
    p.add_argument("--force", action="store_true", help="analyse again even if this text is already stored")

    p = add_command(sub, "reanalyse", _cmd_reanalyse,
             "run the pipeline again on a stored book, keeping every human correction",
             "litlens reanalyse -p emma.litlens --book 1")
    project_arg(p)
    book_arg(p)

    p = add_command(sub, "books", _cmd_books, "list the books of a project", "litlens books -p emma.litlens --json")
    project_arg(p)
    p.add_argument("--json", action="store_true", help="print JSON")

    p = add_command(sub, "check", _cmd_check,
             "check a project file without changing it: integrity, schema version, rows per table, what to do if damaged",
             "litlens check -p emma.litlens --json")
    project_arg(p)
    p.add_argument("--json", action="store_true", help="print JSON")

    p = add_command(sub, "quotes", _cmd_quotes, "list a book's quotations", "litlens quotes -p emma.litlens --type explicit --limit 20")
    project_arg(p)
    book_arg(p)
    p.add_argument("--type", choices=["explicit", "anaphoric", "implicit"], help="only this type")
    p.add_argument("--limit", type=int, help="show at most N rows (table output)")
    p.add_argument("--json", action="store_true", help="print JSON")

    p = add_command(sub, "characters", _cmd_characters, "list a book's characters with aliases and gender",
             "litlens characters -p emma.litlens\nlitlens characters -p emma.litlens --suggest")
    project_arg(p)
    book_arg(p)
    p.add_argument("--suggest", action="store_true",
                   help="instead list pairs of characters that may be one person, to merge in the Characters panel")
    p.add_argument("--json", action="store_true", help="print JSON")

    p = add_command(sub, "export", None, "export data from a project",
             "litlens export quotes -p emma.litlens -o emma_quotes.jsonl")
    export_sub = p.add_subparsers(dest="what", metavar="WHAT", required=True)
    q = add_command(export_sub, "quotes", _cmd_export_quotes, "export a book's quotations as JSON lines",
             "litlens export quotes -p emma.litlens --book 1 -o emma_quotes.jsonl")
    project_arg(q)
    book_arg(q)
    q.add_argument("-o", "--output", required=True, help="output .jsonl file")
    q = add_command(export_sub, "tei", _cmd_export_tei,
             "export a book as TEI P5: the whole text, chapters and paragraphs, every sub-quotation as <said> "
             "with speaker, addressees, type and certainty, the characters in the header",
             "litlens export tei -p emma.litlens --book 1 -o emma.xml\n"
             "litlens export tei -p batch_out/ -o tei/        (every book of a `litlens batch` output)")
    q.add_argument("-p", "--project", required=True,
                   help="project file, e.g. novels.litlens, or a `litlens batch` output folder (every book)")
    book_arg(q)
    q.add_argument("-o", "--output", required=True, help="output .xml file (a folder for a batch output: one BOOK.xml each)")
    q = add_command(export_sub, "pdnc", _cmd_export_pdnc,
             "export a book as a PDNC novel folder: novel_text.txt, quotation_info.csv, character_info.csv",
             "litlens export pdnc -p emma.litlens --book 1 -o exports/Emma\n"
             "litlens export pdnc -p batch_out/ -o pdnc/      (every book of a `litlens batch` output)")
    q.add_argument("-p", "--project", required=True,
                   help="project file, e.g. novels.litlens, or a `litlens batch` output folder (every book)")
    book_arg(q)
    q.add_argument("-o", "--output", required=True,
                   help="output folder, created if absent (for a batch output: one BOOK/ folder each)")

    p = add_command(sub, "import-pdnc", _cmd_import_pdnc, "import a PDNC novel folder with its gold quotations and characters",
             "litlens import-pdnc ../shared/data/pdnc/Emma -p corpus.litlens")
    p.add_argument("novel_dir", help="a PDNC novel folder (novel_text.txt, quotation_info.csv, character_info.csv)")
    project_arg(p)


def register_eval(eval_sub: argparse._SubParsersAction) -> None:
    """eval quotes."""
    q = add_command(eval_sub, "quotes", _cmd_eval_quotes,
             "detect quotations in every PDNC novel under DIR and score them against the gold",
             "litlens eval quotes --pdnc ../shared/data/pdnc --json")
    q.add_argument("--pdnc", required=True, help="PDNC data folder (or one novel's folder)")
    q.add_argument("--json", action="store_true", help="print JSON")
