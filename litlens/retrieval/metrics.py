"""Ranking metrics for evidence retrieval: recall@k, mean rank, MRR, nDCG@10.

Every query has a set of relevant candidate ids (usually one). A ranking is a list of candidate
ids, best first. Ranks are 1-based. A relevant candidate missing from the ranking gets the rank
``len(ranking) + 1`` for mean rank and contributes nothing to recall, MRR or nDCG.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

RECALL_KS = (1, 3, 5, 10, 50, 100)


@dataclass(frozen=True)
class QueryScore:
    query_id: str
    rank: int  # rank of the best-ranked relevant candidate (1 = top)
    reciprocal_rank: float
    ndcg10: float


def first_relevant_rank(ranking: Sequence[str], relevant: Mapping[str, float]) -> int:
    for i, doc in enumerate(ranking):
        if relevant.get(doc, 0) > 0:
            return i + 1
    return len(ranking) + 1


def ndcg_at_k(ranking: Sequence[str], relevant: Mapping[str, float], k: int = 10) -> float:
    """nDCG@k with linear gain (the judgment value) and a log2(i + 2) discount (i from 0)."""
    dcg = sum(
        float(relevant.get(doc, 0)) / math.log2(i + 2)
        for i, doc in enumerate(ranking[:k])
        if relevant.get(doc, 0) > 0
    )
    ideal = sorted((float(g) for g in relevant.values() if g > 0), reverse=True)[:k]
    idcg = sum(g / math.log2(i + 2) for i, g in enumerate(ideal))
    return dcg / idcg if idcg > 0 else 0.0


def score_query(query_id: str, ranking: Sequence[str], relevant: Mapping[str, float]) -> QueryScore:
    rank = first_relevant_rank(ranking, relevant)
    found = rank <= len(ranking)
    return QueryScore(query_id, rank, 1.0 / rank if found else 0.0, ndcg_at_k(ranking, relevant))


def evaluate_run(
    run: Mapping[str, Sequence[str]], qrels: Mapping[str, Mapping[str, float]]
) -> dict[str, float]:
    """Average metrics (recall and nDCG as percentages, as in the papers) over the qrels' queries.

    A query of the qrels that has no relevant candidate is skipped; a query missing from the
    run counts as a miss with rank 1.
    """
    per_query = [
        score_query(qid, run.get(qid, []), rel)
        for qid, rel in qrels.items()
        if any(g > 0 for g in rel.values())
    ]
    n = len(per_query)
    out: dict[str, float] = {"queries": float(n)}
    if n == 0:
        return out
    for k in RECALL_KS:
        out[f"recall@{k}"] = 100.0 * sum(
            1 for q in per_query if q.rank <= k and q.reciprocal_rank > 0
        ) / n
    out["mean_rank"] = sum(q.rank for q in per_query) / n
    out["mrr"] = 100.0 * sum(q.reciprocal_rank for q in per_query) / n
    out["ndcg@10"] = 100.0 * sum(q.ndcg10 for q in per_query) / n
    return out
