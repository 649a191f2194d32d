"""Evidence retrieval on BIRCO-RELiC dev (30 queries, ~50 judged candidates each, one relevant).

Measures bm25 / dense / hybrid with and without demotion of the query's own quotations, and
checks that the two tuned parameters (tau: BM25 mask-distance decay; alpha: hybrid weight)
generalise: for 20 random split-halves, pick the best value on one half and score it on the other.

    .venv/bin/python benchmarks/bench_retrieval_birco.py [--data ../shared/data/birco-relic-dev]

Writes benchmarks/results/retrieval_birco.json.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import time
import warnings
from pathlib import Path

from litlens.retrieval.datasets import load_beir
from litlens.retrieval.dense import shared_encoder
from litlens.retrieval.evaluate import evaluate_retriever
from litlens.retrieval.metrics import evaluate_run

HERE = Path(__file__).resolve().parent
KEYS = ("ndcg@10", "recall@1", "recall@5", "recall@10", "mrr", "mean_rank")


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--data", default=str(HERE.parent.parent / "shared" / "data" / "birco-relic-dev"))
    parser.add_argument("--out", default=str(HERE / "results" / "retrieval_birco.json"))
    args = parser.parse_args()
    warnings.simplefilter("ignore")
    data = load_beir(args.data)
    encoder = shared_encoder(None)
    table = {}
    for method in ("bm25", "dense", "hybrid"):
        for demote in (True, False):
            t = time.perf_counter()
            r = evaluate_retriever(data, method, encoder=encoder, demote_quoted=demote)
            name = f"{method}{'' if demote else ' (no demotion)'}"
            table[name] = {k: round(r.metrics[k], 1) for k in KEYS} | {"seconds": round(time.perf_counter() - t, 1)}
            print(name, table[name], file=sys.stderr)
    # Split-half check of the two tuned parameters.
    grids = {"tau": ("bm25", [None, 10.0, 20.0, 30.0, 40.0, 80.0]), "alpha": ("hybrid", [0.3, 0.5, 0.7])}
    split = {}
    for param, (method, values) in grids.items():
        runs = {v: evaluate_retriever(data, method, encoder=encoder, **{param: (v if v is not None else 0.0)}).run for v in values}
        per_value = {str(v): round(evaluate_run(runs[v], data.qrels)["ndcg@10"], 1) for v in values}
        rng = random.Random(5)
        qids = sorted(data.qrels)
        held = []
        for _ in range(20):
            rng.shuffle(qids)
            a, b = qids[: len(qids) // 2], qids[len(qids) // 2 :]
            qa, qb = {q: data.qrels[q] for q in a}, {q: data.qrels[q] for q in b}
            best = max(values, key=lambda v: evaluate_run(runs[v], qa)["ndcg@10"])
            held.append(evaluate_run(runs[best], qb)["ndcg@10"])
        split[param] = {"ndcg@10 per value (all 30 queries)": per_value,
                        "held-out half ndcg@10, mean of 20 splits": round(sum(held) / len(held), 1)}
        print(param, split[param], file=sys.stderr)
    data_path = Path(args.data).resolve()
    if data_path.is_relative_to(HERE.parent.parent):  # the repository's ../shared: say so, not this machine's path
        data_path = Path(os.path.relpath(data_path, HERE.parent))
    out = {"data": str(data_path), "queries": len(data.qrels), "methods": table, "split_half": split,
           "note": "tau = 0 means no mask-distance weighting; hybrid uses tau 30"}
    Path(args.out).write_text(json.dumps(out, indent=2), encoding="utf-8")
    print(json.dumps(out, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
