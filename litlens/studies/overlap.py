"""Do two candidate passages share text? The test that keeps proxy items answerable.

Two options of one item must share no sentence and no run of ``n`` (8) or more words,
compared on lower-cased word tokens, so that punctuation, case and spacing do not hide a
copy. Candidate passages of one book are overlapping windows of sentences, so without
this test the gold and a distractor (or two distractors) often hold the same lines and
an annotator cannot tell them apart.

The same functions build items (:func:`first_compatible`) and check stored ones
(:func:`options_overlap`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

RUN = 8  # words in a shared run that makes two options overlap

_WORD = re.compile(r"[^\W_]+(?:['’][^\W_]+)*")
# A sentence ends at . ! ? (or an ellipsis), perhaps followed by closing quotes or brackets,
# and then white space or a dash; a title such as "Mr." or a single initial does not end one,
# nor does a mark that the same sentence goes on after in lower case ('"Yes!" she cried.').
_END = re.compile(r"(?<=[.!?…])[\"'”’)\]]*(?=\s|[-—–]|$)")
_GOES_ON = re.compile(r"\s*[a-z]")
_NOT_AN_END = re.compile(r"(?:\b(?i:mr|mrs|ms|dr|st|messrs|mme|mlle|rev|col|capt|gen|lt|sgt)|\b[A-Z])\.$")


@dataclass(frozen=True)
class TextPrint:
    """What the overlap test needs from one text: its words (with offsets), word runs and sentences."""

    text: str
    spans: tuple[tuple[int, int], ...]  # character span of each word token
    tokens: tuple[str, ...]  # lower-cased word tokens
    runs: frozenset  # every n-word run, as a tuple of tokens
    sentences: dict  # sentence as a tuple of tokens → its text
    n: int

    @classmethod
    def of(cls, text: str, n: int = RUN) -> TextPrint:
        matches = list(_WORD.finditer(text))
        tokens = tuple(m.group().lower().replace("’", "'") for m in matches)
        runs = frozenset(tokens[i:i + n] for i in range(len(tokens) - n + 1))
        sentences = {}
        for chunk in split_sentences(text):
            words = tuple(w.lower().replace("’", "'") for w in _WORD.findall(chunk))
            if words:
                sentences.setdefault(words, chunk)
        return cls(text, tuple(m.span() for m in matches), tokens, runs, sentences, n)


def split_sentences(text: str) -> list[str]:
    """The text's sentences (stripped), split at end punctuation but not after a title or an initial."""
    out, start = [], 0
    for m in _END.finditer(text):
        if _NOT_AN_END.search(text[start:m.start()]) or _GOES_ON.match(text, m.end()):
            continue
        chunk = text[start:m.end()].strip()
        if chunk:
            out.append(chunk)
        start = m.end()
    tail = text[start:].strip()
    if tail:
        out.append(tail)
    return out


def _print(x: str | TextPrint, n: int) -> TextPrint:
    return x if isinstance(x, TextPrint) and x.n == n else TextPrint.of(x if isinstance(x, str) else x.text, n)


def shared_run(a: str | TextPrint, b: str | TextPrint, n: int = RUN) -> str | None:
    """The longest stretch of ``a`` whose every n-word run also occurs in ``b`` (as ``a`` writes
    it), or None when the two share no run of ``n`` words."""
    pa, pb = _print(a, n), _print(b, n)
    if not pa.runs & pb.runs:
        return None
    best: tuple[int, int] | None = None
    i, count = 0, len(pa.tokens) - n + 1
    while i < count:
        if pa.tokens[i:i + n] not in pb.runs:
            i += 1
            continue
        j = i
        while j + 1 < count and pa.tokens[j + 1:j + 1 + n] in pb.runs:
            j += 1
        if best is None or j - i > best[1] - best[0]:
            best = (i, j)
        i = j + 1
    first, last = best
    return pa.text[pa.spans[first][0]:pa.spans[last + n - 1][1]]


def shared_sentence(a: str | TextPrint, b: str | TextPrint) -> str | None:
    """A sentence of ``a`` that is also a whole sentence of ``b`` (same words), the longest; else None."""
    pa, pb = _print(a, RUN), _print(b, RUN)
    common = pa.sentences.keys() & pb.sentences.keys()
    if not common:
        return None
    return pa.sentences[max(common, key=len)]


def shared_text(a: str | TextPrint, b: str | TextPrint, n: int = RUN) -> str | None:
    """What two options share that an annotator would notice: a run of ``n``+ words, else a sentence."""
    pa, pb = _print(a, n), _print(b, n)
    return shared_run(pa, pb, n) or shared_sentence(pa, pb)


def options_overlap(texts: Sequence[str | TextPrint], n: int = RUN) -> list[tuple[int, int, str]]:
    """Every pair of options (0-based indices i < j) that share text, with the shared text."""
    prints = [_print(t, n) for t in texts]
    out = []
    for i in range(len(prints)):
        for j in range(i + 1, len(prints)):
            shared = shared_text(prints[i], prints[j], n)
            if shared is not None:
                out.append((i, j, shared))
    return out


def first_compatible(
    fixed: Sequence[str | TextPrint], ranked: Iterable[tuple[object, str | TextPrint]], wanted: int, n: int = RUN,
    *, also_clashes: Callable[[object, list[object]], bool] | None = None,
) -> list[object]:
    """Walk ``ranked`` (key, text) best first and keep a candidate only when it shares no text with
    the ``fixed`` texts (the gold) or with any candidate kept so far; stop at ``wanted`` kept.
    ``also_clashes(key, kept_keys)`` can refuse a candidate for another reason (e.g. overlapping
    character ranges). Returns the kept keys in rank order (fewer than ``wanted`` when the ranking
    runs out)."""
    kept_prints = [_print(t, n) for t in fixed]
    kept: list[object] = []
    for key, text in ranked:
        if len(kept) >= wanted:
            break
        if also_clashes is not None and also_clashes(key, kept):
            continue
        p = _print(text, n)
        if any(shared_text(p, other, n) is not None for other in kept_prints):
            continue
        kept.append(key)
        kept_prints.append(p)
    return kept
