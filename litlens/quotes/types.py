"""Quotation types in the PDNC sense, from the cue next to a quotation.

* **explicit** — the narration next to the quotation names the speaker with a proper
  name and a speech verb ("said Elizabeth", "Mrs. Bennet said", "cried Lydia");
* **anaphoric** — a speech verb with a pronoun or a common noun phrase ("she cried",
  "said his lady to him", "I said", "said her mother", "was the answer");
* **implicit** — no such cue: the speaker follows from turn-taking.

:func:`_find_cue` decides which narration belongs to a detected quotation and reads its
cue with :mod:`litlens.quotes.cues`: between its sub-quotations, else right after it,
else right before it (or at the end of the previous paragraph when that introduces it,
"Elizabeth said:"). :func:`classify_referring_expression` types a cue given as text
(PDNC's referring expressions).
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import pairwise

from litlens.model import Paragraph, QuoteType
from litlens.quotes.cues import Cue, cue_after, cue_before
from litlens.quotes.lexicon import Names
from litlens.quotes.marks import _Seg


def _narration_stop(seg: _Seg, next_seg: _Seg | None, paragraphs: Sequence[Paragraph]) -> int:
    """Where the narration after ``seg`` ends: the next segment's opening mark when it is
    in the same paragraph, else the paragraph's end."""
    if next_seg is not None and next_seg.para == seg.para and next_seg.open_mark is not None:
        return next_seg.open_mark
    return paragraphs[seg.para].end


def _narration_before(text: str, seg: _Seg, prev_seg: _Seg | None, paragraphs: Sequence[Paragraph]) -> tuple[int, int] | None:
    """The narration a cue may end with, right before ``seg``'s opening mark.

    Inside the paragraph: from the previous quotation's closing mark (or the paragraph's
    start). When the quotation opens its paragraph: the end of the previous paragraph,
    if that paragraph does not end inside or with a quotation and ends like an
    introduction ("Elizabeth said:", "and then the Secretary said").
    """
    if seg.open_mark is None:
        return None
    p = paragraphs[seg.para]
    if prev_seg is not None and prev_seg.para == seg.para:
        if prev_seg.close_mark is None:
            return None
        begin = prev_seg.close_mark + 1
    else:
        begin = p.start
    if begin < seg.open_mark:
        return begin, seg.open_mark
    if seg.para == 0:
        return None
    pp = paragraphs[seg.para - 1]
    begin = pp.start
    if prev_seg is not None and prev_seg.para == seg.para - 1:
        if prev_seg.close_mark is None:
            return None  # the previous paragraph ends inside a quotation
        begin = prev_seg.close_mark + 1
    tail = text[begin : pp.end].rstrip()
    if not tail or not (tail.endswith((":", ",", "—", "--")) or tail[-1].isalpha()):
        return None
    return begin, pp.end


def _narration_after(seg: _Seg, next_seg: _Seg | None, paragraphs: Sequence[Paragraph]) -> tuple[int, int] | None:
    """The narration right after ``seg``'s closing mark, up to the next quotation."""
    if seg.close_mark is None:
        return None
    return seg.close_mark + 1, _narration_stop(seg, next_seg, paragraphs)


def _find_cue(
    text: str,
    group: list[_Seg],
    prev_seg: _Seg | None,
    next_seg: _Seg | None,
    paragraphs: Sequence[Paragraph],
    names: Names,
) -> Cue | None:
    """The quotation's cue: between its sub-quotations, else right after, else right before."""
    for a, b in pairwise(group):
        if a.para == b.para and a.close_mark is not None and b.open_mark is not None:
            cue = cue_after(text, a.close_mark + 1, b.open_mark, names) or cue_before(text, a.close_mark + 1, b.open_mark, names)
            if cue:
                return cue
    after = _narration_after(group[-1], next_seg, paragraphs)
    if after is not None:
        cue = cue_after(text, after[0], after[1], names)
        if cue:
            return cue
    before = _narration_before(text, group[0], prev_seg, paragraphs)
    if before is not None:
        return cue_before(text, before[0], before[1], names)
    return None


def classify_referring_expression(expression: str | None) -> QuoteType:
    """Type of a quotation whose referring expression (e.g. PDNC's) is given as text.

    ``None`` or an empty expression is implicit; otherwise the expression is read as a cue
    (after-, then before-pattern); when no subject can be found it is anaphoric.
    """
    if not expression or not expression.strip():
        return "implicit"
    names = Names(expression, None, lenient=True)
    cue = cue_after(expression, 0, len(expression), names) or cue_before(expression, 0, len(expression), names)
    return cue.type if cue else "anaphoric"
