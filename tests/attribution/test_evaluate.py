"""Seed-003 scoring: counted speakers, alias-mapped gold speakers, detected matching, discovered mapping."""

from __future__ import annotations

from litlens.attribution.evaluate import (
    gold_key,
    map_discovered_to_gold,
    predictions_for_gold,
    score_attributions,
)
from litlens.model import Character, Quotation

CHARS = [
    Character("Miss Honeychurch", ["Miss Honeychurch", "Lucy"], "female", source_id="0"),
    Character("Mr. Beebe", ["Mr. Beebe"], "male", source_id="1"),
    Character("Minnie", ["Minnie"], "female", source_id="2"),
]


def _gold() -> list[Quotation]:
    out = []
    for i in range(30):
        speaker = "Lucy" if i % 2 == 0 else "Mr. Beebe"  # PDNC sometimes names the speaker by an alias
        qtype = ("explicit", "anaphoric", "implicit")[i % 3]
        out.append(Quotation(spans=[(i * 100, i * 100 + 50)], type=qtype, speaker=speaker, source_id=f"Q{i}"))
    out.append(Quotation(spans=[(5000, 5050)], type="explicit", speaker="Minnie", source_id="Q30"))  # < 10 quotations
    return out


def test_score_attributions_counts_only_frequent_speakers_and_maps_aliases():
    gold = _gold()
    predicted = {gold_key(q, i): ("Miss Honeychurch" if q.speaker == "Lucy" else "Mr. Beebe") for i, q in enumerate(gold)}
    predicted["Q30"] = None  # Minnie is not scored at all
    scores = score_attributions(gold, predicted, CHARS)
    assert scores == {"accuracy": 1.0, "explicit": 1.0, "other": 1.0, "anaphoric": 1.0, "implicit": 1.0, "quotations": 30}


def test_score_attributions_wrong_and_unknown_answers_count_as_wrong():
    gold = _gold()
    predicted = {gold_key(q, i): "Lucy" for i, q in enumerate(gold)}  # by alias: right for half
    predicted["Q0"] = "Lucinda"  # no alias: wrong, no fuzzy rescue
    scores = score_attributions(gold, predicted, CHARS)
    assert scores["quotations"] == 30
    assert scores["accuracy"] == round(14 / 30, 4)
    # answers may also be character ids
    by_id = {gold_key(q, i): ("0" if q.speaker == "Lucy" else "1") for i, q in enumerate(gold)}
    assert score_attributions(gold, by_id, CHARS)["accuracy"] == 1.0


def test_predictions_for_gold_unmatched_gold_quotations_get_no_answer():
    gold = _gold()[:3]
    detected = [Quotation(spans=[(0, 50)]), Quotation(spans=[(210, 240)])]  # matches Q0; IoU 0.6 with Q2
    answers = predictions_for_gold(gold, detected, ["Lucy", "Mr. Beebe"])
    assert answers == {"Q0": "Lucy", "Q1": None, "Q2": "Mr. Beebe"}


def test_map_discovered_to_gold_by_shared_aliases():
    discovered = [
        Character("Lucy", ["Lucy", "Miss Honeychurch"]),
        Character("Mr Beebe", ["Mr Beebe", "Beebe"]),  # periods and case do not matter
        Character("Cecil", ["Cecil"]),  # nobody in the gold list
    ]
    assert map_discovered_to_gold(discovered, CHARS) == [0, 1, None]


def test_map_discovered_to_gold_ignores_a_leading_article():
    gold = [Character("Hare", ["Hare", "March Hare"]), Character("The Invisible Man", ["The Invisible Man", "Griffin"])]
    discovered = [Character("the March Hare", ["the March Hare"]), Character("Invisible Man", ["Invisible Man"])]
    assert map_discovered_to_gold(discovered, gold) == [0, 1]


def test_map_discovered_to_gold_unresolved_tie_maps_to_nobody():
    gold = [Character("Jane Bennet", ["Jane Bennet", "Miss Bennet"]), Character("Elizabeth Bennet", ["Elizabeth Bennet", "Miss Bennet"])]
    assert map_discovered_to_gold([Character("Miss Bennet", ["Miss Bennet"])], gold) == [None]
