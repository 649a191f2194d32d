"""Who speaks: attribute, batch on Ray, eval attribution, train attributor."""

from __future__ import annotations

import argparse
import sys
from collections import Counter

from litlens.cli.common import add_command, book_arg, emit_json, progress_bar, project_arg, table


def _attribution_method_args(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--method", choices=["cpu", "llm"], default="cpu", help="cpu (rules + ranker) or llm (seed-003 protocol)")
    parser.add_argument("--backend", choices=["transformers", "gguf", "openai"], default="transformers", help="llm: backend")
    parser.add_argument("--model", help="llm: model id, local path or GGUF file (default: the packaged small model)")
    parser.add_argument("--base-url", help="llm, openai backend: server URL, e.g. http://127.0.0.1:8000/v1")
    parser.add_argument("--api-key-env", help="llm, openai backend: environment variable holding the API key")

def _cmd_batch(args: argparse.Namespace) -> int:
    from litlens.services.batch import LLMSettings, run_batch

    llm = LLMSettings(args.backend, args.model, args.base_url, args.api_key_env) if args.attribute == "llm" else None
    with progress_bar("batch: books") as bar:
        manifest = run_batch(args.input, args.output, workers=args.workers, address=args.address,
                             attribute=args.attribute, llm=llm, progress=bar, export=args.export)
    books = manifest["books"]
    failed = [b for b in books if b["status"] == "failed"]
    if args.json:
        emit_json(manifest)
    else:
        counts = Counter(b["status"] for b in books)
        print(f"{len(books)} books: {counts['done']} done, {counts['skipped']} skipped (already current), "
              f"{counts['failed']} failed; {sum(b['quotations'] for b in books):,} quotations; outputs in {args.output}")
    for b in failed:
        print(f"litlens: failed: {b['book']}: {b['error']}", file=sys.stderr)
    return 1 if failed else 0

def _cmd_attribute(args: argparse.Namespace) -> int:
    with progress_bar(f"attribute ({args.method})") as bar:
        if args.method == "llm":
            from litlens.services.llm_attribution import attribute_book_llm

            summary = attribute_book_llm(args.project, args.book, backend=args.backend, model=args.model,
                                         base_url=args.base_url, api_key_env=args.api_key_env, progress=bar, cancelled=None)
        else:
            from litlens.services.attribution import attribute_book

            summary = attribute_book(args.project, args.book, model_path=args.attributor, progress=bar)
    if args.json:
        emit_json(summary)
        return 0
    if args.method == "cpu":
        print(f"book {summary['book_id']}: {summary['attributed']} of {summary['quotations']} quotations attributed "
              f"({summary['kept']} corrected or gold speakers kept, {summary['low_confidence']} below 0.5 confidence) "
              f"in {summary['seconds']} s")
    else:
        print(", ".join(f"{k}: {v}" for k, v in summary.items() if not isinstance(v, (dict, list))))
    return 0

def _cmd_eval_attribution(args: argparse.Namespace) -> int:
    with progress_bar(f"eval attribution ({args.method})") as bar:
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
        emit_json(result)
        return 0

    def pct(v: float | None) -> str:
        return "-" if v is None else f"{100 * v:.1f}"

    rows = [[name, s["quotations"], pct(s["accuracy"]), pct(s["explicit"]), pct(s["other"]), pct(s["anaphoric"]),
             pct(s["implicit"])] for name, s in [*result["novels"].items(), ("POOLED", result["pooled"])]]
    table(rows, ["novel", "scored", "accuracy", "explicit", "other", "anaphoric", "implicit"])
    return 0

def _cmd_train_attributor(args: argparse.Namespace) -> int:
    from litlens.services.attribution import train_attributor

    with progress_bar("train attributor") as bar:
        result = train_attributor(args.pdnc, args.output, novels=args.novels, progress=bar)
    print(f"wrote {result['model']} (trained on {len(result['trained_on'])} novels: {', '.join(result['trained_on'])}) "
          f"in {result['seconds']} s")
    return 0


def register(sub: argparse._SubParsersAction, eval_sub: argparse._SubParsersAction, train_sub: argparse._SubParsersAction) -> None:
    """attribute, eval attribution, train attributor, batch."""
    p = add_command(sub, "attribute", _cmd_attribute,
             "attribute a speaker (with confidence and addressees) to every quotation of a book",
             "litlens attribute -p emma.litlens --method cpu\n"
             "litlens attribute -p emma.litlens --method llm --backend openai --model llama3 --base-url http://127.0.0.1:8000/v1")
    project_arg(p)
    book_arg(p)
    _attribution_method_args(p)
    p.add_argument("--attributor", metavar="MODEL", help="CPU attributor model file (default: the bundled one)")
    p.add_argument("--json", action="store_true", help="print the summary as JSON")
    q = add_command(eval_sub, "attribution", _cmd_eval_attribution,
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
    q = add_command(train_sub, "attributor", _cmd_train_attributor,
             "train the CPU speaker attributor on PDNC novels (gold quotations and characters)",
             "litlens train attributor --pdnc ../shared/data/pdnc -o attributor.zip")
    q.add_argument("--pdnc", required=True, help="PDNC data folder")
    q.add_argument("-o", "--output", required=True, help="model file to write: a ZIP of LightGBM text, numpy arrays and JSON (no pickle)")
    q.add_argument("--novels", help="comma-separated novel names to train on (default: all)")
    p = add_command(sub, "batch", _cmd_batch,
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
