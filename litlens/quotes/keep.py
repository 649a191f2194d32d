"""Keep or drop a candidate quotation: the not-speech rules' signals, and a decision over them.

After grouping, every candidate quotation is described by what each not-speech rule of
:mod:`litlens.quotes.filters` and :mod:`litlens.quotes.written` says about it (its
*signals*) and by a few plain facts about its shape and place (cue, length, first letter,
where it sits in its paragraph). Two deciders read them:

* :func:`rule_keeps`, the hand-written chain (a cued quotation is dropped only by the
  rules that hold even with a cue);
* :class:`LearnedKeeper`, LightGBM trees trained on PDNC's decisions over the same
  description (``benchmarks/quote_filter_cv.py`` trains it and reports it by
  leave-novels-out cross-validation; the shipped trees, trained on all 20 novels, are the
  text model ``resources/quote_keep.txt``).

PDNC's annotators decide case by case whether a quoted letter, a reported sentence or a
quoted phrase is speech; the trees learn how much each rule's word counts, and when.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from litlens.errors import InputFileError
from litlens.model import Paragraph
from litlens.quotes.cues import CLAUSE_LIMIT, Cue, clause_end, clause_start
from litlens.quotes.filters import (
    _FIRST_SECOND,
    _PAST_OR_MODAL,
    _THIRD,
    _is_name_given,
    _is_short_lined_verse,
    _narrators_fragment,
    _reported,
    _that_clause,
)
from litlens.quotes.lexicon import Names, is_speech_verb
from litlens.quotes.marks import _Seg
from litlens.quotes.types import _find_cue
from litlens.quotes.written import (
    _heading_title,
    _is_epigraph,
    _not_uttered,
    _opens_letter,
    _printed_in_capitals,
    _UnutteredHints,
    _written_before,
    _written_below,
    _written_cue,
)

MODEL_FILE = Path(__file__).resolve().parents[2] / "resources" / "quote_keep.txt"

# What each not-speech rule says about a candidate (see the rules' docstrings).
SIGNALS = (
    "written_continues",  # a quoted paragraph carrying on a run of written words
    "written_below",  # opens its paragraph under narration that introduces writing
    "opens_letter",  # opens like a letter ("Dear Sir,--")
    "reported",
    "narrators_fragment",
    "written_cue",
    "that_clause",
    "not_uttered",
    "name_given",
    "short_verse",
    "epigraph",
    "capitals",
    "written_before",
    "heading_title",
)

# Plain facts about a candidate, beside the signals.
SHAPE = (
    "has_cue", "cue_explicit", "cue_name", "cue_pronoun", "segments", "words", "chars",
    "first_lower", "first_upper", "last_stop", "last_comma", "last_exclaim", "last_dash", "last_none",
    "opens_paragraph", "closes_paragraph", "quote_before_in_paragraph", "quote_after_in_paragraph",
    "narration_before", "narration_after", "before_colon", "before_comma", "first_second", "third_past",
    "newlines", "capital_share", "paragraph_chars", "carried", "speech_verb_near", "thought_near", "rule_keeps",
)
FEATURES = SIGNALS + SHAPE


@dataclass
class Candidate:
    """A quotation found by grouping, before the not-speech decision."""

    group: list[_Seg]
    cue: Cue | None
    signals: dict[str, bool]
    features: list[float] = field(default_factory=list)


def rule_keeps(cue: Cue | None, s: dict[str, bool], off: frozenset[str] = frozenset()) -> bool:
    """The hand-written decision: is the candidate speech? ``off`` names rules to ignore
    (for measuring what each one adds)."""

    def on(name: str) -> bool:
        return s[name] and name not in off

    if on("written_continues") or on("written_below") or on("opens_letter"):
        return False
    if cue is None and (on("reported") or on("narrators_fragment")):
        return False
    if cue is not None and (on("written_cue") or on("that_clause")):
        return False
    if on("not_uttered") or on("name_given") or on("short_verse"):
        return False
    return not (cue is None and (on("epigraph") or on("capitals") or on("written_before") or on("heading_title")))


def candidates(
    text: str, groups: list[list[_Seg]], paragraphs: Sequence[Paragraph], names: Names, wrap: int | None
) -> list[Candidate]:
    """Each group with its cue, the rules' signals and its feature row (:data:`FEATURES`).

    A run of written words goes on from a quoted paragraph the rules dropped as written to
    the quoted paragraphs that carry it on; the run follows the rules' own decisions.
    """
    hints = _UnutteredHints(text)
    out: list[Candidate] = []
    written_run = False
    for gi, group in enumerate(groups):
        prev_seg = groups[gi - 1][-1] if gi > 0 else None
        next_seg = groups[gi + 1][0] if gi + 1 < len(groups) else None
        continues = written_run and prev_seg is not None and prev_seg.carried and group[0].para == prev_seg.para + 1
        below = _written_below(text, group, paragraphs)
        letter = _opens_letter(text, group)
        written_run = continues or below or letter
        cue = _find_cue(text, group, prev_seg, next_seg, paragraphs, names)
        signals = {
            "written_continues": continues,
            "written_below": below,
            "opens_letter": letter,
            "reported": _reported(text, group, paragraphs),
            "narrators_fragment": _narrators_fragment(text, group, prev_seg, paragraphs),
            "written_cue": cue is not None and _written_cue(cue),
            "that_clause": _that_clause(text, group, prev_seg),
            "not_uttered": _not_uttered(text, group, paragraphs, cue, hints),
            "name_given": _is_name_given(text, group, paragraphs),
            "short_verse": _is_short_lined_verse(text, group, wrap),
            "epigraph": _is_epigraph(text, group, paragraphs),
            "capitals": _printed_in_capitals(text, group),
            "written_before": _written_before(text, group, prev_seg, paragraphs),
            "heading_title": _heading_title(text, group, paragraphs),
        }
        c = Candidate(group, cue, signals)
        c.features = _features(text, c, prev_seg, next_seg, paragraphs)
        out.append(c)
    return out


_LETTER = re.compile(r"[^\W\d_]")
_WORDS = re.compile(r"[^\W\d_]+")
_NON_SPACE = re.compile(r"\S")


def _last_non_space(text: str, start: int, end: int) -> int:
    """The end of ``text[start:end]`` with trailing whitespace left out (``start`` at least)."""
    while end > start and text[end - 1].isspace():
        end -= 1
    return end
# Verbs of thinking, not saying: words after them are imagined ("he thought, "...""), which
# PDNC annotates in some books and not in others.
_THOUGHT = frozenset(
    """thought think thinks thinking wondered wonder wonders reflected reflect mused muse fancied
    imagined imagine supposed suppose felt feel knew know hoped hope feared fear wished wish
    resolved decided determined considered realised realized meant mean""".split()
)


def _near_words(text: str, c: Candidate, paragraphs: Sequence[Paragraph]) -> list[str]:
    """The words of the clause before the candidate and of the clause after it."""
    first, last = c.group[0], c.group[-1]
    words: list[str] = []
    if first.open_mark is not None:
        p = paragraphs[first.para]
        words += _WORDS.findall(text, clause_start(text, p.start, first.open_mark), first.open_mark)
    if last.close_mark is not None:
        end = paragraphs[last.para].end
        end = min(end, last.close_mark + 1 + CLAUSE_LIMIT)  # no sentence end in a huge paragraph: read a bounded clause
        words += _WORDS.findall(text, last.close_mark + 1, clause_end(text, last.close_mark + 1, end))
    return [w.lower() for w in words]


def _features(text: str, c: Candidate, prev_seg: _Seg | None, next_seg: _Seg | None, paragraphs: Sequence[Paragraph]) -> list[float]:
    first, last = c.group[0], c.group[-1]
    p, lp = paragraphs[first.para], paragraphs[last.para]
    body = " ".join(text[s.start : s.end] for s in c.group)
    letter = _LETTER.search(body)
    end = body.rstrip(" _*)'’\"”")[-1:]
    # The narration before and after inside the paragraph, measured without copying it (a
    # paragraph of 100,000 quotations would make copies quadratic).
    before_end = _last_non_space(text, p.start, first.open_mark if first.open_mark is not None else first.start)
    after_start = last.close_mark + 1 if last.close_mark is not None else last.end
    m = _NON_SPACE.search(text, after_start, lp.end)
    after_len = _last_non_space(text, m.start(), lp.end) - m.start() if m else 0
    before_last = text[before_end - 1] if before_end > p.start else ""
    letters = _LETTER.findall(body)
    near = _near_words(text, c, paragraphs)
    shape = {
        "has_cue": c.cue is not None,
        "cue_explicit": c.cue is not None and c.cue.type == "explicit",
        "cue_name": c.cue is not None and c.cue.subject == "name",
        "cue_pronoun": c.cue is not None and c.cue.subject == "pronoun",
        "segments": len(c.group),
        "words": len(body.split()),
        "chars": len(body),
        "first_lower": letter is not None and letter.group().islower(),
        "first_upper": letter is not None and letter.group().isupper(),
        "last_stop": end in {".", ";"},
        "last_comma": end in {",", ":"},
        "last_exclaim": end in {"!", "?"},
        "last_dash": end in {"-", "—", "–", "…"},
        "last_none": end.isalnum() or not end,
        "opens_paragraph": first.open_mark == p.start,
        "closes_paragraph": after_len == 0,
        "quote_before_in_paragraph": prev_seg is not None and prev_seg.para == first.para,
        "quote_after_in_paragraph": next_seg is not None and next_seg.para == last.para,
        "narration_before": before_end - p.start,
        "narration_after": after_len,
        "before_colon": before_last == ":",
        "before_comma": before_last == ",",
        "first_second": len(_FIRST_SECOND.findall(body)),
        "third_past": bool(_THIRD.search(body) and _PAST_OR_MODAL.search(body)),
        "newlines": body.count("\n"),
        "capital_share": sum(ch.isupper() for ch in letters) / max(1, len(letters)),
        "paragraph_chars": p.end - p.start,
        "carried": last.carried,
        "speech_verb_near": any(is_speech_verb(w) for w in near),
        "thought_near": any(w in _THOUGHT for w in near),
        "rule_keeps": rule_keeps(c.cue, c.signals),
    }
    return [float(c.signals[name]) for name in SIGNALS] + [float(shape[name]) for name in SHAPE]


def in_question(c: Candidate) -> bool:
    """Is the candidate one PDNC's annotators decide case by case, which the trees decide?

    Those a not-speech rule fires on, and those that look like the cases the rules are
    about without firing them: uncued quotations inside a paragraph of narration, quotations
    next to a verb of thinking, starting in lower case inside narration, or in the third
    person and past tense inside narration. Any other candidate is plain dialogue and is kept.
    """
    f = dict(zip(FEATURES, c.features, strict=True))
    inside = not f["opens_paragraph"]
    return (
        any(c.signals.values())
        or (inside and not f["has_cue"])
        or bool(f["thought_near"])
        or (inside and bool(f["first_lower"]))
        or (inside and bool(f["third_past"]) and not f["first_second"])
    )


class LearnedKeeper:
    """LightGBM trees over :data:`FEATURES` that say whether PDNC would annotate a candidate
    :func:`in_question` as speech (probability of yes); kept when it is at least
    ``threshold``. Every other candidate is kept."""

    def __init__(self, model_text: str, threshold: float = 0.5):
        import lightgbm

        self.booster = lightgbm.Booster(model_str=model_text)
        if self.booster.num_feature() != len(FEATURES):
            raise ValueError(f"the quotation keep model has {self.booster.num_feature()} features, expected {len(FEATURES)}")
        self.threshold = threshold

    def keeps(self, found: Sequence[Candidate]) -> list[bool]:
        if not found:
            return []
        import numpy as np

        asked = [k for k, c in enumerate(found) if in_question(c)]
        kept = [True] * len(found)
        if asked:
            p = self.booster.predict(np.array([found[k].features for k in asked], dtype=float))
            for k, x in zip(asked, p, strict=True):
                kept[k] = bool(x >= self.threshold)
        return kept


@functools.cache
def shipped_keeper() -> LearnedKeeper:
    """The trees shipped in ``resources/quote_keep.txt`` (trained on the 20 PDNC novels)."""
    if not MODEL_FILE.is_file():
        raise InputFileError(
            MODEL_FILE,
            "the quotation keep model is missing",
            "Install LitLens from its source folder with `pip install -e .` so resources/ is found, "
            "or rebuild it with `python benchmarks/quote_filter_cv.py --save`",
        )
    return LearnedKeeper(MODEL_FILE.read_text(encoding="utf-8"))
