"""The narrator of a first-person book, as a character of its own when the text never names them.

A first-person narrator speaks ("said I", "I asked") like any character, but the name
rules find them only when the book names them. Others call a named narrator by name when
they answer them ('"My dear Watson," said he'), and the narration calls the narrator "I",
so the narrator's name is written almost only inside quotations, and it is a name
addressed in the turns that answer the narrator's own. (On the three first-person PDNC
novels 99-100% of the narrator's mentions are inside quotations; of the other characters
addressed twice in those answers, at most 59%.) When the narration is in the first person
and no entry is named that way, discovery adds one entry, :data:`~litlens.model.NARRATOR`,
for the narrator; the attributor takes it as the narrator of the book
(:func:`litlens.attribution.context.build_context`).

First person: more than :data:`FIRST_PERSON_RATE` "I" per 100 words of narration (the
words outside quotations). On the 20 PDNC novels the three first-person books have 2.1-2.6
and the third-person books at most 0.34.
"""

from __future__ import annotations

import bisect
import re
from collections import Counter
from collections.abc import Sequence

from litlens.model import NARRATOR, Character, Quotation

FIRST_PERSON_RATE = 0.5  # "I" per 100 words of narration above which a book is told in the first person
NAMED_ANSWERS = 2  # a narrator's name is addressed at least this often in answers to "said I" turns
NAMED_INSIDE = 0.8  # ... and at least this share of its mentions is inside quotations (the narration says "I")
_ANSWER_REACH = 400  # characters between a "said I" quotation and a quotation that answers it
_FIRST_PERSON_CUE = re.compile(r"\bI\b")
_PUNCT = ",.;:!?—-'\"“”‘’()"


def first_person_rate(text: str, quote_spans: Sequence[tuple[int, int]]) -> float:
    """"I" per 100 words of the narration (``text`` outside the sorted, merged ``quote_spans``)."""
    words = first = 0
    pos = 0
    for start, end in list(quote_spans) + [(len(text), len(text))]:
        chunk = text[pos:start].split()
        words += len(chunk)
        first += sum(1 for w in chunk if w.strip(_PUNCT) == "I")
        pos = max(pos, end)
    return 100.0 * first / max(1, words)


def first_person_cued(quotation: Quotation) -> bool:
    """The quotation's cue has the narrator as its subject ("said I", "I asked")."""
    return bool(quotation.referring_expression and _FIRST_PERSON_CUE.search(quotation.referring_expression))


def _addressed(text: str, span: tuple[int, int], start: int, end: int) -> bool:
    """A name at ``start:end`` inside ``span`` is addressed: it opens the span or follows a
    comma, and a comma or the span's closing punctuation follows it ('"Yes, Watson."')."""
    a, b = span
    before = text[a:start].rstrip()
    opens = not before or before.endswith(",")
    after = text[end:end + 1]
    closes = after == "," or (after in (".", "!", "?") and not text[end:b].strip(".!? \t\n"))
    return opens and closes


def narrator_answers(text: str, quotations: Sequence[Quotation],
                     mentions: Sequence[tuple[int, int, object]]) -> Counter:
    """How often each owner of ``mentions`` (start, end, owner; sorted) is addressed in a
    quotation next to a first-person-cued one: the answers to the narrator name them."""
    quotes = sorted(quotations, key=lambda q: q.start)
    starts = [m[0] for m in mentions]
    out: Counter = Counter()
    for i, q in enumerate(quotes):
        if not first_person_cued(q):
            continue
        for j in (i - 1, i + 1):
            if not 0 <= j < len(quotes) or first_person_cued(quotes[j]):
                continue
            other = quotes[j]
            gap = other.start - q.end if j > i else q.start - other.end
            if gap > _ANSWER_REACH:
                continue
            for span in other.spans:
                lo, hi = bisect.bisect_left(starts, span[0]), bisect.bisect_left(starts, span[1])
                for s, e, owner in mentions[lo:hi]:
                    if _addressed(text, span, s, e):
                        out[owner] += 1
    return out


def needs_narrator(text: str, quotations: Sequence[Quotation],
                   mentions: Sequence[tuple[int, int, object]]) -> bool:
    """The book is told in the first person and no owner of ``mentions`` is the narrator by
    name (addressed in answers to the narrator, named almost only inside quotations)."""
    spans = sorted(s for q in quotations for s in q.spans)
    if first_person_rate(text, spans) <= FIRST_PERSON_RATE:
        return False
    if not any(first_person_cued(q) for q in quotations):
        return False
    answers = narrator_answers(text, quotations, mentions)
    span_starts = [s for s, _ in spans]
    inside: Counter = Counter()
    total: Counter = Counter()
    for s, _, owner in mentions:
        total[owner] += 1
        k = bisect.bisect_right(span_starts, s) - 1
        if k >= 0 and s < spans[k][1]:
            inside[owner] += 1
    return not any(n >= NAMED_ANSWERS and inside[owner] >= NAMED_INSIDE * total[owner]
                   for owner, n in answers.items())


def narrator_character(quotations: Sequence[Quotation]) -> Character:
    """The entry for an unnamed narrator (no gender: "I" tells none); ``quote_count`` counts
    the quotations already given to it, as for every other entry."""
    return Character(name=NARRATOR, aliases=[NARRATOR], gender="unknown",
                     quote_count=sum(1 for q in quotations if q.speaker == NARRATOR))
