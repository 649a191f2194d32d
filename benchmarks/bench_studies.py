"""Annotation-study benchmark.

* ``dashboard_recompute``: everything the live agreement dashboard shows (Fleiss' κ,
  Krippendorff's α, all/none agree, Cohen's κ for every pair, accuracy, majority accuracy,
  confusion matrix, κ over time), for 1,000 items × 5 annotators; point estimates alone and
  with 200 bootstrap replicates (the dashboard's setting). Target ≤ 20 ms. Also the full
  refresh the dashboard does after a judgment: read the judgment log from SQLite, rebuild
  the table, recompute.
* ``two_process_writes``: two processes recording judgments into the same project file at
  once (each judgment its own committed transaction, synchronous = FULL); judgments per
  second for both together.
* ``reference_agreement``: max absolute difference between our statistics and statsmodels
  (Fleiss), scikit-learn (Cohen, 3 weightings) and krippendorff (α, 3 levels, 20% missing)
  over 500 random tables each.

Usage:  .venv/bin/python benchmarks/bench_studies.py
Writes benchmarks/results/studies.json.
"""

from __future__ import annotations

import json
import math
import os
import platform
import random
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
RESULTS = REPO / "benchmarks" / "results" / "studies.json"
BEIR_MINI = REPO / "tests" / "fixtures" / "studies" / "beir_mini"

from litlens.studies import agreement as ag  # noqa: E402


def _timeit(fn, repeat: int = 30) -> dict:
    fn()  # warm-up (and bootstrap weights cache, as in the running dashboard)
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t) * 1000)
    return {"median_ms": round(float(np.median(times)), 2), "p90_ms": round(float(np.percentile(times, 90)), 2),
            "repeat": repeat}


def dashboard_recompute() -> dict:
    from litlens.services.studies import StudyTable, dashboard_numbers

    rng = np.random.default_rng(0)
    n, a = 1000, 5
    truth = rng.integers(0, 5, n)
    codes = np.clip(truth[:, None] + rng.choice([-1, 0, 0, 0, 1], (n, a)), 0, 4)
    table = ag.RatingTable(tuple(f"q{i}" for i in range(n)), tuple("ABCDE"), (1, 2, 3, 4, 5), codes)
    order = np.array([(i, j) for i in range(n) for j in range(a)])
    gold = {f"q{i}": int(truth[i]) + 1 for i in range(n)}
    likert = StudyTable(table, {}, "ordinal", "quadratic", order, "likert")
    proxy_codes = np.where(rng.random((n, a)) < 0.8, (truth % 3)[:, None], rng.integers(0, 3, (n, a)))
    proxy_table = ag.RatingTable(table.items, table.annotators, (1, 2, 3), proxy_codes)
    proxy = StudyTable(proxy_table, {k: (v - 1) % 3 + 1 for k, v in gold.items()}, "nominal", None, order, "proxy")
    return {
        "items": n, "annotators": a,
        "likert_point_estimates": _timeit(lambda: dashboard_numbers(likert, n_boot=0)),
        "likert_with_200_bootstrap": _timeit(lambda: dashboard_numbers(likert, n_boot=200)),
        "proxy_with_200_bootstrap": _timeit(lambda: dashboard_numbers(proxy, n_boot=200)),
        "full_refresh_from_sqlite": _full_refresh(n, a),
        "target_ms": 20,
    }


def _full_refresh(n: int, a: int) -> dict:
    """The dashboard's refresh after a judgment: read the log, rebuild, recompute (B = 200)."""
    from litlens.services.studies import assign, create_likert_study, dashboard_numbers, study_table
    from litlens.store.project import open_project
    from litlens.store.studies import StudyStore

    with tempfile.TemporaryDirectory() as tmp:
        lqa = Path(tmp) / "lqa.jsonl"
        answers = Path(tmp) / "answers.csv"
        book = {"gutenberg_id": "1", "title": "Synthetic", "summary": "s",
                "qas": [{"question": f"q{i}?", "answers": [f"a{i}", f"b{i}"]} for i in range(n)]}
        lqa.write_text(json.dumps(book) + "\n")
        answers.write_text("question_id,system,answer\n" + "".join(f"1-{i},sys,answer {i}\n" for i in range(n)))
        project = Path(tmp) / "p.litlens"
        create_likert_study(project, literaryqa=lqa, answers=answers, name="l")
        names = list("ABCDE")[:a]
        assign(project, "l", names, overlap=a)
        rng = random.Random(0)
        with open_project(project) as p:
            store = StudyStore(p)
            rec = store.study("l")
            items = store.items(rec.id)
            with p.atomic() as conn:
                ann = {name: store.annotator_id(rec.id, name) for name in names}
                conn.executemany(
                    "INSERT INTO study_judgments (uid, study_id, item_id, annotator_id, event, value, created_at)"
                    " VALUES (?, ?, ?, ?, 'answer', ?, ?)",
                    [(f"{it.id}-{name}", rec.id, it.id, ann[name], str(rng.randint(1, 5)), f"2026-01-01T00:{k:06d}")
                     for k, it in enumerate(items) for name in names])

            def refresh():
                st = study_table(store, rec)
                dashboard_numbers(st, n_boot=200)

            cold = _timeit(refresh, repeat=5)
        # What the dashboard does: the log stays in memory, each refresh reads only the new rows.
        from litlens.services.studies import AgreementMonitor, AnnotationSession

        monitor = AgreementMonitor(project, "l")
        monitor.refresh(n_boot=0)
        session = AnnotationSession.open(project, "l", "A")
        counter = iter(range(10**6))

        def after_one_judgment(n_boot):
            session.answer(next(counter) % len(session.queue), 3)
            t = time.perf_counter()
            monitor.refresh(n_boot=n_boot)
            return (time.perf_counter() - t) * 1000

        incremental = {}
        for n_boot in (0, 200):
            times = [after_one_judgment(n_boot) for _ in range(15)]
            incremental[f"bootstrap_{n_boot}"] = {"median_ms": round(float(np.median(times)), 2),
                                                  "p90_ms": round(float(np.percentile(times, 90)), 2)}
        session.close()
        monitor.close()
        return {"whole_log_reread": cold, "incremental_after_one_judgment": incremental}


WRITER = """
import sys, time
from litlens.services.studies import AnnotationSession
project, annotator, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
session = AnnotationSession.open(project, "proxy", annotator)
t0 = time.time()
for n in range(count):
    session.answer(n % len(session.queue), 1 + n % 3)
print(t0, time.time())
"""


def two_process_writes(count: int = 1000) -> dict:
    from litlens.services.studies import assign, create_proxy_study
    from litlens.store.project import open_project

    with tempfile.TemporaryDirectory() as tmp:
        project = Path(tmp) / "s.litlens"
        create_proxy_study(project, beir=BEIR_MINI, name="proxy")
        assign(project, "proxy", ["A", "B"], overlap=2)
        env = {**os.environ, "PYTHONPATH": str(REPO)}
        t = time.perf_counter()
        procs = [subprocess.Popen([sys.executable, "-c", WRITER, str(project), name, str(count)],
                                  stdout=subprocess.PIPE, text=True, env=env) for name in ("A", "B")]
        spans = [tuple(map(float, p.communicate()[0].split())) for p in procs]
        wall = time.perf_counter() - t
        rates = [count / (end - start) for start, end in spans]
        overall = 2 * count / (max(e for _, e in spans) - min(s for s, _ in spans))
        with open_project(project) as p:
            stored = p.conn.execute("SELECT COUNT(*) FROM study_judgments").fetchone()[0]
            integrity = p.conn.execute("PRAGMA integrity_check").fetchone()[0]
    return {"judgments_per_process": count, "stored": stored, "integrity_check": integrity,
            "per_process_judgments_per_s": [round(r, 1) for r in rates],
            "both_processes_judgments_per_s": round(overall, 1),
            "note": "each judgment is its own committed transaction (synchronous = FULL), two writers at once",
            "wall_s_including_start_up": round(wall, 2)}


def reference_agreement(tables: int = 500) -> dict:
    import krippendorff
    from sklearn.metrics import cohen_kappa_score
    from statsmodels.stats.inter_rater import fleiss_kappa

    rng = np.random.default_rng(2026)
    worst: dict[str, float] = {}
    undefined: dict[str, int] = {}

    def note(name: str, ours: float, ref: float) -> None:
        if math.isnan(ref) or math.isnan(ours):
            if not (math.isnan(ref) and math.isnan(ours)):
                worst[name] = math.inf
            undefined[name] = undefined.get(name, 0) + 1
            return
        worst[name] = max(worst.get(name, 0.0), abs(ours - ref))

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for _ in range(tables):
            n, a, k = int(rng.integers(3, 120)), int(rng.integers(2, 8)), int(rng.integers(2, 7))
            truth = rng.integers(0, k, n)
            codes = np.where(rng.random((n, a)) < rng.random(), rng.integers(0, k, (n, a)), truth[:, None])
            t = ag.RatingTable(tuple(map(str, range(n))), tuple(map(str, range(a))), tuple(range(1, k + 1)), codes)
            note("fleiss_kappa vs statsmodels", ag.fleiss_kappa(t), fleiss_kappa(t.counts()))
            for w in (None, "linear", "quadratic"):
                ref = cohen_kappa_score(codes[:, 0], codes[:, 1], labels=list(range(k)), weights=w)
                note(f"cohen_kappa[{w or 'unweighted'}] vs sklearn", ag.cohen_kappa(t, "0", "1", w), ref)
            miss = codes.copy()
            miss[rng.random(miss.shape) < 0.2] = -1
            tm = ag.RatingTable(t.items, t.annotators, t.categories, miss)
            data = np.where(miss >= 0, miss + 1, np.nan).T.astype(float)
            for level in ag.LEVELS:
                try:
                    ref = krippendorff.alpha(reliability_data=data, level_of_measurement=level,
                                             value_domain=list(range(1, k + 1)))
                except ValueError:
                    ref = math.nan
                note(f"krippendorff_alpha[{level}] vs krippendorff", ag.krippendorff_alpha(tm, level), ref)
        edge = {
            "all agree": np.array([[0, 0, 0], [1, 1, 1], [2, 2, 2], [1, 1, 1]]),
            "one category only": np.zeros((8, 3), dtype=int),
            "two raters": rng.integers(0, 3, (30, 2)),
            "one rater differs on one item": np.array([[0, 0, 0]] * 9 + [[0, 0, 1]]),
        }
        for label, codes in edge.items():
            k = 3
            t = ag.RatingTable(tuple(map(str, range(len(codes)))), tuple(map(str, range(codes.shape[1]))),
                               (1, 2, 3), codes)
            note("fleiss_kappa vs statsmodels", ag.fleiss_kappa(t), fleiss_kappa(t.counts()))
            for w in (None, "quadratic"):
                ref = cohen_kappa_score(codes[:, 0], codes[:, 1], labels=list(range(k)), weights=w)
                note(f"cohen_kappa[{w or 'unweighted'}] vs sklearn", ag.cohen_kappa(t, "0", "1", w), ref)
            data = (codes + 1).T.astype(float)
            try:
                ref = krippendorff.alpha(reliability_data=data, level_of_measurement="nominal", value_domain=[1, 2, 3])
            except ValueError:
                ref = math.nan
            note("krippendorff_alpha[nominal] vs krippendorff", ag.krippendorff_alpha(t, "nominal"), ref)
    return {"random_tables": tables, "edge_cases": list(edge),
            "max_abs_difference": {k: float(f"{v:.3g}") for k, v in worst.items()},
            "both_undefined_cases (ours NaN exactly where the reference is NaN or raises)": undefined}


def main() -> None:
    result = {
        "machine": {"python": platform.python_version(), "cpus": os.cpu_count(),
                    "load_average_1min_at_start": round(os.getloadavg()[0], 2)},
        "dashboard_recompute": dashboard_recompute(),
        "two_process_writes": two_process_writes(),
        "reference_agreement": reference_agreement(),
    }
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(result, indent=2) + "\n")
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
