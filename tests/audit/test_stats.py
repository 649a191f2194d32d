"""Wilson interval and the Min-K% mean of the lowest ⌈k·n⌉ values."""

from __future__ import annotations

import pytest

from litlens.audit import wilson_interval
from litlens.audit.logprobs import TokenScores
from litlens.audit.mink import lowest_mean, min_k_of, shuffled_words


@pytest.mark.parametrize("hits,n", [(0, 20), (1, 20), (7, 20), (20, 20), (3, 100), (55, 100)])
def test_wilson_interval_matches_statsmodels(hits, n):
    from statsmodels.stats.proportion import proportion_confint

    lo, hi = proportion_confint(hits, n, alpha=0.05, method="wilson")
    got = wilson_interval(hits, n)
    assert got == pytest.approx((lo, hi), abs=1e-6)


def test_wilson_interval_of_no_trials_is_zero():
    assert wilson_interval(0, 0) == (0.0, 0.0)


@pytest.mark.parametrize(
    "values,k,expected",
    [
        ([-1.0, -2.0, -3.0, -4.0, -5.0], 0.2, -5.0),  # ceil(1.0) = 1 value
        ([-1.0, -2.0, -3.0, -4.0, -5.0, -6.0], 0.2, -5.5),  # ceil(1.2) = 2 values
        ([-1.0, -2.0, -3.0], 1.0, -2.0),
        ([-0.5], 0.01, -0.5),  # at least one value
    ],
)
def test_lowest_mean_takes_the_ceiling_of_k_n(values, k, expected):
    assert lowest_mean(values, k) == pytest.approx(expected)


def test_min_k_plus_plus_standardises_each_token():
    scores = TokenScores([-1.0, -4.0, -2.0], [-2.0, -2.0, -3.0], [1.0, 2.0, 0.5])
    result = min_k_of(scores, k=0.3)  # ceil(0.9) = 1 value
    assert result.tokens == 3
    assert result.min_k == pytest.approx(-4.0)
    assert result.min_k_plus_plus == pytest.approx(-1.0)  # (-4 - -2) / 2, the lowest of 1, -1, 2


def test_min_k_plus_plus_is_none_without_a_distribution():
    assert min_k_of(TokenScores([-1.0, -2.0], None, None)).min_k_plus_plus is None


def test_shuffled_control_keeps_the_words_and_is_seeded():
    text = "one two three four five six seven eight nine ten"
    a, b = shuffled_words(text, 3), shuffled_words(text, 3)
    assert a == b and a != text
    assert sorted(a.split()) == sorted(text.split())
