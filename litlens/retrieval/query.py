"""What a query says beyond its words: where the [MASK] is, and which passages it quotes itself.

* Terms near ``[MASK]`` say more about the missing quotation than terms far from it, so lexical
  scoring weights each query word by ``exp(-distance / tau)`` (distance in words from the mask;
  queries without a mask weight every word 1).
* Literary analysis quotes other passages of the same book; a candidate that contains one of the
  query's own quotations is rarely the answer, so it can be demoted (issue 5, item 3).
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence

import numpy as np
from rapidfuzz import fuzz

from litlens.errors import LitLensError
from litlens.retrieval.bm25 import STOPWORDS, _stem, words

MASK = "[MASK]"
DEFAULT_TAU = 30.0  # words; chosen on BIRCO-RELiC dev (20 to 40 all do well), see README
QUOTED_MIN_WORDS = 3
QUOTED_MIN_SCORE = 95.0  # RapidFuzz partial_ratio of the quoted fragment against a candidate

_QUOTED = re.compile(r"[\"“”]([^\"“”]+?)[\"“”]")
_MARK = "qqlitlensmaskqq"


class EmptyQueryError(LitLensError):
    def __init__(self) -> None:
        super().__init__("the query is empty. Type a claim with [MASK] where the quotation goes, or a description of the passage")


def check_query(query: str) -> str:
    if not query or not words(query.replace(MASK, " ")):
        raise EmptyQueryError()
    return query


def without_mask(query: str) -> str:
    return " ".join(query.replace(MASK, " ").split())


def term_weights(query: str, tau: float | None = DEFAULT_TAU) -> dict[str, float]:
    """Stemmed query terms with weights decaying with distance from [MASK]."""
    tokens = words(query.replace(MASK, f" {_MARK} "))
    marks = [i for i, t in enumerate(tokens) if t == _MARK]
    out: dict[str, float] = {}
    for i, token in enumerate(tokens):
        if token == _MARK or token in STOPWORDS:
            continue
        if token.endswith("'s"):
            token = token[:-2]
        weight = 1.0
        if marks and tau:
            weight = math.exp(-min(abs(i - m) for m in marks) / tau)
        term = _stem(token)
        out[term] = out.get(term, 0.0) + weight
    return out


def quoted_fragments(query: str, min_words: int = QUOTED_MIN_WORDS) -> list[str]:
    """Passages the query itself quotes (between quotation marks), of at least ``min_words``."""
    return [
        m.group(1).strip()
        for m in _QUOTED.finditer(query)
        if MASK not in m.group(1) and len(words(m.group(1))) >= min_words
    ]


def quoted_mask(query: str, texts: Sequence[str], min_score: float = QUOTED_MIN_SCORE) -> np.ndarray:
    """True for each text that contains (fuzzily) one of the query's own quotations."""
    fragments = quoted_fragments(query)
    out = np.zeros(len(texts), dtype=bool)
    if not fragments:
        return out
    for i, text in enumerate(texts):
        for fragment in fragments:
            short, long = (fragment, text) if len(fragment) <= len(text) else (text, fragment)
            if fuzz.partial_ratio(short, long, score_cutoff=min_score):
                out[i] = True
                break
    return out


def matching_words(query: str, text: str) -> list[tuple[int, int]]:
    """Character spans of ``text`` whose stemmed word also occurs in the query (for highlighting)."""
    terms = set(term_weights(query, None))
    spans = []
    for m in re.finditer(r"[A-Za-z0-9]+(?:'[A-Za-z]+)?", text):
        word = m.group(0).lower()
        if word in STOPWORDS:
            continue
        if word.endswith("'s"):
            word = word[:-2]
        if _stem(word) in terms:
            spans.append((m.start(), m.end()))
    return spans
