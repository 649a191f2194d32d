"""Evidence for a claim: search, pinned evidence, eval retrieval, train retriever, link-criticism."""

from __future__ import annotations

import argparse
import sys
import textwrap

from litlens.cli.common import add_command, book_arg, emit_json, progress_bar, project_arg, table
from litlens.errors import LitLensError
from litlens.retrieval.retriever import DEFAULT_METHOD, METHODS


def _cmd_search(args: argparse.Namespace) -> int:
    from litlens.services.retrieval import query_notes, search, shortfall_note

    for note in query_notes(args.query):
        print(f"litlens: note: {note}", file=sys.stderr)
    with progress_bar("search") as bar:
        hits = search(args.project, args.query, book_id=args.book, method=args.method, k=args.k, model=args.model,
                      demote_quoted=not args.no_demote_quoted, progress=bar)
    short = shortfall_note(hits, args.k)
    if short:
        print(f"litlens: note: {short}", file=sys.stderr)
    if args.json:
        emit_json([h.__dict__ for h in hits])
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
        emit_json(rows)
        return 0
    table([[r["id"], r["claim"], r["chapter"], f"{r['start']}-{r['end']}", textwrap.shorten(r["text"], 70)] for r in rows],
           ["id", "claim", "chapter", "offsets", "passage"])
    return 0

def _cmd_evidence_export(args: argparse.Namespace) -> int:
    from litlens.services.retrieval import export_evidence

    n = export_evidence(args.project, args.output, fmt=args.format, book_id=args.book, claim=args.claim)
    print(f"wrote {n} pinned passages to {args.output}")
    return 0

def _cmd_eval_retrieval(args: argparse.Namespace) -> int:
    from litlens.services.retrieval import evaluate_benchmark

    with progress_bar(f"eval retrieval ({args.method})") as bar:
        result = evaluate_benchmark(beir=args.beir, relic=args.relic, method=args.method, model=args.model,
                                    demote_quoted=not args.no_demote_quoted, run_out=args.run_out, progress=bar)
    if args.json:
        emit_json(result)
        return 0
    m = result["metrics"]
    keys = ["recall@1", "recall@3", "recall@5", "recall@10", "recall@50", "recall@100", "mean_rank", "mrr", "ndcg@10"]
    table([[k, f"{m[k]:.1f}"] for k in keys if k in m], ["metric", args.method])
    return 0

def _cmd_train_retriever(args: argparse.Namespace) -> int:
    from litlens.services.retrieval import train_retriever

    with progress_bar("train retriever") as bar:
        result = train_retriever(args.data, args.output, model=args.model, epochs=args.epochs, batch_size=args.batch_size,
                                 grad_accum=args.grad_accum, lr=args.lr, pooling=args.pooling, patience=args.patience,
                                 resume=not args.no_resume, seed=args.seed, progress=bar)
    if args.json:
        emit_json(result)
        return 0
    print(f"wrote {result['output']} after {result['epochs_run']} epochs (best validation loss "
          f"{result['best_val_loss']:.4f} at epoch {result['best_epoch']}) in {result['seconds']} s")
    return 0

def _cmd_link_criticism(args: argparse.Namespace) -> int:
    from litlens.services.retrieval import link_criticism

    result = link_criticism(args.project, args.essay, args.output, book_id=args.book, min_score=args.min_score)
    if args.json:
        emit_json(result)
        return 0
    print(f"found {result['quotations']} quotations of the novel in {args.essay}; wrote {result['examples']} examples to {args.output}")
    return 0


def register(sub: argparse._SubParsersAction, eval_sub: argparse._SubParsersAction, train_sub: argparse._SubParsersAction) -> None:
    """search, evidence …, eval retrieval, train retriever, link-criticism."""
    p = add_command(sub, "search", _cmd_search,
             "find the passages (1 to 5 sentences) of a book that support a claim; put [MASK] where the quotation goes",
             "litlens search -p pp.litlens \"Elizabeth's prejudice is fixed when she overhears Darcy: [MASK]\" -k 5")
    project_arg(p)
    book_arg(p)
    p.add_argument("query", help="a claim with [MASK] where the quotation goes, or a description of the passage")
    p.add_argument("--method", choices=list(METHODS), default=DEFAULT_METHOD,
                   help=f"ranker (default {DEFAULT_METHOD}); dense and hybrid first build the book's passage vectors, "
                        "resuming any earlier build")
    p.add_argument("-k", type=int, default=10, help="number of passages (default 10)")
    p.add_argument("--model", help="dense encoder: Hugging Face id or local folder (default: packaged all-MiniLM-L6-v2)")
    p.add_argument("--no-demote-quoted", action="store_true", help="do not demote passages the query itself quotes")
    p.add_argument("--json", action="store_true", help="print JSON")
    p = add_command(sub, "evidence", None, "claims and the passages pinned as their evidence: pin, unpin, list, export",
             "litlens evidence pin -p pp.litlens --claim 'first impressions' --start 1200 --end 1350")
    evidence_sub = p.add_subparsers(dest="what", metavar="WHAT", required=True)
    q = add_command(evidence_sub, "pin", _cmd_evidence_pin, "pin a passage as evidence for a named claim",
             "litlens evidence pin -p pp.litlens --claim pride --query 'Darcy refuses to dance [MASK]' --rank 1")
    project_arg(q)
    book_arg(q)
    q.add_argument("--claim", required=True, help="name of the claim (created when new)")
    q.add_argument("--claim-text", help="the claim's wording, stored with it")
    q.add_argument("--start", type=int, help="passage start offset (from `litlens search`)")
    q.add_argument("--end", type=int, help="passage end offset")
    q.add_argument("--query", help="instead of offsets: search this query and pin the hit at --rank")
    q.add_argument("--rank", type=int, default=1, help="with --query: which hit to pin (default 1)")
    q.add_argument("--method", choices=["bm25", "dense", "hybrid"], default=DEFAULT_METHOD, help=f"with --query: ranker (default {DEFAULT_METHOD})")
    q = add_command(evidence_sub, "unpin", _cmd_evidence_unpin, "remove a pinned passage", "litlens evidence unpin -p pp.litlens 3")
    project_arg(q)
    q.add_argument("id", type=int, help="evidence id (see `litlens evidence list`)")
    q = add_command(evidence_sub, "list", _cmd_evidence_list, "list pinned evidence", "litlens evidence list -p pp.litlens --json")
    project_arg(q)
    book_arg(q)
    q.add_argument("--claim", help="only this claim")
    q.add_argument("--json", action="store_true", help="print JSON")
    q = add_command(evidence_sub, "export", _cmd_evidence_export, "export pinned evidence as CSV or Markdown (chapter and quotation)",
             "litlens evidence export -p pp.litlens --format md -o evidence.md")
    project_arg(q)
    book_arg(q)
    q.add_argument("--claim", help="only this claim")
    q.add_argument("--format", choices=["csv", "md"], help="default: from the file name (.md → md, else csv)")
    q.add_argument("-o", "--output", required=True, help="file to write")
    q = add_command(eval_sub, "retrieval", _cmd_eval_retrieval,
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
    q = add_command(train_sub, "retriever", _cmd_train_retriever,
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
    p = add_command(sub, "link-criticism", _cmd_link_criticism,
             "find an essay's quotations of the novel and write RELiC-style retrieval examples ([MASK] + context)",
             "litlens link-criticism -p pp.litlens --book 1 essay.txt -o examples.json")
    project_arg(p)
    book_arg(p)
    p.add_argument("essay", help="the essay: .txt, .pdf or .html")
    p.add_argument("-o", "--output", required=True, help="RELiC-format JSON to write")
    p.add_argument("--min-score", type=float, default=80.0, help="RapidFuzz QRatio threshold (default 80)")
    p.add_argument("--json", action="store_true", help="print the summary as JSON")
