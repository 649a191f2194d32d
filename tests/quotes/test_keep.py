"""Keeping or dropping candidate quotations: the rules' signals and the shipped trees."""

from __future__ import annotations

import pytest

from litlens.errors import InputFileError
from litlens.quotes import keep
from litlens.quotes.detect import assemble_quotations, detect_candidates, detect_quotations
from litlens.quotes.keep import FEATURES, SIGNALS, LearnedKeeper, rule_keeps, shipped_keeper
from litlens.text.paragraphs import find_paragraphs

DIALOGUE = (
    '"I shall go to town to-morrow," said Elizabeth. "Will you come with me?"\n\n'
    '"Gladly," he replied.\n\n'
    "He took the letter from his pocket. It ran as follows:\n\n"
    '"Dear Sir,--Your parcel has arrived at the station and waits for you."\n\n'
    'The boys called him "Carrots." She laughed at that.\n'
)


def _found(text: str):
    return detect_candidates(text, find_paragraphs(text))


def test_keep_signals_name_each_rule():
    found = _found(DIALOGUE)
    by_text = {DIALOGUE[c.group[0].start : c.group[-1].end]: c for c in found.candidates}
    letter = next(c for t, c in by_text.items() if t.startswith("Dear Sir"))
    assert letter.signals["written_below"] and letter.signals["opens_letter"]
    assert not rule_keeps(letter.cue, letter.signals)
    name = by_text["Carrots."]
    assert name.signals["name_given"] and not rule_keeps(name.cue, name.signals)
    spoken = next(c for t, c in by_text.items() if t.startswith("I shall go"))
    assert spoken.cue is not None and not any(spoken.signals.values()) and rule_keeps(spoken.cue, spoken.signals)
    assert all(len(c.features) == len(FEATURES) for c in found.candidates)
    assert set(spoken.signals) == set(SIGNALS)


def test_keep_rule_off_keeps_what_it_dropped():
    found = _found(DIALOGUE)
    name = next(c for c in found.candidates if c.signals["name_given"])
    assert rule_keeps(name.cue, name.signals, frozenset({"name_given"}))


def test_keep_shipped_model_loads_and_decides_like_pdnc_on_plain_cases():
    keeper = shipped_keeper()
    assert keeper.booster.num_feature() == len(FEATURES)
    found = _found(DIALOGUE)
    kept = keeper.keeps(found.candidates)
    texts = [DIALOGUE[c.group[0].start : c.group[-1].end] for c, k in zip(found.candidates, kept) if k]
    assert any(t.startswith("I shall go") for t in texts)
    assert "Gladly," in texts
    assert not any(t.startswith("Dear Sir") for t in texts)
    assert detect_quotations(DIALOGUE, find_paragraphs(DIALOGUE)) == assemble_quotations(found, kept)


def test_keep_rules_mode_matches_the_rule_chain():
    found = _found(DIALOGUE)
    by_rules = assemble_quotations(found, [rule_keeps(c.cue, c.signals) for c in found.candidates])
    assert detect_quotations(DIALOGUE, find_paragraphs(DIALOGUE), keep="rules") == by_rules
    assert [DIALOGUE[s:e] for q in by_rules for s, e in q.spans] == [
        "I shall go to town to-morrow,", "Will you come with me?", "Gladly,",
    ]


def test_keep_unknown_decider_is_a_clear_error():
    with pytest.raises(ValueError, match="keep must be 'learned' or 'rules'"):
        detect_quotations(DIALOGUE, find_paragraphs(DIALOGUE), keep="vote")  # type: ignore[arg-type]


def test_keep_missing_model_says_how_to_rebuild(monkeypatch: pytest.MonkeyPatch, tmp_path):
    monkeypatch.setattr(keep, "MODEL_FILE", tmp_path / "absent.txt")
    shipped_keeper.cache_clear()
    try:
        with pytest.raises(InputFileError, match="quote_filter_cv.py --save"):
            shipped_keeper()
    finally:
        shipped_keeper.cache_clear()


def test_keep_model_with_other_features_is_refused():
    import lightgbm as lgb
    import numpy as np

    x = np.random.default_rng(0).random((60, 3))
    booster = lgb.train({"objective": "binary", "verbose": -1, "min_data_in_leaf": 5}, lgb.Dataset(x, label=(x[:, 0] > 0.5).astype(int)), 3)
    with pytest.raises(ValueError, match="3 features"):
        LearnedKeeper(booster.model_to_string())


def test_keep_narration_measures_equal_the_copied_narration():
    """The narration lengths are measured without copying the paragraph (linear time on a
    paragraph of many quotations) and equal what copying it gives."""
    import random

    rng = random.Random(41)
    pieces = ['"Go on," ', '"Stop." ', "he said ", "  ", "\n", "and then: ", '"Yes"', ", ", "She ran. ", " \n "]
    for _ in range(200):
        text = "".join(rng.choice(pieces) for _ in range(rng.randint(1, 14))).strip() + "\n"
        found = detect_candidates(text, find_paragraphs(text))
        for c in found.candidates:
            f = dict(zip(FEATURES, c.features, strict=True))
            first, last = c.group[0], c.group[-1]
            p, lp = found.paragraphs[first.para], found.paragraphs[last.para]
            before = text[p.start : first.open_mark if first.open_mark is not None else first.start].rstrip()
            after = text[last.close_mark + 1 if last.close_mark is not None else last.end : lp.end].strip()
            assert (f["narration_before"], f["narration_after"], f["closes_paragraph"]) == (len(before), len(after), float(not after)), text
            assert (f["before_colon"], f["before_comma"]) == (float(before[-1:] == ":"), float(before[-1:] == ",")), text
