"""Speech retold inside a quotation, and stage directions, cut out of it.

A quotation in the other style's marks inside a quotation (``'…'`` inside ``"…"``) is
retold speech when it has a cue of its own; then the outer speaker speaks only the
stretches between the retold pieces (:func:`_split_at_nested_speech`). A parenthesis of
narration ("(with a smile)") is cut out too; nested titles and words stay inside.
"""

from __future__ import annotations

import re

from litlens.model import Paragraph
from litlens.quotes.cues import cue_after, cue_before
from litlens.quotes.filters import _FIRST_SECOND, _is_mention
from litlens.quotes.lexicon import Names
from litlens.quotes.marks import Style, _double_segments, _Seg, _single_segments


# --------------------------------------------------------------------------- nested speech


def _nested_quotes(text: str, seg: _Seg, style: Style) -> list[_Seg]:
    """Quotations in the other style's marks inside ``seg`` (``'…'`` inside ``"…"``)."""
    inner = Paragraph(0, seg.start, seg.end, None)
    scan = _single_segments if style == "double" else _double_segments
    nested, _ = scan(text, inner, 0)
    closed = [n for n in nested if n.open_mark is not None and n.close_mark is not None]
    last = nested[-1] if nested else None
    if seg.close_mark is None and last is not None and last.open_mark is not None and last.close_mark is None and closed:
        closed.append(last)  # runs on to the end of the paragraph with its outer quotation
    return closed


def _retold(text: str, nested: _Seg, following: _Seg, names: Names) -> bool:
    """Is the nested quotation speech retold with its own cue ("'Oh!' said he, …")?"""
    if nested.close_mark is None:
        return False  # runs on to the end of the paragraph: no cue can follow it here
    if following.open_mark is not None and following.open_mark > nested.close_mark:
        start, stop = nested.close_mark + 1, following.open_mark
        return (cue_after(text, start, stop, names) or cue_before(text, start, stop, names)) is not None
    return cue_after(text, nested.close_mark + 1, following.end, names) is not None


# A parenthesis inside a quotation that is narration, not the speaker's own aside:
# "(looking towards her father)", "(with a smile)", "(here he looked at the door)".
_STAGE_DIRECTION = re.compile(r"\(\s*(?:[a-z]+ing|with|here|aside|then|after|again)\b[^()\"“”]{0,200}\)")


def _stage_directions(text: str, seg: _Seg) -> list[_Seg]:
    """Stage directions in parentheses inside ``seg``, as segments to cut out."""
    out = []
    for m in _STAGE_DIRECTION.finditer(text, seg.start, seg.end):
        if _FIRST_SECOND.search(m.group()):
            continue  # "(turning to you, my dear)": the speaker's own words
        out.append(_Seg(seg.para, m.start() + 1, m.end() - 1, m.start(), m.end() - 1))
    return out


def _split_at_nested_speech(text: str, seg: _Seg, style: Style, names: Names) -> list[_Seg]:
    """Leave out of a quotation the speech it retells and its stage directions, like PDNC.

    A speaker who retells a conversation (``"He looked up. 'Go home,' he said, 'and stay
    there.' So I went."``) speaks only the stretches between the retold speech; once one
    nested quotation has a cue of its own, every nested quotation that is not a mere
    mention is cut out. A stage direction in parentheses ("(with a smile)") is narration
    and is cut out too. Each of the speaker's stretches between retold speech is its own
    quotation, as PDNC mostly annotates them (on the 20 PDNC novels this beats keeping
    them as one quotation on both halves of the development split, though some books'
    annotators joined them); the stretches around a stage direction stay one quotation,
    one span each (``resumes``). A nested quotation still open where its outer one runs on
    into the next paragraph is cut out to the paragraph's end. A nested title, scare
    quote or word (``"He told me 'never again' and left"``), or nested words without a
    cue (``"just say 'not today'"``), stay inside.
    """
    nested = _nested_quotes(text, seg, style)
    if not any(_retold(text, n, nested[k + 1] if k + 1 < len(nested) else seg, names) for k, n in enumerate(nested)):
        nested = []
    inner = Paragraph(0, seg.start, seg.end, None)
    cuts = [n for k, n in enumerate(nested) if not _is_mention(text, n, nested[k + 1] if k + 1 < len(nested) else None, inner, names)]
    cuts = sorted(cuts + _stage_directions(text, seg), key=lambda n: n.start)
    if not cuts:
        return [seg]
    cuts = [n for k, n in enumerate(cuts) if k == 0 or n.start > cuts[k - 1].end]
    pieces: list[_Seg] = []
    start, open_mark = seg.start, seg.open_mark
    after_stage = False  # the last cut was a stage direction: the speech resumes after it
    for n in cuts:
        assert n.open_mark is not None
        pieces.append(_Seg(seg.para, start, n.open_mark, open_mark, None, resumes=bool(pieces) and after_stage))
        after_stage = text[n.open_mark] == "("
        start, open_mark = (n.close_mark + 1 if n.close_mark is not None else seg.end), None
    if start < seg.end:
        pieces.append(_Seg(seg.para, start, seg.end, open_mark, seg.close_mark, seg.carried, seg.reserve, resumes=after_stage))
    else:
        pieces[-1].carried = seg.carried
    return pieces
