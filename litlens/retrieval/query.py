"""What a query says beyond its words: where the [MASK] is, and which passages it quotes itself.

* Terms near ``[MASK]`` say more about the missing quotation than terms far from it, so lexical
  scoring weights each query word by ``exp(-distance / tau)`` (distance in words from the mask;
  queries without a mask weight every word 1). Words after the mask can decay faster
  (``tau_right``): a critic introduces a quotation before it and moves on to the argument after.
* Names (words the query capitalises inside a sentence and never writes in lower case) can be
  weighted by ``name_weight``: the people a critic discusses appear all over the book, so they
  say little about which passage is meant.
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
# Chosen together on BIRCO-RELiC dev by a split-half rule whose nested held-out figure is reported
# in docs/retrieval.md.
DEFAULT_TAU = 20.0  # words (30 does as well: 35.7 against 35.3 with names ignored)
DEFAULT_TAU_RIGHT: float | None = None  # words after the mask; None: the same as tau
DEFAULT_NAME_WEIGHT = 0.0  # multiplies the weight of a name in a query with [MASK] (1: like other words)
# Names are weighted only in a query of at least this many index terms: a critic's paragraph (the
# dev queries have 63 to 140) repeats its names, while in a typed claim of a few words
# ("Mr. Collins proposes to Elizabeth: [MASK]") they are much of what there is to match.
NAMES_MIN_TERMS = 40
QUOTED_MIN_WORDS = 3
QUOTED_MIN_SCORE = 95.0  # RapidFuzz partial_ratio of the quoted fragment against a candidate

_QUOTED = re.compile(r"[\"“”]([^\"“”]+?)[\"“”]")
_MARK = "qqlitlensmaskqq"
_TOKEN = re.compile(r"[A-Za-z0-9]+(?:'[A-Za-z]+)?")
_SENTENCE_END = ".!?:;\"“”'‘’([\n"
_TITLES = frozenset("mr mrs miss ms dr st mme mlle sir lady lord captain colonel".split())


class EmptyQueryError(LitLensError):
    def __init__(self) -> None:
        super().__init__("the query is empty. Type a claim with [MASK] where the quotation goes, or a description of the passage")


class MaskOnlyQueryError(LitLensError):
    def __init__(self) -> None:
        super().__init__(
            "the query is only [MASK]: there is nothing to match. Write the claim around it, "
            "e.g. \"Elizabeth's prejudice is fixed when she overhears Darcy: [MASK]\""
        )


def check_query(query: str) -> str:
    if query and MASK in query and not words(query.replace(MASK, " ")):
        raise MaskOnlyQueryError()
    if not query or not words(query.replace(MASK, " ")):
        raise EmptyQueryError()
    return query


def without_mask(query: str) -> str:
    return " ".join(query.replace(MASK, " ").split())


def query_names(query: str) -> set[str]:
    """Lower-cased words (without 's) the query capitalises inside a sentence and never writes in
    lower case: the names of people and places it discusses ("Mr. Darcy" counts; "I" does not)."""
    text = query.replace(MASK, " ")
    tokens = list(_TOKEN.finditer(text))
    capitalised: set[str] = set()
    lower: set[str] = set()
    for j, m in enumerate(tokens):
        word = m.group(0)
        key = word.lower()[:-2] if word.lower().endswith("'s") else word.lower()
        if word[0].islower():
            lower.add(key)
            continue
        if not word[0].isupper() or word == "I":
            continue
        before = text[: m.start()].rstrip()
        after_title = j > 0 and tokens[j - 1].group(0).lower() in _TITLES
        if key not in _TITLES and before and (before[-1] not in _SENTENCE_END or after_title):
            capitalised.add(key)
    return capitalised - lower


def term_weights(
    query: str,
    tau: float | None = DEFAULT_TAU,
    *,
    tau_right: float | None = DEFAULT_TAU_RIGHT,
    name_weight: float = DEFAULT_NAME_WEIGHT,
) -> dict[str, float]:
    """Stemmed query terms with weights decaying with distance from [MASK].

    A word whose nearest mask comes before it decays with ``tau_right`` (``tau`` when None); a
    false ``tau`` means no decay on that side. In a query with a mask and at least
    ``NAMES_MIN_TERMS`` index terms, names (:func:`query_names`) are multiplied by
    ``name_weight``, unless the query has no other word; a short claim or a description without
    a mask keeps its names at full weight ("the ball at Netherfield"). Names stay in the result
    even at weight 0, so highlighting still finds them.
    """
    tokens = words(query.replace(MASK, f" {_MARK} "))
    marks = [i for i, t in enumerate(tokens) if t == _MARK]
    content = [t[:-2] if t.endswith("'s") else t for t in tokens if t != _MARK and t not in STOPWORDS]
    long_enough = len(content) >= NAMES_MIN_TERMS
    names = query_names(query) if marks and long_enough and name_weight != 1.0 else set()
    if names and all(t in names for t in content):
        names = set()  # nothing but names: they are all there is to match
    right = tau_right if tau_right else tau
    out: dict[str, float] = {}
    for i, token in enumerate(tokens):
        if token == _MARK or token in STOPWORDS:
            continue
        if token.endswith("'s"):
            token = token[:-2]
        weight = 1.0
        if marks:
            nearest = min(marks, key=lambda m: abs(i - m))
            decay = right if nearest < i else tau
            if decay:
                weight = math.exp(-abs(i - nearest) / decay)
        if token in names:
            weight *= name_weight
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
