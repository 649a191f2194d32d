"""Quoted segments to quotations: joins and splits.

:func:`group_segments` joins two segments of one paragraph into one quotation (PDNC's
sub-quotations) when the narration between them is a cue that tags both, or when the
first ends with a comma and no cue comes between (:func:`_link`); a second speaker's cue
or a full sentence of narration separates them unless the speech carries on past it.
:func:`join_beats` then joins an uncued quotation to the cued one before it across a
short beat of action, and :func:`split_uncued_asides` splits a quotation with no cue at
a comma-ended aside. The rules are told in full in :mod:`litlens.quotes.detect`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from itertools import pairwise

from litlens.model import Paragraph
from litlens.quotes.cues import Cue, clause_start, cue_after, cue_before
from litlens.quotes.filters import _is_name_given, _reported
from litlens.quotes.lexicon import Names, is_speech_verb
from litlens.quotes.marks import _Seg
from litlens.quotes.types import _find_cue, _narration_stop
from litlens.quotes.written import _not_uttered


_ABBREV_END = re.compile(r"\b(?:Mr|Mrs|Ms|Dr|St|Mme|Mlle|Messrs|Col|Capt|Gen|Lieut|Rev|Prof|Sr|Jr|No|Mt|[A-Z])\.$")
_SENT_BREAK = re.compile(r"[.!?]+[)\]]*\s+(?=[\"“‘'(_]*[A-Z0-9])")


def _has_sentence_break(mid: str) -> bool:
    core = mid.strip()
    for m in _SENT_BREAK.finditer(core):
        if m.end() >= len(core):
            continue
        if _ABBREV_END.search(core[: m.start() + 1]):
            continue
        return True
    return False


# Narration wholly in parentheses between two segments of one paragraph: a stage direction
# inside one continuing speech, not a new utterance.
_PAREN_ASIDE = re.compile(r"\s*\([^()\"\u201c\u201d]{1,200}\)\s*")


def _carries_on(text: str, a: _Seg, b: _Seg, last: str, cue: Cue | None, after_end: int, names: Names) -> bool:
    """Does a speech go on past narration of more than one sentence?

    ``"Jake," Mike said. He was almost crying. "You know I'm right."``: the narration opens
    with ``cue``, which tags ``a`` (whose ``last`` character is a comma, "!" or "?", so
    the cue belongs to it), no later clause introduces another speaker, and ``b`` has no
    cue of its own.
    """
    assert a.close_mark is not None and b.open_mark is not None
    if last not in {",", "!", "?"} or cue is None:
        return False
    if cue_before(text, a.close_mark + 1, b.open_mark, names) is not None:
        return False
    return b.close_mark is None or b.close_mark + 1 >= after_end or cue_after(text, b.close_mark + 1, after_end, names) is None


def _cue_goes_on(text: str, start: int, cue: Cue) -> bool:
    """Does the cue right after a closing mark continue the sentence ('"Yes." said he')?

    A lower-case cue (or "I said") straight after the mark shows that the full stop
    inside the quotation stands where a comma belongs.
    """
    lead = text[start : cue.start]
    return not lead.strip() and (text[cue.start].islower() or text[cue.start : cue.start + 2] == "I ")


def _link(text: str, a: _Seg, b: _Seg, after_end: int, names: Names) -> str | None:
    """How two segments of one paragraph join into one quotation: "cue", "plain" or None.

    "cue" when the narration between them is one clause that holds a speech cue
    (``"Well," said he, "I think"``) and the first segment does not end a sentence with
    a full stop; "plain" when there is no cue but the first segment ends with a comma
    (the sentence goes on). A second speech verb after the cue ("said the King; and the
    Rabbit called out,") introduces another quotation. Narration of several sentences
    separates two quotations unless the speech :func:`_carries_on` past it. ``after_end``
    bounds the narration after ``b`` (the next segment's opening mark or the paragraph's
    end).
    """
    if a.close_mark is None or b.open_mark is None:
        return None
    mid = text[a.close_mark + 1 : b.open_mark]
    if _PAREN_ASIDE.fullmatch(mid):
        return "plain"  # "… Mrs. Mann." (Here she set down the glass.) "I shall …": an aside
    if not mid.strip():
        return None
    last = text[a.start : a.end].rstrip(" _*)")[-1:]
    cue = cue_after(text, a.close_mark + 1, b.open_mark, names)
    if _has_sentence_break(mid):
        return "cue" if _carries_on(text, a, b, last, cue, after_end, names) else None
    if cue is not None:
        if last == "." and not _cue_goes_on(text, a.close_mark + 1, cue):
            return None
        if _second_cue(text, cue.end, b.open_mark, names, same_sentence=last == ","):
            return None
        return "cue"
    if last != ",":
        return None
    if re.match(r"\s*(?:and|;)\s", mid) and _second_cue(text, a.close_mark + 1, b.open_mark, names, same_sentence=True):
        return None  # "…, Tom," and Ann said, "…": the narration introduces the next speaker
    return "plain"


_MODALS = frozenset("to could would should might may must can will shall cannot".split())


def _second_cue(text: str, start: int, end: int, names: Names, same_sentence: bool = False) -> bool:
    """Does narration ``text[start:end]`` end by introducing a new speaker ("and Roo said,")?

    With ``same_sentence`` (the first segment ended with a comma, so its sentence goes on
    after the narration) a cue whose subject is a pronoun ("said Tom, and then he
    added,") refers back to the same speaker and introduces no one new.
    """
    cue = cue_before(text, start, end, names)
    if cue is None or (same_sentence and cue.subject == "pronoun"):
        return False
    words = re.findall(r"[^\W\d_]+", cue.text)
    if len(words) < 2 or words[-1].lower().endswith("ing"):
        return False
    return words[-2].lower() not in _MODALS


def _own_cue(text: str, segs: Sequence[_Seg], k: int, paragraphs: Sequence[Paragraph], names: Names) -> bool:
    """Is segment ``k`` followed by a cue of its own, before the next segment of its
    paragraph or the paragraph's end ('"B," he added.')?"""
    b = segs[k]
    if b.close_mark is None:
        return False
    end = _narration_stop(b, segs[k + 1] if k + 1 < len(segs) else None, paragraphs)
    if b.close_mark + 1 >= end:
        return False
    cue = cue_after(text, b.close_mark + 1, end, names)
    if cue is None or text[b.close_mark + 1 : cue.start].strip():
        return False
    last = text[b.start : b.end].rstrip(" _*)")[-1:]
    first = text[cue.start : cue.end].split()[0]
    return last == "," or (last in {"!", "?"} and (first[0].islower() or is_speech_verb(first)))


def _ends_sentence(text: str, a: _Seg, b: _Seg) -> bool:
    """Does the narration between two segments end with a full stop ("said Pooh. ")?"""
    assert a.close_mark is not None and b.open_mark is not None
    return text[a.close_mark + 1 : b.open_mark].rstrip()[-1:] in {".", "!", "?"}


def group_segments(
    text: str, segs: Sequence[_Seg], paragraphs: Sequence[Paragraph], names: Names, join_paragraphs: bool = False
) -> list[list[_Seg]]:
    """Join segments into quotations (see the module docs).

    A cue tags the segments on both sides of it, and a segment belongs to one cue: in
    ``"A," said X. "B," he said. "C."`` the second cue joins B and C, and A stands alone
    (PDNC annotates it so), as it does in ``"A," said X. "B," he added.``. Chains are
    resolved from the right.
    """
    links: list[str | None] = []
    for i, (a, b) in enumerate(pairwise(segs)):
        if b.resumes and b.para == a.para and a.close_mark is None:
            links.append("nested")
        elif a.carried and b.para == a.para + 1:
            links.append("paragraph" if join_paragraphs else None)
        elif a.para == b.para:
            after_end = _narration_stop(b, segs[i + 2] if i + 2 < len(segs) else None, paragraphs)
            links.append(_link(text, a, b, after_end, names))
        else:
            links.append(None)
    for i in range(len(links) - 1, -1, -1):
        if links[i] != "cue" or not _ends_sentence(text, segs[i], segs[i + 1]):
            continue
        if i + 1 < len(links) and links[i + 1] == "cue":
            links[i] = None
        elif _own_cue(text, segs, i + 1, paragraphs, names):
            links[i] = None
    groups: list[list[_Seg]] = []
    for i, seg in enumerate(segs):
        if i > 0 and links[i - 1] is not None:
            groups[-1].append(seg)
        else:
            groups.append([seg])
    return groups


# Narration between two pieces of one speech is short: a gesture, a pause, a change of voice.
_BEAT_WORDS = 25


def _beat_between(text: str, a: _Seg, b: _Seg) -> bool:
    """Is the narration between ``a`` and ``b`` (one paragraph) a short beat of action
    that does not introduce ``b`` as new speech?

    ``"... a mistake." He thought a moment. "Yes--really"`` or ``"..."--dreamily; she was
    not alarmed--"that you are"`` are beats. A last clause with a speech verb that does not
    end its sentence hands over to a new speech (``"...?" Then leaving her seat, added in a
    whisper, "..."``), even without a subject a cue could name.
    """
    assert a.close_mark is not None and b.open_mark is not None
    mid = text[a.close_mark + 1 : b.open_mark]
    if len(mid.split()) > _BEAT_WORDS or not re.search(r"[^\W\d_]", mid):
        return False
    if mid.rstrip().endswith((".", "!", "?")):
        return True
    last = text[clause_start(text, a.close_mark + 1, b.open_mark) : b.open_mark]
    return not any(is_speech_verb(w) for w in re.findall(r"[^\W\d_]+", last))


def join_beats(text: str, groups: list[list[_Seg]], paragraphs: Sequence[Paragraph], names: Names) -> list[list[_Seg]]:
    """Join an uncued quotation to the cued one before it in the same paragraph when only
    a beat of narration (:func:`_beat_between`) stands between them.

    ``"Come on, Jake," he said, "have a drink." We walked over to the bar. "What's the
    matter with you?"`` is one speaker going on after a gesture, and PDNC mostly
    annotates it as one quotation with several sub-spans (on the 20 PDNC novels such
    pairs are one quotation about twice as often as two). A second quotation with a cue
    of its own, after a first one without any, or that is not speech (reported, written
    or a name given) stays separate.
    """
    out: list[list[_Seg]] = []
    for gi, group in enumerate(groups):
        if out:
            a, b = out[-1][-1], group[0]
            if a.para == b.para and a.close_mark is not None and b.open_mark is not None and _beat_between(text, a, b):
                before = out[-2][-1] if len(out) > 1 else None
                after = groups[gi + 1][0] if gi + 1 < len(groups) else None
                if (
                    _find_cue(text, out[-1], before, b, paragraphs, names) is not None
                    and _find_cue(text, group, a, after, paragraphs, names) is None
                    and not _reported(text, group, paragraphs)
                    and not _not_uttered(text, group, paragraphs)
                    and not _is_name_given(text, group, paragraphs)
                ):
                    out[-1] = out[-1] + group
                    continue
        out.append(list(group))
    return out


def split_uncued_asides(
    text: str, groups: list[list[_Seg]], paragraphs: Sequence[Paragraph], names: Names
) -> list[list[_Seg]]:
    """Split a quotation that has no cue anywhere where a comma-ended aside of narration
    interrupts it (``"But that gentleman," looking at Darcy, "seemed to think…"``).

    PDNC joins the pieces of a speech around a cue; without one, such an aside (a gesture,
    a glance, a change of voice) separates two quotations about seven times in ten on the
    20 PDNC novels (18 against 7). The pieces were joined by :func:`_link` because the first ends with a
    comma; the aside itself must hold a word and end with a comma.
    """
    out: list[list[_Seg]] = []
    for gi, group in enumerate(groups):
        before = groups[gi - 1][-1] if gi > 0 else None
        after = groups[gi + 1][0] if gi + 1 < len(groups) else None
        if len(group) == 1 or _find_cue(text, group, before, after, paragraphs, names) is not None:
            out.append(group)
            continue
        piece = [group[0]]
        for a, b in pairwise(group):
            aside = ""
            if a.para == b.para and a.close_mark is not None and b.open_mark is not None:
                aside = text[a.close_mark + 1 : b.open_mark].strip()
            if aside.endswith(",") and re.search(r"[^\W\d_]", aside):
                out.append(piece)
                piece = [b]
            else:
                piece.append(b)
        out.append(piece)
    return out
