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
from litlens.gui.app import PANELS, window_size  # plain Python; Qt is imported only when the window starts
from litlens.retrieval.retriever import DEFAULT_METHOD, METHODS

Handler = Callable[[argparse.Namespace], int]


# ---------------------------------------------------------------- output helpers
def _emit_json(data: object) -> None:
    sys.stdout.write(json.dumps(data, indent=2, ensure_ascii=False) + "\n")


def _table(rows: list[list[object]], header: list[str], width: int | None = None) -> None:
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
    from litlens.services.sample import prepare_sample

    project = Path(args.project) if args.project else sample_project()
    with _progress_bar("sample: ingest and attribute") as bar:
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

    with _progress_bar(f"ingest {file.name}") as bar:
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


def _cmd_check(args: argparse.Namespace) -> int:
    from litlens.services.health import check_project

    report = check_project(args.project)
    if args.json:
        _emit_json(report)
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
        _table([[name, count] for name, count in report["tables"].items()], ["table", "rows"])
    if report["hint"] and report["ok"]:
        print("note: " + report["hint"])


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
    from litlens.services.books import list_characters, merge_suggestions

    if args.suggest:
        suggestions = merge_suggestions(args.project, args.book)
        if args.json:
            _emit_json(suggestions)
            return 0
        if not suggestions:
            print("no suggestions: no two characters look like one person to the same-person model")
            return 0
        _table([[s["fold"], s["keep"], f"{s['probability']:.2f}", s["reason"], f"{s['fold_id']} -> {s['keep_id']}"]
                for s in suggestions], ["merge", "into", "probability", "why", "ids"])
        return 0
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


def _export_corpus(args: argparse.Namespace, fmt: str) -> int:
    """`litlens export tei|pdnc -p OUT/` on a `litlens batch` output folder: every book."""
    from litlens.services.export_formats import export_corpus

    if args.book is not None:
        raise LitLensError("--book picks a book of one project; a batch folder is exported whole (leave --book out)")
    with _progress_bar(f"export {fmt}") as bar:
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


# ---------------------------------------------------------------- speaker attribution (issue 4)
def _attribution_method_args(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--method", choices=["cpu", "llm"], default="cpu", help="cpu (rules + ranker) or llm (seed-003 protocol)")
    parser.add_argument("--backend", choices=["transformers", "gguf", "openai"], default="transformers", help="llm: backend")
    parser.add_argument("--model", help="llm: model id, local path or GGUF file (default: the packaged small model)")
    parser.add_argument("--base-url", help="llm, openai backend: server URL, e.g. http://127.0.0.1:8000/v1")
    parser.add_argument("--api-key-env", help="llm, openai backend: environment variable holding the API key")


def _cmd_batch(args: argparse.Namespace) -> int:
    from litlens.services.batch import LLMSettings, run_batch

    llm = LLMSettings(args.backend, args.model, args.base_url, args.api_key_env) if args.attribute == "llm" else None
    with _progress_bar("batch: books") as bar:
        manifest = run_batch(args.input, args.output, workers=args.workers, address=args.address,
                             attribute=args.attribute, llm=llm, progress=bar, export=args.export)
    books = manifest["books"]
    failed = [b for b in books if b["status"] == "failed"]
    if args.json:
        _emit_json(manifest)
    else:
        counts = Counter(b["status"] for b in books)
        print(f"{len(books)} books: {counts['done']} done, {counts['skipped']} skipped (already current), "
              f"{counts['failed']} failed; {sum(b['quotations'] for b in books):,} quotations; outputs in {args.output}")
    for b in failed:
        print(f"litlens: failed: {b['book']}: {b['error']}", file=sys.stderr)
    return 1 if failed else 0


def _cmd_attribute(args: argparse.Namespace) -> int:
    with _progress_bar(f"attribute ({args.method})") as bar:
        if args.method == "llm":
            from litlens.services.llm_attribution import attribute_book_llm

            summary = attribute_book_llm(args.project, args.book, backend=args.backend, model=args.model,
                                         base_url=args.base_url, api_key_env=args.api_key_env, progress=bar, cancelled=None)
        else:
            from litlens.services.attribution import attribute_book

            summary = attribute_book(args.project, args.book, model_path=args.attributor, progress=bar)
    if args.json:
        _emit_json(summary)
        return 0
    if args.method == "cpu":
        print(f"book {summary['book_id']}: {summary['attributed']} of {summary['quotations']} quotations attributed "
              f"({summary['kept']} corrected or gold speakers kept, {summary['low_confidence']} below 0.5 confidence) "
              f"in {summary['seconds']} s")
    else:
        print(", ".join(f"{k}: {v}" for k, v in summary.items() if not isinstance(v, (dict, list))))
    return 0


def _cmd_eval_attribution(args: argparse.Namespace) -> int:
    with _progress_bar(f"eval attribution ({args.method})") as bar:
        if args.method == "llm":
            from litlens.services.llm_attribution import evaluate_llm

            result = evaluate_llm(args.pdnc, novels=args.novels, quotes=args.quotes, characters=args.characters,
                                  backend=args.backend, model=args.model, base_url=args.base_url,
                                  api_key_env=args.api_key_env, progress=bar)
            result = {"novels": result["novels"], "pooled": result["pooled"]}
        else:
            from litlens.services.attribution import evaluate_attribution

            result = evaluate_attribution(args.pdnc, quotes=args.quotes, characters=args.characters, folds=args.folds,
                                          novels=args.novels, progress=bar, details=args.details)
    if args.json:
        _emit_json(result)
        return 0

    def pct(v: float | None) -> str:
        return "-" if v is None else f"{100 * v:.1f}"

    rows = [[name, s["quotations"], pct(s["accuracy"]), pct(s["explicit"]), pct(s["other"]), pct(s["anaphoric"]),
             pct(s["implicit"])] for name, s in [*result["novels"].items(), ("POOLED", result["pooled"])]]
    _table(rows, ["novel", "scored", "accuracy", "explicit", "other", "anaphoric", "implicit"])
    return 0


def _cmd_train_attributor(args: argparse.Namespace) -> int:
    from litlens.services.attribution import train_attributor

    with _progress_bar("train attributor") as bar:
        result = train_attributor(args.pdnc, args.output, novels=args.novels, progress=bar)
    print(f"wrote {result['model']} (trained on {len(result['trained_on'])} novels: {', '.join(result['trained_on'])}) "
          f"in {result['seconds']} s")
    return 0


# ---------------------------------------------------------------- evidence retrieval (issue 5)
def _cmd_search(args: argparse.Namespace) -> int:
    from litlens.services.retrieval import query_notes, search, shortfall_note

    for note in query_notes(args.query):
        print(f"litlens: note: {note}", file=sys.stderr)
    with _progress_bar("search") as bar:
        hits = search(args.project, args.query, book_id=args.book, method=args.method, k=args.k, model=args.model,
                      demote_quoted=not args.no_demote_quoted, progress=bar)
    short = shortfall_note(hits, args.k)
    if short:
        print(f"litlens: note: {short}", file=sys.stderr)
    if args.json:
        _emit_json([h.__dict__ for h in hits])
        return 0
    for h in hits:
        where = f"ch. {h.chapter}" if h.chapter is not None else "front"
        note = "  (quoted in the query: demoted)" if h.demoted else ""
        print(f"{h.rank:>3}. [{where}, {h.start}-{h.end}] score {h.score:.3f}{note}\n     {textwrap.shorten(h.text, 300)}")
    return 0


def _cmd_evidence_pin(args: argparse.Namespace) -> int:
    from litlens.services.retrieval import pin_evidence

    start, end = args.start, args.end
    if args.query is not None:
        from litlens.services.retrieval import search

        hits = search(args.project, args.query, book_id=args.book, method=args.method, k=args.rank)
        if len(hits) < args.rank:
            raise LitLensError(f"the search returned only {len(hits)} passages; choose --rank up to {len(hits)}")
        hit = hits[args.rank - 1]
        start, end = hit.start, hit.end
    if start is None or end is None:
        raise LitLensError("give the passage as --start S --end E (offsets printed by `litlens search`) or as --query Q [--rank N]")
    eid = pin_evidence(args.project, args.claim, start, end, book_id=args.book, claim_text=args.claim_text or "",
                       query=args.query or "", method=args.method if args.query else "")
    print(f"pinned passage {start}-{end} as evidence {eid} for claim {args.claim!r}")
    return 0


def _cmd_evidence_unpin(args: argparse.Namespace) -> int:
    from litlens.services.retrieval import unpin_evidence

    unpin_evidence(args.project, args.id)
    print(f"unpinned evidence {args.id}")
    return 0


def _cmd_evidence_list(args: argparse.Namespace) -> int:
    from litlens.services.retrieval import list_evidence

    rows = list_evidence(args.project, book_id=args.book, claim=args.claim)
    if args.json:
        _emit_json(rows)
        return 0
    _table([[r["id"], r["claim"], r["chapter"], f"{r['start']}-{r['end']}", textwrap.shorten(r["text"], 70)] for r in rows],
           ["id", "claim", "chapter", "offsets", "passage"])
    return 0


def _cmd_evidence_export(args: argparse.Namespace) -> int:
    from litlens.services.retrieval import export_evidence

    n = export_evidence(args.project, args.output, fmt=args.format, book_id=args.book, claim=args.claim)
    print(f"wrote {n} pinned passages to {args.output}")
    return 0


def _cmd_eval_retrieval(args: argparse.Namespace) -> int:
    from litlens.services.retrieval import evaluate_benchmark

    with _progress_bar(f"eval retrieval ({args.method})") as bar:
        result = evaluate_benchmark(beir=args.beir, relic=args.relic, method=args.method, model=args.model,
                                    demote_quoted=not args.no_demote_quoted, run_out=args.run_out, progress=bar)
    if args.json:
        _emit_json(result)
        return 0
    m = result["metrics"]
    keys = ["recall@1", "recall@3", "recall@5", "recall@10", "recall@50", "recall@100", "mean_rank", "mrr", "ndcg@10"]
    _table([[k, f"{m[k]:.1f}"] for k in keys if k in m], ["metric", args.method])
    return 0


def _cmd_train_retriever(args: argparse.Namespace) -> int:
    from litlens.services.retrieval import train_retriever

    with _progress_bar("train retriever") as bar:
        result = train_retriever(args.data, args.output, model=args.model, epochs=args.epochs, batch_size=args.batch_size,
                                 grad_accum=args.grad_accum, lr=args.lr, pooling=args.pooling, patience=args.patience,
                                 resume=not args.no_resume, seed=args.seed, progress=bar)
    if args.json:
        _emit_json(result)
        return 0
    print(f"wrote {result['output']} after {result['epochs_run']} epochs (best validation loss "
          f"{result['best_val_loss']:.4f} at epoch {result['best_epoch']}) in {result['seconds']} s")
    return 0


def _cmd_link_criticism(args: argparse.Namespace) -> int:
    from litlens.services.retrieval import link_criticism

    result = link_criticism(args.project, args.essay, args.output, book_id=args.book, min_score=args.min_score)
    if args.json:
        _emit_json(result)
        return 0
    print(f"found {result['quotations']} quotations of the novel in {args.essay}; wrote {result['examples']} examples to {args.output}")
    return 0


# ---------------------------------------------------------------- annotation studies (issue 6)
def _cmd_study_create_proxy(args: argparse.Namespace) -> int:
    from litlens.services.studies import create_proxy_study

    with _progress_bar("create proxy study") as bar:
        study = create_proxy_study(args.project, beir=args.beir, pinned=args.pinned, distractors=args.distractors,
                                   per_item=args.per_item, name=args.name, seed=args.seed, limit=args.limit,
                                   progress=bar, book_id=args.book)
    skipped = study.settings.get("skipped", [])
    if args.json:
        from litlens.services.studies import study_status

        _emit_json({"id": study.id, "name": study.name, "items": study_status(args.project, study.name)["items"],
                    "skipped": skipped})
        return 0
    for s in skipped:
        print(f"skipped item {s['key']}: {s['reason']}")
    if skipped:
        print(f"{len(skipped)} item(s) skipped; they are listed in `litlens study create-proxy … --json`")
    print(f"created proxy study {study.name!r} (id {study.id}) in {args.project}; "
          f"next: litlens study assign -p {args.project} {study.name} --annotators A,B,C --overlap 3")
    return 0


def _cmd_study_items(args: argparse.Namespace) -> int:
    from litlens.services.studies import study_items

    items = study_items(args.project, args.study)
    if args.json:
        _emit_json(items)
        return 0
    for item in items:
        query = f" (query {item['query_id']})" if item["query_id"] else ""
        print(f"item {item['item_id']}{query}")
        print(textwrap.indent("\n".join(textwrap.fill(line, 100) for line in item["context"].splitlines()), "    "))
        for o in item["options"]:
            mark = "*" if o["gold"] else " "
            doc = f" [{o['doc_id']}]" if o["doc_id"] else ""
            print(textwrap.indent(textwrap.fill(f"{o['position']}{mark}{doc} {o['text']}", 100), "  "))
        print()
    print(f"{len(items)} items; * marks the gold option")
    return 0


def _cmd_study_check(args: argparse.Namespace) -> int:
    from litlens.services.studies import check_study

    report = check_study(args.project, args.study)
    if args.json:
        _emit_json(report)
        return 0
    for p in report["problems"]:
        for o in p["overlaps"]:
            i, j = o["options"]
            print(f"item {p['item_id']}: options {i} and {j} share \"{o['shared']}\"")
    if report["overlapping"]:
        print(f"{report['overlapping']} of {report['items']} items have overlapping options")
    else:
        print(f"no item of {report['items']} has overlapping options")
    return 0


def _cmd_study_create_likert(args: argparse.Namespace) -> int:
    from litlens.services.studies import create_likert_study

    study = create_likert_study(args.project, literaryqa=args.literaryqa, answers=args.answers, mode=args.mode,
                                name=args.name)
    print(f"created Likert study {study.name!r} (id {study.id}, {study.mode}-based) in {args.project}")
    return 0


def _cmd_study_assign(args: argparse.Namespace) -> int:
    from litlens.services.studies import assign

    counts = assign(args.project, args.study, args.annotators.split(","), args.overlap)
    print(f"study {args.study}: " + ", ".join(f"{a} {n} items" for a, n in counts.items()))
    return 0


def _cmd_study_list(args: argparse.Namespace) -> int:
    from litlens.services.studies import list_studies

    studies = list_studies(args.project)
    if args.json:
        _emit_json(studies)
        return 0
    _table([[s["id"], s["name"], s["kind"], s["mode"] or "", s["items"], len(s["annotators"]), s["judgments"]]
            for s in studies], ["id", "name", "kind", "mode", "items", "annotators", "judgments"])
    return 0


def _cmd_study_status(args: argparse.Namespace) -> int:
    from litlens.services.studies import study_agreement, study_status

    status = study_status(args.project, args.study)
    summary = study_agreement(args.project, args.study, n_boot=args.bootstrap)
    if args.json:
        _emit_json({**status, "agreement": summary.as_detailed_json()})
        return 0
    print(f"{status['name']} ({status['kind']}, {status['items']} items, {status['judgments']} judgments)")
    _table([[a, v["done"], v["assigned"]] for a, v in status["annotators"].items()], ["annotator", "done", "assigned"])
    for key, value in summary.as_json().items():
        print(f"  {key}: {value}")
    if summary.majority_accuracy is not None:
        print(f"  majority_accuracy: {summary.majority_accuracy.value:.3f}")
        for name, est in summary.accuracy.items():
            print(f"  accuracy {name}: {est.value:.3f}")
    return 0


def _cmd_study_export(args: argparse.Namespace) -> int:
    from litlens.services.studies import export_study

    result = export_study(args.project, args.study, args.output, n_boot=args.bootstrap, all_events=args.all_events)
    what = f"{result['rows']} events" if args.all_events else f"{result['judgments']} judgments"
    print(f"wrote {what} to {result['output']} and the agreement summary to {result['agreement']}")
    return 0


def _cmd_study_merge(args: argparse.Namespace) -> int:
    from litlens.services.studies import merge

    report = merge(args.project, args.files)
    if args.json:
        _emit_json(report)
        return 0
    for f in report["files"]:
        print(f"{f['file']}: {f['added']} judgments added, {f['duplicates']} duplicates skipped")
    for c in report["conflicts"]:
        values = "; ".join(f"{src}: {v}" for src, v in c["values"].items())
        print(f"conflict: {c['study']} item {c['item_id']} annotator {c['annotator']}: {values}")
    print(f"{report['added']} added, {report['duplicates']} duplicates, {len(report['conflicts'])} conflicts")
    return 0


def _cmd_study_judge(args: argparse.Namespace) -> int:
    from litlens.services.studies import run_llm_judge

    with _progress_bar("LLM judge") as bar:
        result = run_llm_judge(args.project, args.study, annotator=args.annotator, backend_kind=args.backend,
                               model=args.model, limit=args.limit, progress=bar)
    print(f"{result['annotator']}: rated {result['rated']} items, {result['unparsed']} replies without a score")
    return 0


def _cmd_agreement(args: argparse.Namespace) -> int:
    from litlens.services.studies import agreement_from_csv

    summary = agreement_from_csv(args.judgments, kind=args.kind, scale=args.scale, n_boot=args.bootstrap)
    if args.json:
        _emit_json(summary.as_json() if not args.bootstrap else {**summary.as_json(), "details": summary.as_detailed_json()})
        return 0
    for key, value in summary.as_json().items():
        print(f"{key}: {value}")
    return 0


def _cmd_qa_metrics(args: argparse.Namespace) -> int:
    from litlens.services.studies import qa_metrics

    result = qa_metrics(args.literaryqa, args.answers, ratings=args.ratings, project_path=args.project,
                        bertscore=args.bertscore)
    if args.json:
        _emit_json(result)
        return 0
    metrics = [k for k in next(iter(result["systems"].values()))]
    _table([[s] + [f"{m[k]:.3f}" for k in metrics] for s, m in result["systems"].items()], ["system"] + metrics)
    if "kendall_tau" in result:
        print("system-level Kendall tau vs human: " + ", ".join(f"{k} {v}" for k, v in result["kendall_tau"].items()))
    print(f"METEOR: {result['meteor_variant']}")
    return 0


# ---------------------------------------------------------------- memorization audit (issue 38)
def _audit_args(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--backend", choices=["transformers", "gguf", "openai"], default="transformers", help="LLM backend")
    parser.add_argument("--model", help="model id, local path or GGUF file (default: the packaged small model)")
    parser.add_argument("--base-url", help="openai backend: server URL, e.g. http://127.0.0.1:8000/v1")
    parser.add_argument("--api-key-env", help="openai backend: environment variable holding the API key")
    parser.add_argument("--seed", type=int, default=0, help="seed for sampling passages / shuffling the control")
    parser.add_argument("--json", action="store_true", help="print JSON")


def _cmd_audit(args: argparse.Namespace) -> int:
    from litlens.services import audit

    common = dict(backend=args.backend, model=args.model, base_url=args.base_url, api_key_env=args.api_key_env,
                  seed=args.seed)
    with _progress_bar(f"audit {args.probe}") as bar:
        if args.probe == "name-cloze":
            result = audit.run_name_cloze(args.project, args.book, limit=args.limit, progress=bar, **common)
        elif args.probe == "csg":
            result = audit.run_csg(args.project, args.book, limit=args.limit, progress=bar, **common)
        else:
            if (args.text is None) == (args.project is None):
                raise LitLensError("audit mink: give exactly one of --text FILE or -p PROJECT")
            result = audit.run_mink(args.project, args.book, text_file=args.text, control_file=args.control, k=args.k,
                                    chapter_tokens=args.chapter_tokens or None, progress=bar, **common)
    for note in audit.notes(args.probe, result):
        print(f"note: {note}", file=sys.stderr)
    if args.json:
        _emit_json(result)
        return 0
    print(audit.verdict(args.probe, result))
    if args.probe == "mink" and result.get("chapters"):
        _table([[c["chapter"], c["title"], c["tokens"], f"{c['min_k']:.4f}", f"{c['control_min_k']:.4f}"]
                for c in result["chapters"]], ["chapter", "title", "tokens", "min_k", "control min_k"])
    return 0


# ---------------------------------------------------------------- parser
def _add(sub: argparse._SubParsersAction, name: str, handler: Handler | None, summary: str, example: str) -> argparse.ArgumentParser:
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
    from litlens import __version__

    parser.add_argument("--version", action="version", version=f"litlens {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    p = _add(sub, "sample", _cmd_sample, "ingest the bundled sample novel (Pride and Prejudice) and summarise it",
             "litlens sample")
    _project_arg(p, required=False)

    p = _add(sub, "gui", _cmd_gui, "open the reader window on a novel or a project (default: the sample novel)",
             "litlens gui emma.txt\n  litlens gui --screenshot window.png --size 1366x768 --panel window")
    p.add_argument("target", nargs="?", help="a novel file (.txt/.html/.epub) or a project file; default: the sample")
    p.add_argument("--screenshot", metavar="OUT.png", help="render offscreen once loaded, save the picture, exit")
    p.add_argument("--panel", default="window", choices=list(PANELS),
                   help="what --screenshot captures (default: the whole window)")
    p.add_argument("--size", metavar="WxH", type=window_size,
                   help="open the window at exactly this size, e.g. 1366x768 (a --screenshot of the window is W×H)")

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

    p = _add(sub, "check", _cmd_check,
             "check a project file without changing it: integrity, schema version, rows per table, what to do if damaged",
             "litlens check -p emma.litlens --json")
    _project_arg(p)
    p.add_argument("--json", action="store_true", help="print JSON")

    p = _add(sub, "quotes", _cmd_quotes, "list a book's quotations", "litlens quotes -p emma.litlens --type explicit --limit 20")
    _project_arg(p)
    _book_arg(p)
    p.add_argument("--type", choices=["explicit", "anaphoric", "implicit"], help="only this type")
    p.add_argument("--limit", type=int, help="show at most N rows (table output)")
    p.add_argument("--json", action="store_true", help="print JSON")

    p = _add(sub, "characters", _cmd_characters, "list a book's characters with aliases and gender",
             "litlens characters -p emma.litlens\nlitlens characters -p emma.litlens --suggest")
    _project_arg(p)
    _book_arg(p)
    p.add_argument("--suggest", action="store_true",
                   help="instead list pairs of characters that may be one person, to merge in the Characters panel")
    p.add_argument("--json", action="store_true", help="print JSON")

    p = _add(sub, "export", None, "export data from a project",
             "litlens export quotes -p emma.litlens -o emma_quotes.jsonl")
    export_sub = p.add_subparsers(dest="what", metavar="WHAT", required=True)
    q = _add(export_sub, "quotes", _cmd_export_quotes, "export a book's quotations as JSON lines",
             "litlens export quotes -p emma.litlens --book 1 -o emma_quotes.jsonl")
    _project_arg(q)
    _book_arg(q)
    q.add_argument("-o", "--output", required=True, help="output .jsonl file")
    q = _add(export_sub, "tei", _cmd_export_tei,
             "export a book as TEI P5: the whole text, chapters and paragraphs, every sub-quotation as <said> "
             "with speaker, addressees, type and certainty, the characters in the header",
             "litlens export tei -p emma.litlens --book 1 -o emma.xml\n"
             "litlens export tei -p batch_out/ -o tei/        (every book of a `litlens batch` output)")
    q.add_argument("-p", "--project", required=True,
                   help="project file, e.g. novels.litlens, or a `litlens batch` output folder (every book)")
    _book_arg(q)
    q.add_argument("-o", "--output", required=True, help="output .xml file (a folder for a batch output: one BOOK.xml each)")
    q = _add(export_sub, "pdnc", _cmd_export_pdnc,
             "export a book as a PDNC novel folder: novel_text.txt, quotation_info.csv, character_info.csv",
             "litlens export pdnc -p emma.litlens --book 1 -o exports/Emma\n"
             "litlens export pdnc -p batch_out/ -o pdnc/      (every book of a `litlens batch` output)")
    q.add_argument("-p", "--project", required=True,
                   help="project file, e.g. novels.litlens, or a `litlens batch` output folder (every book)")
    _book_arg(q)
    q.add_argument("-o", "--output", required=True,
                   help="output folder, created if absent (for a batch output: one BOOK/ folder each)")

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
    p = _add(sub, "attribute", _cmd_attribute,
             "attribute a speaker (with confidence and addressees) to every quotation of a book",
             "litlens attribute -p emma.litlens --method cpu\n"
             "litlens attribute -p emma.litlens --method llm --backend openai --model llama3 --base-url http://127.0.0.1:8000/v1")
    _project_arg(p)
    _book_arg(p)
    _attribution_method_args(p)
    p.add_argument("--attributor", metavar="MODEL", help="CPU attributor model file (default: the bundled one)")
    p.add_argument("--json", action="store_true", help="print the summary as JSON")
    q = _add(eval_sub, "attribution", _cmd_eval_attribution,
             "score speaker attribution on PDNC novels (seed-003 convention, leave-novels-out folds for cpu)",
             "litlens eval attribution --pdnc ../shared/data/pdnc --method cpu --quotes gold --characters gold --json")
    q.add_argument("--pdnc", required=True, help="PDNC data folder")
    _attribution_method_args(q)
    q.add_argument("--quotes", choices=["gold", "detected"], default="gold", help="gold or detected quotations")
    q.add_argument("--characters", choices=["gold", "discovered"], default="gold", help="gold or discovered characters")
    q.add_argument("--folds", type=int, default=5, help="cpu: number of leave-novels-out folds (default 5)")
    q.add_argument("--novels", help="comma-separated novel names to score (cpu: trained on all the others)")
    q.add_argument("--details", action="store_true", help="cpu: add reliability per confidence decile, addressees, timings")
    q.add_argument("--json", action="store_true", help="print JSON")
    q = _add(train_sub, "attributor", _cmd_train_attributor,
             "train the CPU speaker attributor on PDNC novels (gold quotations and characters)",
             "litlens train attributor --pdnc ../shared/data/pdnc -o attributor.zip")
    q.add_argument("--pdnc", required=True, help="PDNC data folder")
    q.add_argument("-o", "--output", required=True, help="model file to write: a ZIP of LightGBM text, numpy arrays and JSON (no pickle)")
    q.add_argument("--novels", help="comma-separated novel names to train on (default: all)")
    # -- evidence retrieval (issue 5): search, evidence, eval retrieval, train retriever, link-criticism
    p = _add(sub, "batch", _cmd_batch,
             "ingest and attribute a folder of novels on Ray (a local Ray by default, or a cluster with --address)",
             "litlens batch novels/ -o out/ --workers 2\n"
             "litlens batch novels.txt -o out/ --address auto --attribute llm --backend openai "
             "--base-url http://gpu-node:8000/v1 --model meta-llama/Llama-3.1-8B-Instruct")
    p.add_argument("input", help="a folder of novels (.txt, .html, .epub) or a text file listing their paths, one a line")
    p.add_argument("-o", "--output", required=True, help="output folder: one project per book, quotations.parquet, manifest.json")
    p.add_argument("--workers", type=int, default=2, help="CPUs of the local Ray (default 2); ignored with --address")
    p.add_argument("--address", help="join a running Ray cluster (e.g. auto or ray://head:10001) instead of starting one")
    p.add_argument("--attribute", choices=["cpu", "llm", "none"], default="cpu",
                   help="speaker attribution: the CPU ranker (default), the seed-003 LLM protocol, or none")
    p.add_argument("--backend", choices=["transformers", "gguf", "openai", "vllm"], default="openai",
                   help="llm: backend (default openai); vllm runs the model inside Ray with ray.data.llm on the "
                        "cluster's GPUs (the litlens[cluster] extra)")
    p.add_argument("--model", help="llm: model name the server serves (vllm: a Hugging Face id or a folder the GPU nodes read)")
    p.add_argument("--base-url", help="llm, openai backend: server URL, e.g. http://127.0.0.1:8000/v1")
    p.add_argument("--api-key-env", help="llm, openai backend: environment variable holding the API key")
    p.add_argument("--export", metavar="FORMATS",
                   help="also export every done book: tei, pdnc or tei,pdnc (OUT/tei/BOOK.xml, OUT/pdnc/BOOK/)")
    p.add_argument("--json", action="store_true", help="print the manifest as JSON")
    p = _add(sub, "search", _cmd_search,
             "find the passages (1 to 5 sentences) of a book that support a claim; put [MASK] where the quotation goes",
             "litlens search -p pp.litlens \"Elizabeth's prejudice is fixed when she overhears Darcy: [MASK]\" -k 5")
    _project_arg(p)
    _book_arg(p)
    p.add_argument("query", help="a claim with [MASK] where the quotation goes, or a description of the passage")
    p.add_argument("--method", choices=list(METHODS), default=DEFAULT_METHOD,
                   help=f"ranker (default {DEFAULT_METHOD}); dense and hybrid first build the book's passage vectors, "
                        "resuming any earlier build")
    p.add_argument("-k", type=int, default=10, help="number of passages (default 10)")
    p.add_argument("--model", help="dense encoder: Hugging Face id or local folder (default: packaged all-MiniLM-L6-v2)")
    p.add_argument("--no-demote-quoted", action="store_true", help="do not demote passages the query itself quotes")
    p.add_argument("--json", action="store_true", help="print JSON")
    p = _add(sub, "evidence", None, "claims and the passages pinned as their evidence: pin, unpin, list, export",
             "litlens evidence pin -p pp.litlens --claim 'first impressions' --start 1200 --end 1350")
    evidence_sub = p.add_subparsers(dest="what", metavar="WHAT", required=True)
    q = _add(evidence_sub, "pin", _cmd_evidence_pin, "pin a passage as evidence for a named claim",
             "litlens evidence pin -p pp.litlens --claim pride --query 'Darcy refuses to dance [MASK]' --rank 1")
    _project_arg(q)
    _book_arg(q)
    q.add_argument("--claim", required=True, help="name of the claim (created when new)")
    q.add_argument("--claim-text", help="the claim's wording, stored with it")
    q.add_argument("--start", type=int, help="passage start offset (from `litlens search`)")
    q.add_argument("--end", type=int, help="passage end offset")
    q.add_argument("--query", help="instead of offsets: search this query and pin the hit at --rank")
    q.add_argument("--rank", type=int, default=1, help="with --query: which hit to pin (default 1)")
    q.add_argument("--method", choices=["bm25", "dense", "hybrid"], default=DEFAULT_METHOD, help=f"with --query: ranker (default {DEFAULT_METHOD})")
    q = _add(evidence_sub, "unpin", _cmd_evidence_unpin, "remove a pinned passage", "litlens evidence unpin -p pp.litlens 3")
    _project_arg(q)
    q.add_argument("id", type=int, help="evidence id (see `litlens evidence list`)")
    q = _add(evidence_sub, "list", _cmd_evidence_list, "list pinned evidence", "litlens evidence list -p pp.litlens --json")
    _project_arg(q)
    _book_arg(q)
    q.add_argument("--claim", help="only this claim")
    q.add_argument("--json", action="store_true", help="print JSON")
    q = _add(evidence_sub, "export", _cmd_evidence_export, "export pinned evidence as CSV or Markdown (chapter and quotation)",
             "litlens evidence export -p pp.litlens --format md -o evidence.md")
    _project_arg(q)
    _book_arg(q)
    q.add_argument("--claim", help="only this claim")
    q.add_argument("--format", choices=["csv", "md"], help="default: from the file name (.md → md, else csv)")
    q.add_argument("-o", "--output", required=True, help="file to write")
    q = _add(eval_sub, "retrieval", _cmd_eval_retrieval,
             "score a ranker on a BEIR folder or RELiC-format JSON: recall@k, mean rank, MRR, nDCG@10",
             "litlens eval retrieval --beir ../shared/data/birco-relic-dev --method bm25 --json --run-out run.json")
    src = q.add_mutually_exclusive_group(required=True)
    src.add_argument("--beir", metavar="DIR", help="BEIR folder (queries.jsonl, corpus.jsonl, qrels/test.tsv)")
    src.add_argument("--relic", metavar="FILE", help="RELiC-format JSON (see README)")
    q.add_argument("--method", choices=list(METHODS), default=DEFAULT_METHOD, help=f"ranker (default {DEFAULT_METHOD})")
    q.add_argument("--model", help="dense encoder: Hugging Face id or local folder (default: packaged all-MiniLM-L6-v2)")
    q.add_argument("--no-demote-quoted", action="store_true", help="do not demote candidates the query itself quotes")
    q.add_argument("--run-out", metavar="RUN.json", help="write {query_id: [candidate ids, best first]}")
    q.add_argument("--json", action="store_true", help="print JSON")
    q = _add(train_sub, "retriever", _cmd_train_retriever,
             "train the dual encoder (contrastive, in-batch negatives, one book per batch) on RELiC JSON or a BEIR folder",
             "litlens train retriever --data examples.json -o my-retriever --epochs 10 --batch-size 32")
    q.add_argument("--data", required=True, help="RELiC-format JSON file or BEIR folder")
    q.add_argument("-o", "--output", required=True, help="model folder to write (checkpoints go in OUTPUT/checkpoint)")
    q.add_argument("--model", help="starting encoder (default: packaged all-MiniLM-L6-v2)")
    q.add_argument("--epochs", type=int, default=10, help="at most this many epochs (default 10)")
    q.add_argument("--batch-size", type=int, default=32, help="pairs per batch, all from one book (default 32)")
    q.add_argument("--grad-accum", type=int, default=1, help="batches per optimiser step (default 1)")
    q.add_argument("--lr", type=float, default=1e-5, help="learning rate (default 1e-5)")
    q.add_argument("--pooling", choices=["mean", "first"], default="mean", help="pooling (default mean)")
    q.add_argument("--patience", type=int, default=2, help="stop after this many epochs without a better validation loss")
    q.add_argument("--no-resume", action="store_true", help="start afresh even when OUTPUT/checkpoint exists")
    q.add_argument("--seed", type=int, default=13, help="random seed")
    q.add_argument("--json", action="store_true", help="print the summary as JSON")
    p = _add(sub, "link-criticism", _cmd_link_criticism,
             "find an essay's quotations of the novel and write RELiC-style retrieval examples ([MASK] + context)",
             "litlens link-criticism -p pp.litlens --book 1 essay.txt -o examples.json")
    _project_arg(p)
    _book_arg(p)
    p.add_argument("essay", help="the essay: .txt, .pdf or .html")
    p.add_argument("-o", "--output", required=True, help="RELiC-format JSON to write")
    p.add_argument("--min-score", type=float, default=80.0, help="RapidFuzz QRatio threshold (default 80)")
    p.add_argument("--json", action="store_true", help="print the summary as JSON")
    # -- annotation studies (issue 6): study …, agreement, qa-metrics
    p = _add(sub, "study", None, "annotation studies: create, assign, status, export, merge",
             "litlens study create-proxy -p s.litlens --beir ../shared/data/birco-relic-dev --distractors bm25")
    study_sub = p.add_subparsers(dest="what", metavar="WHAT", required=True)
    q = _add(study_sub, "create-proxy", _cmd_study_create_proxy,
             "create a 3-candidate proxy-task study (gold + strongest distractors, shuffled per item)",
             "litlens study create-proxy -p s.litlens --beir ../shared/data/birco-relic-dev --distractors bm25 --per-item 3")
    _project_arg(q)
    q.add_argument("--beir", help="BEIR folder (queries.jsonl, corpus.jsonl, qrels/test.tsv)")
    q.add_argument("--pinned", nargs="+", metavar="CLAIM",
                   help="claims whose pinned evidence passages are the gold (see `litlens evidence pin`)")
    _book_arg(q)
    q.add_argument("--distractors", choices=["bm25", "dense"], default="bm25", help="ranker for the distractors")
    q.add_argument("--per-item", type=int, default=3, help="candidates per item, gold included (default 3)")
    q.add_argument("--name", help="study name (default: proxy-<folder>)")
    q.add_argument("--seed", type=int, default=0, help="shuffle seed (default 0)")
    q.add_argument("--limit", type=int, help="use only the first N queries")
    q.add_argument("--json", action="store_true", help="print the study and the skipped items as JSON")
    q = _add(study_sub, "items", _cmd_study_items,
             "print a proxy study's items as shown: context and options in shown order, gold marked",
             "litlens study items -p s.litlens proxy-birco-relic-dev --json")
    _project_arg(q)
    q.add_argument("study", help="study name or id")
    q.add_argument("--json", action="store_true", help="print JSON")
    q = _add(study_sub, "check", _cmd_study_check,
             "report items whose options share a sentence or a run of 8 words (which options, what text)",
             "litlens study check -p s.litlens proxy-birco-relic-dev")
    _project_arg(q)
    q.add_argument("study", help="study name or id")
    q.add_argument("--json", action="store_true", help="print JSON")
    q = _add(study_sub, "create-likert", _cmd_study_create_likert,
             "create a 1-5 Likert study of system answers to LiteraryQA questions",
             "litlens study create-likert -p s.litlens --literaryqa ../shared/data/literaryqa/test.jsonl "
             "--answers answers.csv --mode reference")
    _project_arg(q)
    q.add_argument("--literaryqa", required=True, help="LiteraryQA split (.jsonl)")
    q.add_argument("--answers", required=True, help="system answers: CSV question_id,system,answer or JSONL")
    q.add_argument("--mode", choices=["reference", "summary"], default="reference", help="what raters see besides the references")
    q.add_argument("--name", help="study name")
    q = _add(study_sub, "assign", _cmd_study_assign, "add annotators and give each item to --overlap of them",
             "litlens study assign -p s.litlens proxy-birco-relic-dev --annotators A,B,C --overlap 3")
    _project_arg(q)
    q.add_argument("study", help="study name or id")
    q.add_argument("--annotators", required=True, help="comma-separated names, e.g. A,B,C")
    q.add_argument("--overlap", type=int, default=1, help="annotators per item (default 1)")
    q = _add(study_sub, "list", _cmd_study_list, "list the project's studies", "litlens study list -p s.litlens")
    _project_arg(q)
    q.add_argument("--json", action="store_true", help="print JSON")
    q = _add(study_sub, "status", _cmd_study_status, "progress per annotator and agreement so far",
             "litlens study status -p s.litlens proxy-birco-relic-dev --json")
    _project_arg(q)
    q.add_argument("study", help="study name or id")
    q.add_argument("--bootstrap", type=int, default=1000, help="bootstrap replicates for the CIs (default 1000)")
    q.add_argument("--json", action="store_true", help="print JSON")
    q = _add(study_sub, "export", _cmd_study_export,
             "export one row per judgment as CSV, with agreement.json beside it",
             "litlens study export -p s.litlens proxy-birco-relic-dev -o out/judgments.csv")
    _project_arg(q)
    q.add_argument("study", help="study name or id")
    q.add_argument("-o", "--output", required=True, help="output CSV")
    q.add_argument("--bootstrap", type=int, default=1000, help="bootstrap replicates for the CIs (default 1000)")
    q.add_argument("--all-events", action="store_true",
                   help="write the whole log (answers, skips, undos) instead of the standing judgments")
    q = _add(study_sub, "merge", _cmd_study_merge,
             "merge judgments from annotators' project files or exported CSVs (duplicates skipped, conflicts reported)",
             "litlens study merge -p lead.litlens annotator_b.litlens annotator_c_judgments.csv")
    _project_arg(q)
    q.add_argument("files", nargs="+", help="project files or judgment CSVs from `litlens study export`")
    q.add_argument("--json", action="store_true", help="print JSON")
    q = _add(study_sub, "judge", _cmd_study_judge,
             "rate a Likert study's items with an LLM as one more annotator (slow on CPU)",
             "litlens study judge -p s.litlens likert-answers-reference --limit 5")
    _project_arg(q)
    q.add_argument("study", help="Likert study name or id")
    q.add_argument("--annotator", default="llm-judge", help="annotator name to record (default llm-judge)")
    q.add_argument("--backend", default="transformers", choices=["transformers", "gguf", "openai"], help="LLM backend")
    q.add_argument("--model", help="model id or path (default: the packaged small model on CPU)")
    q.add_argument("--limit", type=int, help="rate at most N items")

    p = _add(sub, "audit", None, "memorization audit: how much of a book an LLM already knows (seed 003)",
             "litlens audit name-cloze -p dm.litlens --limit 20 --json")
    audit_sub = p.add_subparsers(dest="probe", metavar="PROBE", required=True)
    q = _add(audit_sub, "name-cloze", _cmd_audit,
             "name cloze: guess a masked one-word character name in 40-60-word passages; flags accuracy >= 0.10",
             "litlens audit name-cloze -p dm.litlens --limit 20 --json")
    _project_arg(q)
    _book_arg(q)
    q.add_argument("--limit", type=int, default=100, help="passages to ask about (default 100)")
    _audit_args(q)
    q = _add(audit_sub, "csg", _cmd_audit,
             "corrupted-speaker guessing: rename the speaker of explicit quotations, count answers that follow the text or memory",
             "litlens audit csg -p dm.litlens --limit 20 --json")
    _project_arg(q)
    _book_arg(q)
    q.add_argument("--limit", type=int, default=100, help="quotations to ask about (default 100)")
    _audit_args(q)
    q = _add(audit_sub, "mink", _cmd_audit,
             "Min-K% Prob and Min-K%++ of a text, or of a book per chapter beside a shuffled-words control",
             "litlens audit mink -p dm.litlens --k 0.2 --json\nlitlens audit mink --text passage.txt --backend gguf")
    _project_arg(q, required=False)
    _book_arg(q)
    q.add_argument("--text", help="score this text file instead of a project's book")
    q.add_argument("--control", help="control text file (default: the same words shuffled with --seed)")
    q.add_argument("--k", type=float, default=0.2, help="share of lowest-scoring tokens averaged (default 0.2)")
    q.add_argument("--chapter-tokens", type=int, default=2048,
                   help="score the first N tokens of each chapter (default 2048; 0 = all)")
    _audit_args(q)

    p = _add(sub, "agreement", _cmd_agreement,
             "inter-annotator agreement of any CSV with columns item_id,annotator,label",
             "litlens agreement --judgments judgments.csv --kind ordinal --json")
    p.add_argument("--judgments", required=True, help="CSV with item_id,annotator,label (extra columns ignored)")
    p.add_argument("--kind", choices=["nominal", "ordinal", "interval"], default="nominal",
                   help="level of measurement for Krippendorff's alpha (ordinal/interval: quadratic Cohen weights)")
    p.add_argument("--scale", help="the allowed labels in order, e.g. 1-5 or low,mid,high")
    p.add_argument("--bootstrap", type=int, default=0, help="bootstrap replicates for 95%% CIs (adds a details key)")
    p.add_argument("--json", action="store_true", help="print JSON")

    p = _add(sub, "qa-metrics", _cmd_qa_metrics,
             "EM, token F1, ROUGE-L, METEOR of system answers; Kendall tau against human Likert ratings",
             "litlens qa-metrics --literaryqa ../shared/data/literaryqa/test.jsonl --answers answers.csv "
             "--ratings likert-answers-reference -p s.litlens --json")
    p.add_argument("--literaryqa", required=True, help="LiteraryQA split (.jsonl)")
    p.add_argument("--answers", required=True, help="system answers: CSV question_id,system,answer or JSONL")
    p.add_argument("--ratings", help="a Likert study name (with -p) or a judgments CSV (item_id = question_id|system)")
    p.add_argument("--bertscore", action="store_true", help="add BERTScore with the packaged MiniLM encoder (slower)")
    _project_arg(p, required=False)
    p.add_argument("--json", action="store_true", help="print JSON")
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
