"""Join or split two quoted segments of one paragraph: the rules' signals at each boundary.

:mod:`litlens.quotes.grouping` decides, by rule, which neighbouring segments of a paragraph
are one quotation (a cue between them, a comma, a beat of action) and which are two. Here
each such *boundary* is described by what those rules see (the link the rules found, a
cue between the two and its type, a sentence break, a beat, how the first piece ends and
the second begins, a cue of the second's own) and by the rules' final decision, so that
trees trained on PDNC's decisions can be measured against the rules by leave-novels-out
cross-validation (``benchmarks/quote_filter_cv.py --joins``) and :func:`regroup` can
rebuild the quotations from a decision per boundary.

A boundary inside a cut-out stage direction (the speech resumes after it) is not asked
about: it always joins.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from litlens.model import Paragraph
from litlens.quotes.cues import cue_after, cue_before
from litlens.quotes.grouping import _beat_between, _has_sentence_break, _link, _own_cue
from litlens.quotes.lexicon import Names, is_speech_verb
from litlens.quotes.marks import _Seg
from litlens.quotes.types import _narration_stop

JOIN_FEATURES = (
    "rule_joins", "link_cue", "link_plain", "beat", "sentence_break", "mid_words", "mid_chars",
    "cue_after_a", "cue_after_explicit", "cue_before_b", "speech_verb_in_mid", "mid_ends_stop", "mid_ends_comma",
    "mid_ends_colon", "a_ends_stop", "a_ends_comma", "a_ends_exclaim", "a_ends_dash", "a_ends_none",
    "b_starts_lower", "a_words", "b_words", "b_own_cue", "position_in_paragraph", "segments_in_paragraph",
)

_LETTER = re.compile(r"[^\W\d_]")


@dataclass
class Boundary:
    """Between segment ``index`` and the next one, in one paragraph; ``joined`` by the rules."""

    index: int
    joined: bool
    features: list[float] = field(default_factory=list)


def boundaries(
    text: str, groups: list[list[_Seg]], paragraphs: Sequence[Paragraph], names: Names
) -> tuple[list[_Seg], list[Boundary]]:
    """The segments of ``groups`` in order, and every boundary between two neighbours of
    one paragraph that the rules decide (both marks present, no stage direction)."""
    segs = [s for g in groups for s in g]
    joined_after: set[int] = set()
    k = 0
    for g in groups:
        joined_after.update(range(k, k + len(g) - 1))
        k += len(g)
    per_para: dict[int, list[int]] = {}
    position: dict[int, int] = {}
    for i, s in enumerate(segs):
        position[i] = len(per_para.setdefault(s.para, []))
        per_para[s.para].append(i)
    out: list[Boundary] = []
    for i in range(len(segs) - 1):
        a, b = segs[i], segs[i + 1]
        if a.para != b.para or a.close_mark is None or b.open_mark is None or b.resumes:
            continue
        in_para = (position[i], len(per_para[a.para]))
        out.append(Boundary(i, i in joined_after, _features(text, segs, i, i in joined_after, paragraphs, names, in_para)))
    return segs, out


def _features(
    text: str, segs: list[_Seg], i: int, joined: bool, paragraphs: Sequence[Paragraph], names: Names, in_para: tuple[int, int]
) -> list[float]:
    a, b = segs[i], segs[i + 1]
    assert a.close_mark is not None and b.open_mark is not None
    nxt = segs[i + 2] if i + 2 < len(segs) else None
    after_end = _narration_stop(b, nxt, paragraphs)
    mid = text[a.close_mark + 1 : b.open_mark]
    link = _link(text, a, b, after_end, names)
    cue = cue_after(text, a.close_mark + 1, b.open_mark, names)
    last = text[a.start : a.end].rstrip(" _*)")[-1:]
    letter = _LETTER.search(text, b.start, b.end)
    stripped = mid.strip()
    f = {
        "rule_joins": joined,
        "link_cue": link == "cue",
        "link_plain": link == "plain",
        "beat": bool(stripped) and _beat_between(text, a, b),
        "sentence_break": _has_sentence_break(mid),
        "mid_words": len(mid.split()),
        "mid_chars": len(stripped),
        "cue_after_a": cue is not None,
        "cue_after_explicit": cue is not None and cue.type == "explicit",
        "cue_before_b": cue_before(text, a.close_mark + 1, b.open_mark, names) is not None,
        "speech_verb_in_mid": any(is_speech_verb(w) for w in re.findall(r"[^\W\d_]+", mid)),
        "mid_ends_stop": stripped[-1:] in {".", "!", "?"},
        "mid_ends_comma": stripped[-1:] == ",",
        "mid_ends_colon": stripped[-1:] in {":", ";"},
        "a_ends_stop": last == ".",
        "a_ends_comma": last == ",",
        "a_ends_exclaim": last in {"!", "?"},
        "a_ends_dash": last in {"-", "—", "–", "…"},
        "a_ends_none": last.isalnum() or not last,
        "b_starts_lower": letter is not None and letter.group().islower(),
        "a_words": len(text[a.start : a.end].split()),
        "b_words": len(text[b.start : b.end].split()),
        "b_own_cue": _own_cue(text, segs, i + 1, paragraphs, names),
        "position_in_paragraph": in_para[0],
        "segments_in_paragraph": in_para[1],
    }
    return [float(f[name]) for name in JOIN_FEATURES]


def regroup(segs: list[_Seg], decided: dict[int, bool], groups: list[list[_Seg]]) -> list[list[_Seg]]:
    """``groups`` rebuilt with the boundaries in ``decided`` (segment index -> join?) set as
    given; every other boundary stays as the rules left it."""
    joined_after: set[int] = set()
    k = 0
    for g in groups:
        joined_after.update(range(k, k + len(g) - 1))
        k += len(g)
    out: list[list[_Seg]] = []
    for i, s in enumerate(segs):
        join = decided.get(i - 1, (i - 1) in joined_after) if i > 0 else False
        if join and out:
            out[-1].append(s)
        else:
            out.append([s])
    return out
