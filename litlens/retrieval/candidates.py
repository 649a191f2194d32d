"""Candidate passages: every window of 1 to 5 consecutive sentences within a chapter."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from litlens.model import Sentence

MAX_WINDOW = 5


@dataclass(frozen=True)
class Candidate:
    """A run of ``n`` sentences starting at sentence ``first``; ``start``/``end`` are character
    offsets into the book's text."""

    id: int  # position in the book's candidate list (stable for one sentence segmentation)
    book: int
    chapter: int | None
    first: int  # index of the first sentence
    n: int  # number of sentences
    start: int
    end: int
    text: str


def _clean(text: str) -> str:
    return " ".join(text.split())


def build_candidates(book_id: int, text: str, sentences: Sequence[Sentence], max_window: int = MAX_WINDOW) -> list[Candidate]:
    """Every window of 1..``max_window`` consecutive sentences that stays within one chapter.

    Ordered by window size, then by position, so the id of a candidate does not depend on how many
    larger windows exist.
    """
    sentences = sorted(sentences, key=lambda s: s.index)
    out: list[Candidate] = []
    for n in range(1, max_window + 1):
        for i in range(0, len(sentences) - n + 1):
            first, last = sentences[i], sentences[i + n - 1]
            if any(s.chapter != first.chapter for s in sentences[i + 1 : i + n]):
                continue
            out.append(
                Candidate(
                    id=len(out),
                    book=book_id,
                    chapter=first.chapter,
                    first=first.index,
                    n=n,
                    start=first.start,
                    end=last.end,
                    text=_clean(text[first.start : last.end]),
                )
            )
    return out
