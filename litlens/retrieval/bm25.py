"""BM25 over a list of passages (bm25s underneath), with optional per-term query weights.

The public API is small and stable because other packages use it for distractors::

    index = BM25Index(texts)
    index.search("the proposal at Hunsford", k=10)   # [(text index, score), ...] best first
    index.scores("the proposal at Hunsford")         # numpy array, one score per text
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from functools import lru_cache

import numpy as np

# The seed (RELiC) tuned k1 = 0.5, b = 0.9 on its validation split. On the BIRCO RELiC dev set
# the same values are close to the best (see README, "Evidence retrieval"), so they are the
# defaults; both stay configurable.
DEFAULT_K1 = 0.5
DEFAULT_B = 0.9

# Function words that carry no evidence about which passage is meant. Kept short on purpose:
# pronouns and names of relations ("she", "her", "father") do help to find a passage.
STOPWORDS = frozenset(
    """a an the and or but nor so yet if then than that this these those there here
    of in on at by for with from to into onto upon about as is are was were be been being
    am do does did done have has had having it its it's i'd i'll i'm
    which who whom whose what when where why how all any both each either neither
    not no can could will would shall should may might must very too also just only
    s t d ll m re ve""".split()
)

_WORD = re.compile(r"[A-Za-z0-9]+(?:'[A-Za-z]+)?")


@lru_cache(maxsize=1)
def _stemmer():
    from nltk.stem.snowball import SnowballStemmer

    return SnowballStemmer("english")


@lru_cache(maxsize=200_000)
def _stem(word: str) -> str:
    return _stemmer().stem(word)


def words(text: str) -> list[str]:
    """Lower-cased word tokens of ``text`` (letters, digits, inner apostrophes)."""
    return [m.group(0).lower() for m in _WORD.finditer(text)]


def tokenize(text: str, *, stem: bool = True, stopwords: bool = True) -> list[str]:
    """Index terms of ``text``: lower-cased words, stop words removed, Snowball-stemmed."""
    out = []
    for word in words(text):
        if stopwords and word in STOPWORDS:
            continue
        if word.endswith("'s"):
            word = word[:-2]
        out.append(_stem(word) if stem else word)
    return out


class BM25Index:
    """A BM25 index over ``texts``; search results refer to positions in ``texts``."""

    def __init__(
        self,
        texts: Sequence[str],
        *,
        k1: float = DEFAULT_K1,
        b: float = DEFAULT_B,
        stem: bool = True,
        stopwords: bool = True,
    ) -> None:
        self.k1 = float(k1)
        self.b = float(b)
        self._stem = stem
        self._stopwords = stopwords
        self.size = len(texts)
        self._model = None  # a bm25s.BM25 (imported when first needed: it pulls in scipy)
        if self.size:
            corpus = [tokenize(t, stem=stem, stopwords=stopwords) or ["\x00empty"] for t in texts]
            import bm25s

            self._model = bm25s.BM25(k1=self.k1, b=self.b)
            self._model.index(corpus, show_progress=False)
            self._vocab = self._model.vocab_dict

    def terms(self, text: str) -> list[str]:
        """The index terms this index would make of ``text``."""
        return tokenize(text, stem=self._stem, stopwords=self._stopwords)

    def scores(self, query: str) -> np.ndarray:
        """BM25 score of every text for ``query`` (a float array of length ``len(texts)``)."""
        return self.weighted_scores(_counts(self.terms(query)))

    def weighted_scores(self, weights: Mapping[str, float]) -> np.ndarray:
        """Sum over index terms of ``weight * BM25(term)``; terms not in the index count 0."""
        out = np.zeros(self.size, dtype=np.float32)
        if self._model is None:
            return out
        for term, weight in weights.items():
            if weight and term in self._vocab:
                out += np.float32(weight) * self._model.get_scores([term])
        return out

    def search(self, query: str, k: int) -> list[tuple[int, float]]:
        """The ``k`` best texts for ``query`` as ``(index into texts, score)``, best first."""
        return top_k(self.scores(query), k)


def _counts(terms: Sequence[str]) -> dict[str, float]:
    counts: dict[str, float] = {}
    for term in terms:
        counts[term] = counts.get(term, 0.0) + 1.0
    return counts


def top_k(scores: np.ndarray, k: int) -> list[tuple[int, float]]:
    """Indices and values of the ``k`` largest scores, best first (ties: lower index first)."""
    n = len(scores)
    k = max(0, min(int(k), n))
    if k == 0:
        return []
    if k < n:
        part = np.argpartition(-scores, k - 1)[:k]
    else:
        part = np.arange(n)
    order = part[np.lexsort((part, -scores[part]))]
    return [(int(i), float(scores[i])) for i in order]
