"""Whole-corpus leave-novels-out evaluation (slow: run with -m slow)."""

from __future__ import annotations

import pytest

from litlens.services.attribution import evaluate_attribution

pytestmark = pytest.mark.slow


MIN_GOLD_ACCURACY = 0.75  # measured 0.769 (benchmarks/results/attribution.json); target 0.85 not met yet
MIN_GOLD_EXPLICIT = 0.95  # measured 0.965; target 0.97 not met yet
MIN_E2E_ACCURACY = 0.70  # measured 0.728; target 0.75 not met yet


def test_cv_gold_quotes_gold_characters_all_novels(pdnc_dir):
    result = evaluate_attribution(pdnc_dir, folds=5, details=True)
    assert len(result["novels"]) == 20
    pooled = result["pooled"]
    assert pooled["quotations"] > 20000
    assert pooled["accuracy"] >= MIN_GOLD_ACCURACY
    assert pooled["explicit"] >= MIN_GOLD_EXPLICIT
    # Calibration: the most confident decile is right far more often than the least confident.
    bins = [b for b in result["reliability"] if b["quotations"] >= 50]
    assert bins[-1]["accuracy"] > bins[0]["accuracy"] + 0.3


def test_cv_detected_quotes_discovered_characters_all_novels(pdnc_dir):
    result = evaluate_attribution(pdnc_dir, folds=5, quotes="detected", characters="discovered")
    assert result["pooled"]["accuracy"] >= MIN_E2E_ACCURACY
