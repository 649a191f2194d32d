"""Min-K% Prob (Shi et al. 2024) and Min-K%++ (Zhang et al. 2024) of texts and of a book.

``min_k`` is the mean of the lowest ⌈k·n⌉ token log-probabilities of a text; Min-K%++ takes the
same mean over each token's log-probability standardised by the mean and standard deviation
of ln p over the model's next-token distribution at that position. Higher means more
familiar. On public-domain novels the values only mean something beside a control the model
cannot have seen: the same words shuffled (seeded), or a text the user supplies.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from litlens.audit.stats import check_cancelled
from litlens.audit.logprobs import DEFAULT_WINDOW, EMPTY, TokenScores, token_scores
from litlens.model import Cancelled, Chapter, Progress

DEFAULT_K = 0.2
DEFAULT_CHAPTER_TOKENS = 2048  # tokens scored per chapter (its first ones)
MIN_CHAPTER_WORDS = 50  # shorter chapters (front matter, a title page) are left out


@dataclass(frozen=True)
class MinK:
    tokens: int
    min_k: float
    min_k_plus_plus: float | None  # None when the backend gives no next-token distribution

    def as_dict(self) -> dict[str, Any]:
        return {"tokens": self.tokens, "min_k": self.min_k, "min_k_plus_plus": self.min_k_plus_plus}


def lowest_mean(values: Sequence[float], k: float) -> float:
    """Mean of the lowest ⌈k·n⌉ values (at least one)."""
    if not values:
        raise ValueError("no values")
    if not 0 < k <= 1:
        raise ValueError(f"k must be in (0, 1], got {k}")
    m = max(1, math.ceil(k * len(values)))
    low = sorted(values)[:m]
    return sum(low) / m


def min_k_of(scores: TokenScores, k: float = DEFAULT_K) -> MinK:
    plus = None
    if scores.means is not None and scores.stds is not None:
        normalised = [(lp - mu) / sd for lp, mu, sd in zip(scores.logprobs, scores.means, scores.stds)]
        plus = lowest_mean(normalised, k)
    return MinK(len(scores), lowest_mean(scores.logprobs, k), plus)


def score_text(backend: Any, text: str, *, k: float = DEFAULT_K, window: int = DEFAULT_WINDOW,
               max_tokens: int | None = None) -> MinK:
    return min_k_of(token_scores(backend, text, window=window, max_tokens=max_tokens), k)


def shuffled_words(text: str, seed: int = 0) -> str:
    """The same words in a seeded random order: a control with the book's vocabulary but no memory."""
    words = text.split()
    random.Random(seed).shuffle(words)
    return " ".join(words)


def score_book(
    backend: Any,
    text: str,
    chapters: Sequence[Chapter],
    *,
    k: float = DEFAULT_K,
    seed: int = 0,
    control_text: str | None = None,
    chapter_tokens: int | None = DEFAULT_CHAPTER_TOKENS,
    window: int = DEFAULT_WINDOW,
    progress: Progress | None = None,
    cancelled: Cancelled | None = None,
) -> dict[str, Any]:
    """Min-K% per chapter and over the whole book, each beside its control.

    The control of a chapter is its own words shuffled with ``seed``; with ``control_text`` the
    book-level control is that text instead (scored up to the same number of tokens).
    """
    spans = [(c.index, c.title, c.start, c.end) for c in chapters if len(text[c.start : c.end].split()) >= MIN_CHAPTER_WORDS]
    if not spans:
        spans = [(0, "", 0, len(text))]
    pooled, pooled_control = EMPTY, EMPTY
    rows = []
    for n, (idx, title, start, end) in enumerate(spans):
        check_cancelled(cancelled)
        if progress:
            progress(n / len(spans), f"chapter {n + 1} of {len(spans)}")
        body = text[start:end]
        own = token_scores(backend, body, window=window, max_tokens=chapter_tokens)
        control = token_scores(backend, shuffled_words(body, seed + idx), window=window, max_tokens=len(own) + 1)
        pooled, pooled_control = pooled.extend(own), pooled_control.extend(control)
        mine, theirs = min_k_of(own, k), min_k_of(control, k)
        rows.append({"chapter": idx, "title": title, **mine.as_dict(),
                     "control_min_k": theirs.min_k, "control_min_k_plus_plus": theirs.min_k_plus_plus})
    if control_text is not None:
        check_cancelled(cancelled)
        pooled_control = token_scores(backend, control_text, window=window, max_tokens=len(pooled) + 1)
    book, control = min_k_of(pooled, k), min_k_of(pooled_control, k)
    if progress:
        progress(1.0, f"{len(spans)} chapters scored")
    return {
        **book.as_dict(),
        "control": {"kind": "file" if control_text is not None else "shuffled", "seed": seed, **control.as_dict()},
        "chapters": rows,
    }

