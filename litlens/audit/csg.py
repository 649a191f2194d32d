"""Corrupted-speaker guessing (CSG, seed 003): does the model follow the text or its memory?

In a passage with an explicit quotation ("… said Winterbourne"), every word of the speaker's
own names is replaced by a first name of the same gender that the book never uses; the model
is asked who speaks. Naming the new name follows the text; naming the original follows memory.
"""

from __future__ import annotations

import bisect
import random
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from litlens.audit.cloze import character_name_words, pick
from litlens.audit.stats import check_cancelled
from litlens.model import Character, Paragraph, Quotation

MAX_PASSAGE_WORDS = 160
MIN_PASSAGE_WORDS = 40
DEFAULT_LIMIT = 100
# First names for the corruption; any the book uses are skipped.
NEW_NAMES = {
    "male": ("Anselm", "Bertram", "Cyprian", "Desmond", "Evander", "Florian", "Gideon", "Horatio", "Ignatius",
             "Jasper", "Lucian", "Marius", "Osric", "Percival", "Quentin", "Rupert", "Silas", "Thaddeus"),
    "female": ("Araminta", "Beatrix", "Clementine", "Delphine", "Eudora", "Fenella", "Griselda", "Hortense",
               "Isolde", "Josephine", "Leonora", "Mirabel", "Ottilie", "Perpetua", "Rosalind", "Sabine", "Theodora"),
}
_INSTRUCTION = (
    "You will read a passage from {book}. Then say who speaks the quotation that follows it. "
    "Reply with the speaker's name only."
)


@dataclass(frozen=True)
class CSGItem:
    passage: str  # with the speaker's names replaced
    quote: str  # the quotation, replaced likewise
    original: str  # the speaker's name in the book
    original_words: tuple[str, ...]  # the name words that were replaced
    replacement: str
    start: int


def _replace(text: str, words: Sequence[str], new: str) -> str:
    pattern = re.compile(r"\b(?:" + "|".join(re.escape(w) for w in sorted(words, key=len, reverse=True)) + r")\b")
    return pattern.sub(new, text)


def eligible_items(
    text: str,
    paragraphs: Sequence[Paragraph],
    quotations: Sequence[Quotation],
    characters: Sequence[Character],
    *,
    seed: int = 0,
) -> list[CSGItem]:
    """One item per explicit quotation whose speaker (male or female) is named in its passage."""
    by_name = {c.name: c for c in characters}
    used = set(re.findall(r"[A-Za-z]+", text))
    pool = {g: [n for n in names if n not in used] for g, names in NEW_NAMES.items()}
    starts = [p.start for p in paragraphs]
    rng = random.Random(seed)
    items = []
    for q in quotations:
        speaker = by_name.get(q.speaker or "")
        if q.type != "explicit" or not q.spans or speaker is None or not pool.get(speaker.gender):
            continue
        others = character_name_words(c for c in characters if c is not speaker)
        own = sorted(character_name_words([speaker]) - others)
        cue = q.referring_expression or ""
        if not own or not any(re.search(rf"\b{re.escape(w)}\b", cue) for w in own):
            continue
        k = bisect.bisect_right(starts, q.spans[0][0]) - 1
        if k < 0:
            continue
        first = k
        while first > 0 and len(text[paragraphs[first].start : paragraphs[k].end].split()) < MIN_PASSAGE_WORDS:
            first -= 1
        start, end = paragraphs[first].start, paragraphs[k].end
        if not (q.spans[-1][1] <= end and len(text[start:end].split()) <= MAX_PASSAGE_WORDS):
            continue
        new = rng.choice(pool[speaker.gender])
        passage = _replace(" ".join(text[start:end].split()), own, new)
        quote = _replace(" ".join(text[q.spans[0][0] : q.spans[0][1]].split()), own, new)
        if new not in passage:
            continue
        items.append(CSGItem(passage, quote, speaker.name, tuple(own), new, start))
    return items


def conversation(item: CSGItem, book: str) -> list[dict[str, str]]:
    return [
        {"role": "system", "content": _INSTRUCTION.format(book=book)},
        {"role": "user", "content": f"Passage:\n{item.passage}\n\nQuotation: \u201c{item.quote}\u201d\n\nWho speaks?"},
    ]


def classify(reply: str, item: CSGItem) -> str:
    """"text" when the reply names the new name, "memory" when it names the original, else "other"."""
    words = set(re.findall(r"[A-Za-z]+", reply))
    if item.replacement in words:
        return "text"
    if words & set(item.original_words):
        return "memory"
    return "other"


def run(
    backend: Any,
    items: Sequence[CSGItem],
    book: str,
    *,
    batch: int = 4,
    progress: Callable[[float, str], None] | None = None,
    cancelled: Callable[[], bool] | None = None,
) -> dict[str, Any]:
    """Ask the model for every item; the result has the issue's JSON shape (without ``model``)."""
    details = []
    for start in range(0, len(items), batch):
        check_cancelled(cancelled)
        chunk = items[start : start + batch]
        replies = backend.chat([conversation(it, book) for it in chunk], max_new_tokens=12, temperature=0.0)
        for it, reply in zip(chunk, replies):
            details.append({"passage": it.passage, "quote": it.quote, "original": it.original,
                            "replacement": it.replacement, "answer": reply, "followed": classify(reply, it)})
        if progress:
            progress(len(details) / max(1, len(items)), f"{len(details)} of {len(items)} quotations")
    n = len(details)

    def share(kind: str) -> float:
        return sum(d["followed"] == kind for d in details) / n if n else 0.0

    return {"items": n, "followed_text": share("text"), "followed_memory": share("memory"), "other": share("other"),
            "details": details}


__all__ = ["CSGItem", "classify", "conversation", "eligible_items", "pick", "run"]
