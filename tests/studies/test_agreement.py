"""Agreement statistics against the reference libraries (statsmodels, scikit-learn, krippendorff)."""

from __future__ import annotations

import math
import warnings

import krippendorff
import numpy as np
import pytest
from sklearn.metrics import cohen_kappa_score
from statsmodels.stats.inter_rater import fleiss_kappa as sm_fleiss

from litlens.studies import agreement as ag

TOL = 1e-9
pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning", "ignore::sklearn.exceptions.UndefinedMetricWarning")


def _table(codes: np.ndarray, k: int) -> ag.RatingTable:
    n, a = codes.shape
    return ag.RatingTable(tuple(f"i{i}" for i in range(n)), tuple("ABCDEFG"[:a]), tuple(range(1, k + 1)), codes)


def _random_tables(seed: int, count: int):
    rng = np.random.default_rng(seed)
    for _ in range(count):
        n, a, k = int(rng.integers(4, 80)), int(rng.integers(2, 7)), int(rng.integers(2, 6))
        truth = rng.integers(0, k, n)
        noise = rng.random()
        codes = np.where(rng.random((n, a)) < noise, rng.integers(0, k, (n, a)), truth[:, None])
        yield codes, k, rng


def _reference_alpha(codes: np.ndarray, k: int, level: str) -> float:
    data = np.where(codes >= 0, codes + 1, np.nan).T.astype(float)
    try:
        return krippendorff.alpha(reliability_data=data, level_of_measurement=level, value_domain=list(range(1, k + 1)))
    except ValueError:  # the reference raises when only one value occurs
        return math.nan


def _same(ours: float, ref: float) -> float:
    """Absolute difference, with NaN == NaN counting as 0 (both undefined)."""
    if math.isnan(ref) or math.isnan(ours):
        assert math.isnan(ref) and math.isnan(ours), (ours, ref)
        return 0.0
    return abs(ours - ref)


def test_fleiss_kappa_matches_statsmodels_on_random_data():
    worst = 0.0
    for codes, k, _ in _random_tables(1, 150):
        t = _table(codes, k)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            worst = max(worst, _same(ag.fleiss_kappa(t), sm_fleiss(t.counts())))
    assert worst < TOL


@pytest.mark.parametrize("weights", [None, "linear", "quadratic"])
def test_cohen_kappa_matches_sklearn(weights):
    worst = 0.0
    for codes, k, _ in _random_tables(2, 150):
        t = _table(codes, k)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            ref = cohen_kappa_score(codes[:, 0], codes[:, 1], labels=list(range(k)), weights=weights)
        worst = max(worst, _same(ag.cohen_kappa(t, "A", "B", weights), ref))
    assert worst < TOL


@pytest.mark.parametrize("level", ["nominal", "ordinal", "interval"])
def test_krippendorff_alpha_matches_reference_with_missing_ratings(level):
    worst = 0.0
    for codes, k, rng in _random_tables(3, 150):
        codes = codes.copy()
        codes[rng.random(codes.shape) < 0.25] = -1
        worst = max(worst, _same(ag.krippendorff_alpha(_table(codes, k), level), _reference_alpha(codes, k, level)))
    assert worst < TOL


def test_all_agree_gives_kappa_one_and_shares():
    codes = np.array([[0, 0, 0], [1, 1, 1], [2, 2, 2], [0, 0, 0]])
    t = _table(codes, 3)
    assert ag.fleiss_kappa(t) == pytest.approx(sm_fleiss(t.counts())) == pytest.approx(1.0)
    assert ag.krippendorff_alpha(t) == pytest.approx(1.0)
    assert ag.agreement_shares(t) == (1.0, 0.0)


def test_one_category_only_is_nan_like_the_references():
    codes = np.zeros((6, 3), dtype=int)
    t = _table(codes, 3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        assert math.isnan(sm_fleiss(t.counts()))
        assert math.isnan(cohen_kappa_score(codes[:, 0], codes[:, 1], labels=[0, 1, 2]))
    assert math.isnan(_reference_alpha(codes, 3, "nominal"))
    assert math.isnan(ag.fleiss_kappa(t))
    assert math.isnan(ag.cohen_kappa(t, "A", "B"))
    assert math.isnan(ag.krippendorff_alpha(t))
    summary = ag.summarize(t, n_boot=50)
    assert summary.as_json()["fleiss_kappa"] is None  # JSON null, never NaN
    assert summary.all_agree.value == 1.0


def test_two_raters_fleiss_and_alpha_against_references():
    rng = np.random.default_rng(7)
    codes = rng.integers(0, 4, (40, 2))
    codes[:25, 1] = codes[:25, 0]
    t = _table(codes, 4)
    assert ag.fleiss_kappa(t) == pytest.approx(sm_fleiss(t.counts()), abs=TOL)
    assert ag.krippendorff_alpha(t) == pytest.approx(_reference_alpha(codes, 4, "nominal"), abs=TOL)


def test_fleiss_with_unequal_raters_uses_the_generalisation():
    # Item 1: 3 raters all "a"; item 2: 2 raters split; item 3: one rating (left out).
    codes = np.array([[0, 0, 0], [0, 1, -1], [1, -1, -1]])
    t = _table(codes, 2)
    # P_i = 1, 0; P̄ = 0.5; p = (4/5, 1/5); Pe = 0.68 → κ = (0.5 − 0.68) / 0.32
    assert ag.fleiss_kappa(t) == pytest.approx((0.5 - 0.68) / 0.32)
    # With equal raters on the used items it is plain Fleiss.
    full = _table(np.array([[0, 0, 0], [0, 1, 1], [1, 1, 0]]), 2)
    assert ag.fleiss_kappa(full) == pytest.approx(sm_fleiss(full.counts()))


def test_none_agree_and_majority_accuracy():
    codes = np.array([[0, 1, 2], [0, 0, 1], [2, 2, 2], [1, 0, -1]])
    t = _table(codes, 3)
    all_agree, none_agree = ag.agreement_shares(t)
    assert (all_agree, none_agree) == (0.25, 0.5)
    gold = {"i0": 1, "i1": 1, "i2": 3, "i3": 2}
    assert ag.accuracies(t, gold) == {"A": 1.0, "B": 0.5, "C": pytest.approx(1 / 3)}
    # majority: i0 no (1 of 3), i1 yes (2 of 3), i2 yes, i3 no (1 of 2 is not more than half)
    assert ag.majority_accuracy(t, gold) == 0.5


def test_bootstrap_intervals_are_seeded_and_cover_the_estimate():
    codes, k, _ = next(_random_tables(11, 1))
    t = _table(codes, k)
    one = ag.summarize(t, n_boot=300, seed=4, gold={"i0": 1})
    two = ag.summarize(t, n_boot=300, seed=4, gold={"i0": 1})
    assert one.as_detailed_json() == two.as_detailed_json()
    est = one.fleiss_kappa
    assert est.low <= est.value <= est.high
    assert one.fleiss_kappa.value == pytest.approx(ag.fleiss_kappa(t))
    assert one.krippendorff_alpha.value == pytest.approx(ag.krippendorff_alpha(t))


def test_confusion_matrix_counts_pairs():
    t = _table(np.array([[0, 0], [0, 1], [1, 1], [2, -1]]), 3)
    assert ag.confusion_matrix(t, "A", "B").tolist() == [[1, 1, 0], [0, 1, 0], [0, 0, 0]]


def test_fleiss_over_time_ends_at_the_final_kappa():
    codes, k, _ = next(_random_tables(5, 1))
    t = _table(codes, k)
    order = np.array([(i, j) for j in range(codes.shape[1]) for i in range(codes.shape[0])])
    history = ag.fleiss_over_time(t, order, points=10)
    assert history[-1][0] == len(order)
    assert history[-1][1] == pytest.approx(ag.fleiss_kappa(t))
