"""What a scholar sees in the evidence panel, measured on the sample novel (issue 35).

1. Overlap: for five claims, how many pairs of the top 10 passages overlap in the book, ranked
   the way search ranked before (passages in score order) and the way it ranks now (a passage
   that overlaps a higher-ranked one is left out).
2. Resumable vector build: a dense build of the first chapters is timed whole; then, from
   nothing again, cancelled at 50% and resumed. Reports the resumed build's time as a ratio of
   the whole build measured in the same run, and how many vectors the cancel kept.

    .venv/bin/python benchmarks/bench_evidence.py [--chapters 12] [--skip-build]

Writes benchmarks/results/evidence.json.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np

from litlens.errors import Cancelled
from litlens.resources import sample_novel
from litlens.services.books import ingest_file
from litlens.services.retrieval import build_index, load_retriever, search
from litlens.store.project import open_project
from litlens.store.retrieval import RetrievalStore

HERE = Path(__file__).resolve().parent
CLAIMS = [
    "Elizabeth's prejudice is first fixed when she overhears Darcy: [MASK]",
    "Mr. Collins proposes and will not take no for an answer: [MASK]",
    "Elizabeth reads Darcy's letter and is ashamed of herself: [MASK] Till this moment she never knew herself.",
    "Mrs. Bennet complains of her poor nerves to her husband: [MASK]",
    "Lady Catherine tries to forbid the engagement: [MASK]",
]


def overlapping_pairs(spans: list[tuple[int, int]]) -> int:
    return sum(1 for a in range(len(spans)) for b in range(a + 1, len(spans))
               if spans[a][0] < spans[b][1] and spans[b][0] < spans[a][1])


def overlap_figures(project: str) -> dict:
    rows = {}
    with open_project(project) as p:
        retriever = load_retriever(p, 1, "bm25")
    for claim in CLAIMS:
        scores = retriever.scores(claim)
        raw = np.argsort(-scores, kind="stable")[:10]
        before = [(retriever.candidates[i].start, retriever.candidates[i].end) for i in raw]
        after = [(h.start, h.end) for h in search(project, claim, method="bm25", k=10)]
        rows[claim] = {"before": overlapping_pairs(before), "after": overlapping_pairs(after),
                       "distinct_before": _distinct_count(before), "distinct_after": _distinct_count(after)}
    return rows


def _distinct_count(spans: list[tuple[int, int]]) -> int:
    """How many of the passages overlap no higher-ranked one."""
    return sum(1 for n, (s, e) in enumerate(spans) if not any(s < e2 and s2 < e for s2, e2 in spans[:n]))


def build_figures(chapters: int) -> dict:
    lines = sample_novel().read_text(encoding="utf-8").splitlines(keepends=True)
    heads = [n for n, line in enumerate(lines) if line.strip().lower().startswith("chapter ")]
    cut = heads[chapters] if len(heads) > chapters else len(lines)
    folder = Path(tempfile.mkdtemp())
    novel = folder / "pp_part.txt"
    novel.write_text("".join(lines[:cut]), encoding="utf-8")
    whole, resumed = folder / "whole.litlens", folder / "resumed.litlens"
    ingest_file(whole, novel)
    ingest_file(resumed, novel)
    build_index(whole, method="bm25")  # candidates first: both runs time the vectors alone
    build_index(resumed, method="bm25")
    t = time.perf_counter()
    info = build_index(whole, method="dense")
    whole_s = time.perf_counter() - t
    reached = [0.0]

    def report(fraction: float, _message: str) -> None:
        reached[0] = fraction

    t = time.perf_counter()
    try:
        build_index(resumed, method="dense", progress=report, cancelled=lambda: reached[0] >= 0.5)
    except Cancelled:
        pass
    first_s = time.perf_counter() - t
    with open_project(resumed) as p:
        from litlens.retrieval.dense import shared_encoder

        kept = sum(c[0] for c in RetrievalStore(p).chunk_summary(1, shared_encoder().cache_key).values())
    t = time.perf_counter()
    build_index(resumed, method="dense")
    resume_s = time.perf_counter() - t
    return {"chapters": chapters, "passages": info["candidates"], "whole_build_s": round(whole_s, 1),
            "until_cancel_s": round(first_s, 1), "vectors_kept_by_cancel": kept,
            "resume_s": round(resume_s, 1), "resume_over_whole": round(resume_s / whole_s, 2)}


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--chapters", type=int, default=12, help="chapters of the sample used for the build timing")
    parser.add_argument("--skip-build", action="store_true")
    parser.add_argument("--out", default=str(HERE / "results" / "evidence.json"))
    args = parser.parse_args()
    warnings.simplefilter("ignore")
    project = os.path.join(tempfile.mkdtemp(), "pp.litlens")
    ingest_file(project, sample_novel())
    out: dict = {"cpu_count": os.cpu_count(), "overlap_top10": overlap_figures(project)}
    out["overlap_total"] = {k: sum(r[k] for r in out["overlap_top10"].values())
                            for k in ("before", "after", "distinct_before", "distinct_after")}
    print(json.dumps(out["overlap_total"]), file=sys.stderr)
    if not args.skip_build:
        out["resumable_build"] = build_figures(args.chapters)
        print(json.dumps(out["resumable_build"]), file=sys.stderr)
    Path(args.out).write_text(json.dumps(out, indent=2, ensure_ascii=False), encoding="utf-8")
    print(json.dumps(out, indent=2, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
