"""Matching and scoring of quotations against gold, on hand-computed examples."""

from __future__ import annotations

import pytest

from litlens.model import Quotation
from litlens.quotes.evaluate import (
    match_quotations,
    pool_scores,
    quotation_iou,
    score_quotations,
)


def q(*spans: tuple[int, int], type: str = "implicit") -> Quotation:
    return Quotation(spans=list(spans), type=type)  # type: ignore[arg-type]


def test_iou_uses_the_union_of_sub_spans():
    # gold covers 0-10 and 20-30 (20 chars); predicted covers 0-30 (30 chars): IoU 20/30
    assert quotation_iou(q((0, 10), (20, 30)), q((0, 30))) == pytest.approx(2 / 3)
    assert quotation_iou(q((0, 10)), q((10, 20))) == 0.0
    assert quotation_iou(q((0, 10)), q((0, 10))) == 1.0
    # overlapping sub-spans are not counted twice
    assert quotation_iou(q((0, 10), (5, 15)), q((0, 15))) == 1.0


def test_match_is_one_to_one_greedy_by_iou():
    gold = [q((0, 10)), q((12, 20))]
    # predicted 0 covers both gold quotations (IoU 10/20 = 0.5 with gold 0, 8/20 with gold 1);
    # predicted 1 matches gold 1 exactly.
    predicted = [q((0, 20)), q((12, 20))]
    assert match_quotations(gold, predicted) == [(0, 0, 0.5), (1, 1, 1.0)]


def test_match_below_half_is_no_match():
    assert match_quotations([q((0, 10))], [q((0, 4))]) == []  # IoU 0.4
    assert match_quotations([q((0, 10))], [q((0, 5))]) == [(0, 0, 0.5)]


def test_match_a_prediction_is_used_once():
    gold = [q((0, 10)), q((0, 10))]
    assert len(match_quotations(gold, [q((0, 10))])) == 1


def test_score_hand_computed_example():
    gold = [
        q((0, 10), type="explicit"),
        q((20, 30), (40, 50), type="anaphoric"),  # interrupted speech
        q((60, 70), type="implicit"),
        q((80, 90), type="implicit"),  # missed
    ]
    predicted = [
        q((0, 10), type="explicit"),  # match, right type
        q((20, 30), (40, 50), type="implicit"),  # match, wrong type
        q((61, 70), type="implicit"),  # IoU 0.9, right type
        q((100, 110)),  # false positive
        q((120, 130)),  # false positive
    ]
    s = score_quotations(gold, predicted)
    assert (s["quotations"], s["predicted"], s["matched"]) == (4, 5, 3)
    assert s["precision"] == pytest.approx(3 / 5)
    assert s["recall"] == pytest.approx(3 / 4)
    assert s["f1"] == pytest.approx(2 * 0.6 * 0.75 / 1.35)
    assert s["type_accuracy"] == pytest.approx(2 / 3)
    assert s["type_confusion"]["anaphoric"]["implicit"] == 1
    assert s["type_confusion"]["explicit"]["explicit"] == 1
    assert s["type_confusion"]["implicit"]["implicit"] == 1
    assert sum(n for row in s["type_confusion"].values() for n in row.values()) == 3


def test_score_gold_without_type_counts_for_detection_only():
    gold = [q((0, 10)), q((20, 30))]
    gold[1].type = None  # type: ignore[assignment]  # PDNC rows with an empty quoteType
    s = score_quotations(gold, [q((0, 10)), q((20, 30), type="explicit")])
    assert s["matched"] == 2 and s["recall"] == 1.0
    assert s["typed"] == 1 and s["type_accuracy"] == 1.0


def test_score_empty_inputs():
    assert score_quotations([], [])["f1"] == 1.0
    s = score_quotations([q((0, 5))], [])
    assert (s["precision"], s["recall"], s["f1"]) == (1.0, 0.0, 0.0)
    s = score_quotations([], [q((0, 5))])
    assert (s["precision"], s["recall"], s["f1"]) == (0.0, 1.0, 0.0)


def test_pool_scores_sums_counts_not_fractions():
    a = score_quotations([q((0, 10), type="explicit")], [q((0, 10), type="explicit")])  # 1/1
    b = score_quotations(
        [q((0, 10)), q((20, 30)), q((40, 50))],
        [q((0, 10), type="anaphoric"), q((60, 70))],
    )  # matched 1 of 3 gold, 1 of 2 predicted
    pooled = pool_scores([a, b])
    assert (pooled["quotations"], pooled["predicted"], pooled["matched"]) == (4, 3, 2)
    assert pooled["precision"] == pytest.approx(2 / 3)
    assert pooled["recall"] == pytest.approx(2 / 4)
    assert pooled["type_accuracy"] == pytest.approx(1 / 2)
    assert pooled["type_confusion"]["implicit"]["anaphoric"] == 1
    assert pool_scores([])["f1"] == 1.0
