"""Name cloze (Chang et al. 2023, "Speak, Memory"): guess a masked character name.

A passage is 40–60 words of consecutive sentences holding exactly one named entity, a
one-word PERSON name that belongs to a character of the book; the name becomes ``[MASK]``.
A model that fills it in from so little context has probably read the book.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from litlens.audit.stats import check_cancelled, wilson_interval
from litlens.model import Character, Sentence

MASK = "[MASK]"
MIN_WORDS, MAX_WORDS = 40, 60
DEFAULT_LIMIT = 100
HONORIFICS = frozenset({"mr", "mrs", "miss", "ms", "dr", "sir", "lady", "lord", "madame", "mme", "mlle", "monsieur",
                        "mademoiselle", "the", "a", "an", "of", "captain", "colonel", "rev", "st", "master"})
_NAME = re.compile(r"^[A-Z][a-z]+(?:['’-][A-Za-z]+)?$")
# Capitalised words a reply starts with that are not a name (lower case).
NOT_NAMES = HONORIFICS | {"i", "he", "she", "it", "they", "we", "you", "this", "that", "there", "name", "mask",
                          "unknown", "speaker", "passage", "quotation", "not", "no", "yes", "sorry", "none"}

# Two made-up passages (written for LitLens, from no book) that show the answer format.
_SHOTS = (
    ("The lamps along the quay were already lit when [MASK] reached the ferry, his coat soaked through and "
     "his hat lost somewhere behind the fish market. He paid the boatman twice the fare and sat in the stern, "
     "watching the town shrink into a row of yellow points.", "Tobias"),
    ("Nobody in the house could sleep after the storm broke the garden wall. [MASK] went down at dawn with "
     "a candle, counted the fallen bricks, and announced at breakfast that she would rebuild it herself "
     "before her aunt returned from the coast.", "Marguerite"),
)
_INSTRUCTION = (
    "Below is a passage from a novel with one character's name replaced by [MASK]. Which proper name "
    "belongs where [MASK] is? It is a single word and a proper name, not a pronoun. Give your best guess "
    "even if you are unsure, and reply only with <name>NAME</name>."
)


@dataclass(frozen=True)
class ClozeItem:
    passage: str  # with one [MASK]
    answer: str
    start: int  # offset of the passage in the book


def character_name_words(characters: Iterable[Character]) -> set[str]:
    """One-word names that belong to characters: every capitalised alias word but honorifics."""
    words = set()
    for c in characters:
        for alias in [c.name, *c.aliases]:
            for w in alias.replace(".", " ").split():
                if _NAME.match(w) and w.lower() not in HONORIFICS:
                    words.add(w)
    return words


def candidate_passages(text: str, sentences: Sequence[Sentence]) -> list[tuple[int, int]]:
    """Non-overlapping runs of whole consecutive sentences (same paragraph) of 40–60 words."""
    out = []
    i = 0
    while i < len(sentences):
        words, j = 0, i
        while j < len(sentences) and words < MIN_WORDS and sentences[j].paragraph == sentences[i].paragraph:
            words += len(text[sentences[j].start : sentences[j].end].split())
            j += 1
        if MIN_WORDS <= words <= MAX_WORDS:
            out.append((sentences[i].start, sentences[j - 1].end))
            i = j
        else:
            i += 1
    return out


def eligible_items(
    text: str,
    sentences: Sequence[Sentence],
    characters: Sequence[Character],
    entities: Callable[[list[str]], list[list[tuple[int, int, str]]]],
) -> list[ClozeItem]:
    """Every passage with exactly one named entity, a one-word character name said once.

    ``entities`` gives each passage's named entities as (start, end, label) — spaCy's NER.
    """
    names = character_name_words(characters)
    spans = candidate_passages(text, sentences)
    passages = [" ".join(text[s:e].split()) for s, e in spans]
    items = []
    for (start, _), passage, ents in zip(spans, passages, entities(passages)):
        if len(ents) != 1:
            continue
        a, b, label = ents[0]
        name = passage[a:b]
        if label != "PERSON" or name not in names:
            continue
        if len(re.findall(rf"\b{re.escape(name)}\b", passage)) != 1:
            continue
        if any(w != name for w in re.findall(r"[A-Z][a-z]+", passage) if w in names):
            continue  # another character named, which the entity recogniser missed
        items.append(ClozeItem(passage[:a] + MASK + passage[b:], name, start))
    return items


def pick(items: Sequence[ClozeItem], limit: int | None, seed: int = 0) -> list[ClozeItem]:
    """At most ``limit`` items, drawn with ``seed``, in book order."""
    if limit is None or len(items) <= limit:
        return list(items)
    chosen = random.Random(seed).sample(range(len(items)), limit)
    return [items[i] for i in sorted(chosen)]


def conversation(passage: str) -> list[dict[str, str]]:
    messages = [{"role": "system", "content": _INSTRUCTION}]
    for shot, name in _SHOTS:
        messages.append({"role": "user", "content": shot})
        messages.append({"role": "assistant", "content": f"<name>{name}</name>"})
    messages.append({"role": "user", "content": passage})
    return messages


def parse_guess(reply: str) -> str:
    """The proper name in a reply, or "" when it holds none (a pronoun, a sentence, nothing)."""
    tagged = re.search(r"<name>\s*(.*?)\s*</name>", reply, re.S | re.I)
    candidate = tagged.group(1) if tagged else reply
    for word in re.findall(r"[A-Za-z][A-Za-z'’-]*", candidate):
        shaped = word[:1].upper() + word[1:] if tagged else word  # inside the tags, case is forgiven
        if _NAME.match(shaped) and word.lower() not in NOT_NAMES:
            return word
        if tagged is None:
            break  # an untagged reply counts only if it starts with the name
    return ""


def names_someone(reply: str) -> bool:
    """Whether a free reply holds a capitalised word that can be a name ("The speaker is not named": no)."""
    return any(w.lower() not in NOT_NAMES for w in re.findall(r"\b[A-Z][a-z]+\b", reply))


def is_correct(guess: str, answer: str) -> bool:
    return bool(guess) and guess.casefold() == answer.casefold()


def run(
    backend: Any,
    items: Sequence[ClozeItem],
    *,
    batch: int = 4,
    progress: Callable[[float, str], None] | None = None,
    cancelled: Callable[[], bool] | None = None,
) -> dict[str, Any]:
    """Ask the model for every item; the result has the issue's JSON shape (without ``model``)."""
    rows = []
    for start in range(0, len(items), batch):
        check_cancelled(cancelled)
        chunk = items[start : start + batch]
        replies = backend.chat([conversation(it.passage) for it in chunk], max_new_tokens=12, temperature=0.0)
        for it, reply in zip(chunk, replies):
            guess = parse_guess(reply)
            rows.append({"passage": it.passage, "answer": it.answer, "guess": guess, "correct": is_correct(guess, it.answer)})
        if progress:
            progress(len(rows) / max(1, len(items)), f"{len(rows)} of {len(items)} passages")
    right = sum(r["correct"] for r in rows)
    lo, hi = wilson_interval(right, len(rows))
    return {"passages": len(rows), "accuracy": right / len(rows) if rows else 0.0, "ci": [lo, hi], "items": rows}
