"""Boundaries between two quoted segments of a paragraph, and regrouping them."""

from __future__ import annotations

from litlens.quotes.detect import assemble_quotations, detect_candidates
from litlens.quotes.joins import JOIN_FEATURES, boundaries, regroup
from litlens.quotes.keep import rule_keeps
from litlens.text.paragraphs import find_paragraphs

TEXT = (
    '"Well," said he, "I think we should go." She nodded. "Now?"\n\n'
    '"Yes," he replied. "At once," said Mary.\n'
)


def _spans(text, found, kept=None):
    kept = kept if kept is not None else [rule_keeps(c.cue, c.signals) for c in found.candidates]
    return [[text[s:e] for s, e in q.spans] for q in assemble_quotations(found, kept)]


def test_joins_boundaries_carry_the_rules_decision():
    found = detect_candidates(TEXT, find_paragraphs(TEXT))
    segs, bounds = boundaries(found.text, [c.group for c in found.candidates], found.paragraphs, found.names)
    assert [TEXT[s.start : s.end] for s in segs] == ["Well,", "I think we should go.", "Now?", "Yes,", "At once,"]
    assert [(b.index, b.joined) for b in bounds] == [(0, True), (1, True), (3, False)]
    assert all(len(b.features) == len(JOIN_FEATURES) for b in bounds)
    first = dict(zip(JOIN_FEATURES, bounds[0].features, strict=True))
    assert first["link_cue"] == 1.0 and first["cue_after_a"] == 1.0 and first["a_ends_comma"] == 1.0


def test_joins_rules_own_decisions_change_nothing():
    paragraphs = find_paragraphs(TEXT)
    by_rules = detect_candidates(TEXT, paragraphs)
    same = detect_candidates(TEXT, paragraphs, joins=lambda bs: [b.joined for b in bs])
    assert _spans(TEXT, same) == _spans(TEXT, by_rules)


def test_joins_decisions_regroup_the_segments():
    paragraphs = find_paragraphs(TEXT)
    split_all = detect_candidates(TEXT, paragraphs, joins=lambda bs: [False] * len(bs))
    assert _spans(TEXT, split_all) == [["Well,"], ["I think we should go."], ["Now?"], ["Yes,"], ["At once,"]]
    join_all = detect_candidates(TEXT, paragraphs, joins=lambda bs: [True] * len(bs))
    assert _spans(TEXT, join_all) == [["Well,", "I think we should go.", "Now?"], ["Yes,", "At once,"]]


def test_joins_regroup_keeps_undecided_boundaries():
    found = detect_candidates(TEXT, find_paragraphs(TEXT))
    groups = [c.group for c in found.candidates]
    segs = [s for g in groups for s in g]
    assert regroup(segs, {}, groups) == groups
    assert len(regroup(segs, {0: False}, groups)) == len(groups) + 1
