"""The default method on BIRCO-RELiC dev: never below our tau-weighted BM25 (skips without ../shared).

How the default was chosen and its held-out figure: docs/retrieval.md.
"""

from __future__ import annotations

import numpy as np

from litlens.retrieval.datasets import load_beir
from litlens.retrieval.evaluate import evaluate_retriever
from litlens.retrieval.metrics import evaluate_run
from litlens.retrieval.retriever import DEFAULT_METHOD, METHODS, Retriever


def _ndcg(data, **params) -> float:
    run = {}
    for qid, text in data.queries.items():
        pool = data.pool(qid)
        ranked = Retriever([data.corpus[c] for c in pool], method="bm25", **params).rank(text)
        run[qid] = [pool[i] for i, _, _ in ranked]
    return evaluate_run(run, data.qrels)["ndcg@10"]


def test_default_method_is_one_the_retriever_runs():
    assert DEFAULT_METHOD in METHODS
    hits = Retriever(["The rain fell on Meryton.", "Darcy wrote a letter."], method=DEFAULT_METHOD).search("a letter: [MASK]", 1)
    assert hits[0].candidate == 1


def test_default_method_is_at_least_tau_weighted_bm25_on_birco_dev(birco_dir):
    data = load_beir(birco_dir)
    default = evaluate_retriever(data, DEFAULT_METHOD).metrics["ndcg@10"]
    tau_bm25 = _ndcg(data, tau=30.0, name_weight=1.0)  # the previous default: names kept
    plain = _ndcg(data, tau=None, name_weight=1.0)
    assert np.isclose(tau_bm25, 30.3, atol=0.05) and np.isclose(plain, 23.9, atol=0.05)  # README's figures
    assert default >= tau_bm25 > plain
