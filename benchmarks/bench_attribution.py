"""CPU speaker-attribution benchmark: time per novel, leave-novels-out accuracy, reliability, addressees.

Steps (each can be chosen with --steps):

* ``time``: attribute the sample (Pride and Prejudice, already ingested) in a fresh
  process with the bundled model; wall time includes imports and loading the model.
* ``gold``: 5-fold leave-novels-out CV on the PDNC novels with gold quotations and gold
  characters (a novel is never scored by a model trained on it), with accuracy per
  confidence decile and addressee accuracy.
* ``e2e``: the same folds, scored end to end: detected quotations and discovered
  characters (unmatched gold quotations count as wrong).

Usage:  .venv/bin/python benchmarks/bench_attribution.py [--pdnc ../shared/data/pdnc] [--steps time,gold,e2e]
Results: benchmarks/results/attribution.json (steps not run keep their previous figures).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
RESULTS = REPO / "benchmarks" / "results" / "attribution.json"
SAMPLE_PDNC = REPO / "tests" / "fixtures" / "pdnc" / "PrideAndPrejudice"

_TIME = """
import json, resource, sys, time
from litlens.services.books import ingest_file
project = sys.argv[1]
ingest_file(project, sys.argv[2])
t0 = time.perf_counter()
from litlens.services.attribution import attribute_book
summary = attribute_book(project)
elapsed = time.perf_counter() - t0
print(json.dumps({"seconds": round(elapsed, 2), "quotations": summary["quotations"],
                  "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)}))
"""


def time_sample() -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        out = subprocess.run([sys.executable, "-c", _TIME, str(Path(tmp) / "pp.litlens"), str(SAMPLE_PDNC / "novel_text.txt")],
                             capture_output=True, text=True, check=True)
    result = json.loads(out.stdout.strip().splitlines()[-1])
    result["what"] = "litlens attribute on Pride and Prejudice (detected quotations, discovered characters), fresh process, model load included"
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pdnc", default=str(REPO.parent / "shared" / "data" / "pdnc"))
    parser.add_argument("--steps", default="time,gold,e2e")
    parser.add_argument("--folds", type=int, default=5)
    args = parser.parse_args()
    from litlens.services.attribution import evaluate_attribution

    results = json.loads(RESULTS.read_text()) if RESULTS.is_file() else {}
    steps = args.steps.split(",")
    if "time" in steps:
        results["time_pride_and_prejudice"] = time_sample()
        print("time:", results["time_pride_and_prejudice"], flush=True)
    for step, quotes, characters in (("gold", "gold", "gold"), ("e2e", "detected", "discovered")):
        if step not in steps:
            continue
        t0 = time.perf_counter()
        result = evaluate_attribution(args.pdnc, quotes=quotes, characters=characters, folds=args.folds, details=True)
        pdnc = os.path.relpath(args.pdnc, REPO)  # as typed from the repository, not this machine's path
        result["command"] = (f".venv/bin/litlens eval attribution --pdnc {pdnc} --method cpu --quotes {quotes} "
                             f"--characters {characters} --folds {args.folds} --details --json")
        result["wall_seconds"] = round(time.perf_counter() - t0, 1)
        results[f"cv_{quotes}_{characters}"] = result
        print(step, json.dumps(result["pooled"]), flush=True)
        RESULTS.write_text(json.dumps(results, indent=2) + "\n")
    RESULTS.write_text(json.dumps(results, indent=2) + "\n")


if __name__ == "__main__":
    main()
