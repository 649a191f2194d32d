"""Evaluate a ranker on a RELiC- or BEIR-format benchmark."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from litlens.errors import Cancelled
from litlens.retrieval.datasets import RetrievalSet
from litlens.retrieval.metrics import evaluate_run
from litlens.retrieval.retriever import Retriever

Progress = Callable[[float, str], None]


@dataclass
class EvalResult:
    metrics: dict[str, float]
    run: dict[str, list[str]]  # query id -> candidate ids, best first
    settings: dict


def evaluate_retriever(
    data: RetrievalSet,
    method: str = "hybrid",
    *,
    model: str | None = None,
    encoder=None,
    reranker=None,
    demote_quoted: bool = True,
    alpha: float | None = None,
    tau: float | None = None,
    progress: Progress | None = None,
    cancelled: Callable[[], bool] | None = None,
) -> EvalResult:
    extra = {}
    if alpha is not None:
        extra["alpha"] = alpha
    if tau is not None:
        extra["tau"] = tau
    vectors: dict[str, np.ndarray] = {}
    if method != "bm25":
        if encoder is None:
            from litlens.retrieval.dense import shared_encoder

            encoder = shared_encoder(model)
        needed = sorted({c for q in data.queries for c in data.pool(q)})
        matrix = encoder.encode_passages(
            [data.corpus[c] for c in needed],
            progress=(lambda f, m: progress(0.5 * f, m)) if progress else None,
            cancelled=cancelled,
        )
        vectors = dict(zip(needed, matrix))
    retrievers: dict[int, Retriever] = {}
    run: dict[str, list[str]] = {}
    queries = list(data.queries)
    for n, qid in enumerate(queries):
        if cancelled is not None and cancelled():
            raise Cancelled("evaluation")
        pool = data.pool(qid)
        key = id(pool)
        if key not in retrievers:
            retrievers.clear()  # pools are usually per query or per book: keep one
            emb = np.stack([vectors[c] for c in pool]) if vectors else None
            retrievers[key] = Retriever(
                [data.corpus[c] for c in pool],
                method=method,
                encoder=encoder,
                embeddings=emb,
                reranker=reranker,
                demote_quoted=demote_quoted,
                **extra,
            )
        ranked = retrievers[key].rank(data.queries[qid], k=min(len(pool), 1000))
        run[qid] = [pool[i] for i, _, _ in ranked]
        if progress is not None:
            progress(0.5 + 0.5 * (n + 1) / len(queries) if vectors else (n + 1) / len(queries), f"ranked {n + 1} of {len(queries)} queries")
    settings = {
        "method": method,
        "model": getattr(encoder, "label", None),
        "pooling": getattr(encoder, "pooling", None),
        "demote_quoted": demote_quoted,
        **extra,
    }
    return EvalResult(evaluate_run(run, data.qrels), run, settings)
