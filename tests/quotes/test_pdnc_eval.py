"""Detection and typing measured against PDNC gold (needs ../shared; skips without it).

The default suite checks three short novels in a few seconds; ``-m slow`` runs all of them.
The numbers are regression floors a little under what the detector reaches (see
``benchmarks/eval_quotes_dev.py`` for the per-novel table).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from litlens.quotes.detect import detect_quotations
from litlens.quotes.evaluate import pool_scores, score_quotations
from litlens.quotes.pdnc import read_pdnc_quotations
from litlens.text.paragraphs import find_paragraphs

SHARED = Path(__file__).resolve().parents[2].parent / "shared"
PDNC = SHARED / "data" / "pdnc"


def _pdnc() -> Path:
    if not PDNC.is_dir():
        pytest.skip(f"needs the PDNC corpus at {PDNC} (../shared is absent in a plain clone)")
    return PDNC


def _score(novel_dir: Path) -> dict:
    text = (novel_dir / "novel_text.txt").read_text(encoding="utf-8")
    gold = read_pdnc_quotations(novel_dir / "quotation_info.csv", untyped="none")
    return score_quotations(gold, detect_quotations(text, find_paragraphs(text)))


def test_pdnc_eval_three_novels_detect_and_type_well():
    root = _pdnc()
    scores = {name: _score(root / name) for name in ("DaisyMiller", "PrideAndPrejudice", "WhereAngelsFearToTread")}
    for name, s in scores.items():
        assert s["f1"] >= 0.97, (name, s)
        assert s["type_accuracy"] >= 0.93, (name, s)
    pooled = pool_scores(scores.values())
    assert pooled["f1"] >= 0.975, pooled
    assert pooled["type_accuracy"] >= 0.95, pooled


@pytest.mark.slow
def test_pdnc_eval_all_novels():
    root = _pdnc()
    novels = sorted(d for d in root.iterdir() if (d / "quotation_info.csv").is_file())
    scores = {d.name: _score(d) for d in novels}
    for name, s in scores.items():
        assert s["f1"] >= 0.88 and s["type_accuracy"] >= 0.85, (name, s)
    pooled = pool_scores(scores.values())
    assert pooled["f1"] >= 0.955, pooled
    assert pooled["type_accuracy"] >= 0.94, pooled
