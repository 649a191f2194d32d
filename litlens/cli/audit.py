"""The memorization audit: audit name-cloze, csg, mink."""

from __future__ import annotations

import argparse
import sys

from litlens.cli.common import add_command, book_arg, emit_json, progress_bar, project_arg, table
from litlens.errors import LitLensError


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
    with progress_bar(f"audit {args.probe}") as bar:
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
        emit_json(result)
        return 0
    print(audit.verdict(args.probe, result))
    if args.probe == "mink" and result.get("chapters"):
        table([[c["chapter"], c["title"], c["tokens"], f"{c['min_k']:.4f}", f"{c['control_min_k']:.4f}"]
                for c in result["chapters"]], ["chapter", "title", "tokens", "min_k", "control min_k"])
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    """audit name-cloze, csg, mink."""
    p = add_command(sub, "audit", None, "memorization audit: how much of a book an LLM already knows (seed 003)",
             "litlens audit name-cloze -p dm.litlens --limit 20 --json")
    audit_sub = p.add_subparsers(dest="probe", metavar="PROBE", required=True)
    q = add_command(audit_sub, "name-cloze", _cmd_audit,
             "name cloze: guess a masked one-word character name in 40-60-word passages; flags accuracy >= 0.10",
             "litlens audit name-cloze -p dm.litlens --limit 20 --json")
    project_arg(q)
    book_arg(q)
    q.add_argument("--limit", type=int, default=100, help="passages to ask about (default 100)")
    _audit_args(q)
    q = add_command(audit_sub, "csg", _cmd_audit,
             "corrupted-speaker guessing: rename the speaker of explicit quotations, count answers that follow the text or memory",
             "litlens audit csg -p dm.litlens --limit 20 --json")
    project_arg(q)
    book_arg(q)
    q.add_argument("--limit", type=int, default=100, help="quotations to ask about (default 100)")
    _audit_args(q)
    q = add_command(audit_sub, "mink", _cmd_audit,
             "Min-K% Prob and Min-K%++ of a text, or of a book per chapter beside a shuffled-words control",
             "litlens audit mink -p dm.litlens --k 0.2 --json\nlitlens audit mink --text passage.txt --backend gguf")
    project_arg(q, required=False)
    book_arg(q)
    q.add_argument("--text", help="score this text file instead of a project's book")
    q.add_argument("--control", help="control text file (default: the same words shuffled with --seed)")
    q.add_argument("--k", type=float, default=0.2, help="share of lowest-scoring tokens averaged (default 0.2)")
    q.add_argument("--chapter-tokens", type=int, default=2048,
                   help="score the first N tokens of each chapter (default 2048; 0 = all)")
    _audit_args(q)
