"""BM25 index: the small API other packages use."""

from __future__ import annotations

import numpy as np

from litlens.retrieval.bm25 import BM25Index, tokenize, top_k

TEXTS = [
    "It is a truth universally acknowledged, that a single man must be in want of a wife.",
    "Mr. Darcy proposed to Elizabeth at Hunsford, and she refused him.",
    "The ball at Netherfield was crowded and Mr. Collins danced badly.",
]


def test_bm25_search_returns_indices_best_first():
    index = BM25Index(TEXTS)
    hits = index.search("Darcy's proposal", k=2)
    assert hits[0][0] == 1 and hits[0][1] > 0
    assert len(hits) == 2 and hits[0][1] >= hits[1][1]


def test_bm25_scores_cover_every_text_and_respect_parameters():
    a = BM25Index(TEXTS, k1=0.5, b=0.9).scores("ball Netherfield")
    b = BM25Index(TEXTS, k1=1.5, b=0.75).scores("ball Netherfield")
    assert a.shape == (3,) and isinstance(a, np.ndarray)
    assert int(np.argmax(a)) == 2 and a[0] == 0
    assert not np.allclose(a, b)


def test_bm25_handles_empty_corpus_unknown_words_and_large_k():
    assert BM25Index([]).search("anything", 5) == []
    index = BM25Index(TEXTS)
    assert index.scores("zzzz qqqq").sum() == 0
    assert len(index.search("wife", 50)) == 3


def test_bm25_tokenize_stems_and_drops_function_words():
    assert tokenize("The proposals were proposed") == ["propos", "propos"]


def test_top_k_breaks_ties_by_position():
    assert top_k(np.array([1.0, 3.0, 3.0, 0.0]), 3) == [(1, 3.0), (2, 3.0), (0, 1.0)]
