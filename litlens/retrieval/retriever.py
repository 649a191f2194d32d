"""One facade over every ranker: ``Retriever.search(query, k) -> list[Hit]``.

Methods:

* ``bm25`` — BM25 with query words weighted by their distance from ``[MASK]`` and the names a
  long query with ``[MASK]`` mentions left out (the default, ``DEFAULT_METHOD``; docs/retrieval.md);
* ``dense`` — a dual encoder (dot product of query and passage vectors);
* ``hybrid`` — ``alpha * z(bm25) + (1 - alpha) * z(dense)``, scores standardised per query;
* ``rerank`` — ``hybrid``, then an LLM re-orders the top candidates (listwise, seed 001).

Candidates that contain one of the query's own quotations are moved below all others unless
``demote_quoted=False``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from litlens.errors import LitLensError
from litlens.retrieval.bm25 import BM25Index
from litlens.retrieval.candidates import Candidate
from litlens.retrieval.query import (
    DEFAULT_NAME_WEIGHT,
    DEFAULT_TAU,
    DEFAULT_TAU_RIGHT,
    check_query,
    quoted_fragments,
    quoted_mask,
    term_weights,
)

METHODS = ("bm25", "dense", "hybrid", "rerank")
DEFAULT_METHOD = "bm25"  # what search uses unless told; chosen held-out on the dev set (docs/retrieval.md)
DEFAULT_ALPHA = 0.5  # weight of BM25 in hybrid fusion
DEMOTE_CHECK = 200  # how many top candidates are checked for the query's own quotations


class RetrievalError(LitLensError):
    pass


@dataclass(frozen=True)
class Hit:
    candidate: int  # index into the retriever's candidates
    book: int | None
    chapter: int | None
    start: int | None
    end: int | None
    text: str
    score: float
    method: str
    demoted: bool = False


def standardise(x: np.ndarray) -> np.ndarray:
    std = float(x.std())
    return (x - x.mean()) / std if std > 1e-12 else np.zeros_like(x)


class Retriever:
    """Rank ``texts`` (or ``candidates``) for a query.

    ``embeddings`` are the passage vectors of ``encoder`` for the same texts (computed here when
    omitted and a dense method is asked for). ``reranker`` is a
    :class:`litlens.retrieval.rerank.ListwiseReranker` for ``method="rerank"``.
    """

    def __init__(
        self,
        texts: Sequence[str] | None = None,
        *,
        candidates: Sequence[Candidate] | None = None,
        method: str = "hybrid",
        encoder=None,
        embeddings: np.ndarray | None = None,
        bm25: BM25Index | None = None,
        reranker=None,
        alpha: float = DEFAULT_ALPHA,
        tau: float | None = DEFAULT_TAU,
        tau_right: float | None = DEFAULT_TAU_RIGHT,
        name_weight: float = DEFAULT_NAME_WEIGHT,
        demote_quoted: bool = True,
        rerank_top: int = 20,
    ) -> None:
        if method not in METHODS:
            raise RetrievalError(f"unknown method {method!r}; choose one of {', '.join(METHODS)}")
        self.candidates = list(candidates) if candidates is not None else None
        self.texts = [c.text for c in self.candidates] if self.candidates is not None else list(texts or [])
        self.method = method
        self.alpha = alpha
        self.tau = tau
        self.tau_right = tau_right
        self.name_weight = name_weight
        self.demote_quoted = demote_quoted
        self.rerank_top = rerank_top
        self.reranker = reranker
        if method == "rerank" and reranker is None:
            raise RetrievalError("method 'rerank' needs an LLM re-ranker (see litlens.retrieval.rerank)")
        self.bm25 = bm25 if bm25 is not None else (BM25Index(self.texts) if method != "dense" else None)
        self.encoder = encoder
        self.embeddings = embeddings
        if method != "bm25":
            if self.encoder is None:
                from litlens.retrieval.dense import shared_encoder

                self.encoder = shared_encoder()
            if self.embeddings is None:
                self.embeddings = self.encoder.encode_passages(self.texts)
            if len(self.embeddings) != len(self.texts):
                raise RetrievalError(
                    f"{len(self.embeddings)} passage vectors for {len(self.texts)} candidates; rebuild the index"
                )

    def __len__(self) -> int:
        return len(self.texts)

    def scores(self, query: str) -> np.ndarray:
        """The first-stage score of every candidate (before demotion and re-ranking)."""
        check_query(query)
        lexical = dense = None
        if self.method != "dense":
            weights = term_weights(query, self.tau, tau_right=self.tau_right, name_weight=self.name_weight)
            lexical = self.bm25.weighted_scores(weights).astype(np.float64)
            if self.method == "bm25":
                return lexical
        vector = self.encoder.encode_queries([query])[0]
        dense = (self.embeddings @ vector).astype(np.float64)
        if self.method == "dense":
            return dense
        return self.alpha * standardise(lexical) + (1.0 - self.alpha) * standardise(dense)

    def rank(self, query: str, k: int | None = None) -> list[tuple[int, float, bool]]:
        """(candidate index, score, demoted) for the best ``k`` (all when None), best first.

        Passages whose character ranges overlap one ranked higher are left out (non-maximum
        suppression over the overlapping 1-5 sentence windows), so ``k`` results are ``k``
        different passages when the book has them. Candidates that quote the query itself come
        after all others; the LLM re-ranker, when used, sees distinct passages only.
        """
        scores = self.scores(query)
        n = len(scores)
        k = n if k is None else min(k, n)
        want = max(k, self.rerank_top if self.method == "rerank" else 0)
        ranked = self._distinct(query, scores, want)
        if self.method == "rerank" and ranked:
            head = [r for r in ranked[: self.rerank_top] if not r[2]]
            order = self.reranker.rerank(query, [self.texts[i] for i, _, _ in head])
            head = [head[j] for j in order]
            ranked = head + [r for r in ranked if r not in head]
        return ranked[:k]

    def _distinct(self, query: str, scores: np.ndarray, want: int) -> list[tuple[int, float, bool]]:
        """Walk the candidates best first, keeping each that overlaps nothing kept; the ones that
        quote the query are set aside and appended (still without overlaps) after the rest."""
        fragments = quoted_fragments(query) if self.demote_quoted else []
        spans = self._spans()
        order = np.argsort(-scores, kind="stable")
        kept: list[tuple[int, float, bool]] = []
        taken: list[tuple[int, int]] = []
        aside: list[int] = []
        check = max(want, DEMOTE_CHECK)

        def free(i: int) -> bool:
            if spans is None:
                return True
            s, e = spans[i]
            return not any(s < te and ts < e for ts, te in taken)

        for examined, i in enumerate(order):
            if len(kept) >= want:
                break
            i = int(i)
            if fragments and examined < check and quoted_mask(query, [self.texts[i]])[0]:
                aside.append(i)
                continue
            if free(i):
                kept.append((i, float(scores[i]), False))
                if spans is not None:
                    taken.append(spans[i])
        for i in aside:
            if len(kept) >= want:
                break
            if free(i):
                kept.append((i, float(scores[i]), True))
                if spans is not None:
                    taken.append(spans[i])
        return kept

    def _spans(self) -> list[tuple[int, int]] | None:
        """Character ranges of the candidates, or None when they are free texts (no offsets)."""
        if self.candidates is None or any(c.start is None or c.end is None for c in self.candidates[:1]):
            return None
        if getattr(self, "_span_cache", None) is None:
            self._span_cache = [(c.start, c.end) for c in self.candidates]
        return self._span_cache

    def search(self, query: str, k: int = 10) -> list[Hit]:
        hits = []
        for i, score, demoted in self.rank(query, k):
            c = self.candidates[i] if self.candidates is not None else None
            hits.append(
                Hit(
                    candidate=c.id if c else i,
                    book=c.book if c else None,
                    chapter=c.chapter if c else None,
                    start=c.start if c else None,
                    end=c.end if c else None,
                    text=self.texts[i],
                    score=float(score),
                    method=self.method,
                    demoted=demoted,
                )
            )
        return hits

    def with_method(self, method: str) -> Retriever:
        """The same index with another method (shares the BM25 index and the vectors)."""
        if self.bm25 is None and method != "dense":
            self.bm25 = BM25Index(self.texts)  # built once on the shared index, not per clone
        clone = object.__new__(Retriever)
        clone.__dict__.update(self.__dict__)
        clone.method = method
        return clone



