"""Ranking metrics against values computed by hand."""

from __future__ import annotations

import math

import pytest

from litlens.retrieval.metrics import evaluate_run, ndcg_at_k


def test_metrics_match_a_hand_computed_example():
    qrels = {"q1": {"a": 1, "b": 0, "c": 0}, "q2": {"z": 1, "y": 0}, "q3": {"m": 1}}
    run = {
        "q1": ["b", "c", "a"],  # gold at rank 3
        "q2": ["z", "y"],  # gold at rank 1
        "q3": [f"x{i}" for i in range(11)] + ["m"],  # gold at rank 12: outside the top 10
    }
    m = evaluate_run(run, qrels)
    assert m["queries"] == 3
    assert m["recall@1"] == pytest.approx(100 / 3)
    assert m["recall@3"] == pytest.approx(200 / 3)
    assert m["recall@10"] == pytest.approx(200 / 3)
    assert m["recall@50"] == pytest.approx(100.0)
    assert m["mean_rank"] == pytest.approx((3 + 1 + 12) / 3)
    assert m["mrr"] == pytest.approx(100 * (1 / 3 + 1 + 1 / 12) / 3)
    # nDCG@10 with one relevant document: 1 / log2(rank + 1) inside the top 10, else 0.
    assert m["ndcg@10"] == pytest.approx(100 * (1 / math.log2(4) + 1 + 0) / 3)
    assert 100 * (0.5 + 1) / 3 == pytest.approx(50.0)  # 1/log2(4) = 0.5 exactly


def test_metrics_ndcg_uses_linear_gain_and_log2_discount():
    rel = {"a": 2, "b": 1}
    # DCG = 1/log2(2) + 2/log2(3); ideal = 2/log2(2) + 1/log2(3)
    expected = (1 + 2 / math.log2(3)) / (2 + 1 / math.log2(3))
    assert ndcg_at_k(["b", "a"], rel) == pytest.approx(expected)


def test_metrics_missing_query_counts_as_a_miss():
    m = evaluate_run({}, {"q": {"a": 1}})
    assert m["recall@100"] == 0 and m["mrr"] == 0 and m["mean_rank"] == 1
