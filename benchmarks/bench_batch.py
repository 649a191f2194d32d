"""`litlens batch` on Ray against a sequential loop of the one-book CLI, in the same run.

For the chosen PDNC novels (default: the four smallest; ``--all`` for the 20):

* ``sequential_cli``: ``litlens ingest`` then ``litlens attribute`` per book, one after the
  other, each a fresh process (what a user's shell loop costs); wall time and CPU seconds
  (user + system of the child processes) per book;
* ``batch_1`` and ``batch_2``: ``litlens batch`` with a local Ray of 1 and 2 workers, each into
  a new output folder, wall time including Ray's start-up and shut-down;
* ``batch_resume``: ``litlens batch`` again on the ``batch_2`` output (every book current);
* ``ray_startup``: ``ray.init`` plus one empty task and ``ray.shutdown`` in a fresh process.

Every batch must give each book the quotation count the CLI loop gave; the script says so.
Results go to ``benchmarks/results/batch.json`` (``batch_all.json`` with ``--all``), rewritten after
each phase (``"complete": false`` until the last), with the load average before and after each phase.

Usage:  .venv/bin/python benchmarks/bench_batch.py [--novels N1,N2] [--all] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
PDNC = REPO.parent / "shared" / "data" / "pdnc"
RESULTS_DIR = REPO / "benchmarks" / "results"
LITLENS = [sys.executable, "-m", "litlens.cli"]
SMALLEST = ["DaisyMiller", "WinnieThePooh", "AlicesAdventuresInWonderland", "TheSignOfTheFour"]

RAY_STARTUP = """
import json, time
t0 = time.perf_counter()
import ray
ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
t1 = time.perf_counter()
ray.get(ray.remote(lambda: 1).remote())
t2 = time.perf_counter()
ray.shutdown()
t3 = time.perf_counter()
print(json.dumps({"import_and_init": t1 - t0, "first_task": t2 - t1, "shutdown": t3 - t2, "total": t3 - t0}))
"""


def _run(cmd: list[str]) -> tuple[float, float, subprocess.CompletedProcess]:
    """Wall seconds, child CPU seconds (user + system) and the finished process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run(cmd, capture_output=True, text=True)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, done


def _quotation_count(project: Path) -> int:
    from litlens.services.books import list_quotations

    return len(list_quotations(project))


def _load() -> list[float]:
    return [round(x, 2) for x in os.getloadavg()]


def _save(results: dict, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--novels", help="comma-separated PDNC novel names (default: the four smallest)")
    parser.add_argument("--all", action="store_true", help="all the PDNC novels (about 20)")
    parser.add_argument("--json", action="store_true", help="print the results as JSON")
    args = parser.parse_args()
    if not PDNC.is_dir():
        sys.exit(f"needs the PDNC corpus at {PDNC}")
    names = (sorted(p.name for p in PDNC.iterdir() if (p / "novel_text.txt").is_file()) if args.all
             else (args.novels.split(",") if args.novels else SMALLEST))
    results_path = RESULTS_DIR / ("batch_all.json" if args.all else "batch.json")
    work = Path(tempfile.mkdtemp(prefix="bench_batch_"))
    try:
        novels = work / "novels"
        novels.mkdir()
        for name in names:
            shutil.copyfile(PDNC / name / "novel_text.txt", novels / f"{name}.txt")
        results: dict = {"novels": names, "characters": sum((novels / f"{n}.txt").stat().st_size for n in names),
                         "cpu_count": os.cpu_count(), "complete": False, "load_average_1_5_15": {"start": _load()}}
        import litlens

        results["litlens"] = {"version": litlens.__version__, "from": str(Path(litlens.__file__).parent)}

        wall, cpu, done = _run([sys.executable, "-c", RAY_STARTUP])
        if done.returncode:
            sys.exit(done.stderr[-2000:])
        results["ray_startup"] = json.loads(done.stdout.strip().splitlines()[-1])
        results["load_average_1_5_15"]["after_ray_startup"] = _load()
        _save(results, results_path)

        per_book, counts, seq_started = [], {}, time.perf_counter()
        for name in names:
            project = work / "seq" / f"{name}.litlens"
            project.parent.mkdir(exist_ok=True)
            w1, c1, d1 = _run(LITLENS + ["ingest", str(novels / f"{name}.txt"), "-p", str(project)])
            w2, c2, d2 = _run(LITLENS + ["attribute", "-p", str(project), "--method", "cpu"])
            if d1.returncode or d2.returncode:
                sys.exit(f"{name}: {d1.stderr[-500:]} {d2.stderr[-500:]}")
            counts[name] = _quotation_count(project)
            per_book.append({"book": name, "seconds": round(w1 + w2, 2), "cpu_seconds": round(c1 + c2, 2),
                             "quotations": counts[name]})
        seq_wall = time.perf_counter() - seq_started
        results["sequential_cli"] = {"seconds": round(seq_wall, 2), "books_per_minute": round(60 * len(names) / seq_wall, 2),
                                     "cpu_seconds_per_book": round(sum(b["cpu_seconds"] for b in per_book) / len(names), 2),
                                     "books": per_book}
        results["load_average_1_5_15"]["after_sequential_cli"] = _load()
        _save(results, results_path)

        for label, workers, out in (("batch_1", 1, "out1"), ("batch_2", 2, "out2"), ("batch_resume", 2, "out2")):
            wall, cpu, done = _run(LITLENS + ["batch", str(novels), "-o", str(work / out), "--workers", str(workers), "--json"])
            if done.returncode:
                sys.exit(f"{label}: {done.stderr[-2000:]}")
            manifest = json.loads(done.stdout)
            same = all(b["quotations"] == counts[b["book"]] for b in manifest["books"])
            results[label] = {"workers": workers, "seconds": round(wall, 2),
                              "books_per_minute": round(60 * len(names) / wall, 2),
                              "statuses": sorted({b["status"] for b in manifest["books"]}),
                              "book_seconds": {b["book"]: b["seconds"] for b in manifest["books"]},
                              "same_quotation_counts_as_cli": same}
            results["load_average_1_5_15"][f"after_{label}"] = _load()
            _save(results, results_path)
        results["resume_share_of_first_run"] = round(results["batch_resume"]["seconds"] / results["batch_2"]["seconds"], 3)
        results["complete"] = True
    finally:
        shutil.rmtree(work, ignore_errors=True)

    _save(results, results_path)
    if args.json:
        print(json.dumps(results, indent=2))
    else:
        print(f"{len(names)} novels ({results['characters']:,} characters): {', '.join(names)}")
        print(f"Ray start-up (import, init, one task, shutdown): {results['ray_startup']['total']:.1f} s")
        for label in ("sequential_cli", "batch_1", "batch_2", "batch_resume"):
            r = results[label]
            extra = "" if label == "sequential_cli" else f"  same counts as CLI: {r['same_quotation_counts_as_cli']}"
            print(f"{label:15s} {r['seconds']:7.1f} s  {r['books_per_minute']:6.2f} books/min{extra}")
        print(f"CPU seconds per book (CLI loop): {results['sequential_cli']['cpu_seconds_per_book']}")
        print(f"resume took {results['resume_share_of_first_run']:.1%} of the first 2-worker run")
    return 0


if __name__ == "__main__":
    sys.exit(main())
