"""Index build time and query latency on Pride and Prejudice (the sample novel).

    .venv/bin/python benchmarks/bench_retrieval.py [--project PP.litlens] [--skip-dense] [--no-baseline]

Without --project the sample novel is ingested into a temporary project first. The dense index
is built as the first dense search builds it (precision ``auto``: bfloat16 on a CPU with AMX);
unless --no-baseline is given, every passage is then encoded again in float32 in the same run,
for the speed ratio and for how close the two sets of vectors are (cosine, and overlap of the
top 10 passages of the eight queries). Writes benchmarks/results/retrieval_speed.json.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
import warnings
from pathlib import Path

from litlens.resources import sample_novel
from litlens.services.books import ingest_file
from litlens.services.retrieval import build_index, search
from litlens.store.project import open_project
from litlens.store.retrieval import RetrievalStore

HERE = Path(__file__).resolve().parent
QUERIES = [
    "Elizabeth's prejudice is first fixed when she overhears Darcy: [MASK]",
    "Darcy's first proposal",
    "Mr. Collins proposes to Elizabeth and will not take no for an answer [MASK]",
    "Lady Catherine tries to forbid the engagement",
    "Elizabeth reads the letter and is ashamed of herself: [MASK] Till this moment she never knew herself.",
    "Lydia elopes with Wickham",
    "the visit to Pemberley and the housekeeper's praise of her master",
    "Mrs. Bennet's nerves",
]


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--project")
    parser.add_argument("--skip-dense", action="store_true")
    parser.add_argument("--no-baseline", action="store_true", help="skip the float32 re-encoding")
    parser.add_argument("--out", default=str(HERE / "results" / "retrieval_speed.json"))
    args = parser.parse_args()
    warnings.simplefilter("ignore")
    project = args.project
    if project is None:
        project = os.path.join(tempfile.mkdtemp(), "pp.litlens")
        ingest_file(project, sample_novel())
    with open_project(project) as p:  # start from no stored index
        with p.atomic() as conn:
            conn.execute("DELETE FROM retrieval_embeddings")
            conn.execute("DELETE FROM retrieval_candidates")
    out: dict = {"project": args.project or "temporary (the sample novel, ingested)", "cpu_count": os.cpu_count(), "queries": len(QUERIES)}
    t = time.perf_counter()
    info = build_index(project, method="bm25")
    out["candidates"] = info["candidates"]
    out["candidate_build_s"] = round(time.perf_counter() - t, 2)
    methods = ["bm25"] if args.skip_dense else ["bm25", "dense", "hybrid"]
    if not args.skip_dense:
        t = time.perf_counter()
        build_index(project, method="dense")
        out["dense_build_s"] = round(time.perf_counter() - t, 1)
        with open_project(project) as p:
            out["dense_cached_keys"] = RetrievalStore(p).embedding_keys(p.books()[0].id)
        from litlens.retrieval.dense import shared_encoder

        out["dense_precision"] = shared_encoder().precision
        if not args.no_baseline:
            out["float32_baseline"] = float32_baseline(project, out["dense_build_s"])
            print("float32 baseline", out["float32_baseline"], file=sys.stderr)
    for method in methods:
        t = time.perf_counter()
        search(project, QUERIES[0], method=method, k=10)  # loads the index (and the encoder)
        load = time.perf_counter() - t
        times = []
        for q in QUERIES:
            t = time.perf_counter()
            search(project, q, method=method, k=10)
            times.append(1000 * (time.perf_counter() - t))
        out[method] = {"first_query_incl_load_s": round(load, 2), "median_ms": round(statistics.median(times), 1),
                       "max_ms": round(max(times), 1)}
        print(method, out[method], file=sys.stderr)
    Path(args.out).write_text(json.dumps(out, indent=2), encoding="utf-8")
    print(json.dumps(out, indent=2))
    return 0


def float32_baseline(project: str, build_s: float) -> dict:
    """Encode every stored passage again in float32 and compare with the stored vectors."""
    import numpy as np

    from litlens.retrieval.dense import DenseEncoder, shared_encoder

    with open_project(project) as p:
        store = RetrievalStore(p)
        book = p.books()[0].id
        texts = [c.text for c in store.candidates(book)]
        stored = store.embeddings(book, shared_encoder().cache_key)
    fp32 = DenseEncoder(precision="fp32")
    t = time.perf_counter()
    exact = fp32.encode_passages(texts)
    seconds = time.perf_counter() - t
    cos = (exact * stored).sum(1) / (np.linalg.norm(exact, axis=1) * np.linalg.norm(stored, axis=1))
    overlaps = []
    for q in QUERIES:
        qa, qb = fp32.encode_queries([q])[0], shared_encoder().encode_queries([q])[0]
        top_exact = set(np.argsort(-(exact @ qa))[:10])
        overlaps.append(len(top_exact & set(np.argsort(-(stored @ qb))[:10])))
    return {
        "float32_build_s": round(seconds, 1),
        "speedup": round(seconds / build_s, 2),
        "cosine_min": round(float(cos.min()), 5),
        "cosine_mean": round(float(cos.mean()), 6),
        "top10_overlap_per_query": overlaps,
    }


if __name__ == "__main__":
    sys.exit(main())
