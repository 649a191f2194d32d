"""Leave-novels-out evaluation on a few PDNC novels (the whole corpus is a slow test / benchmark)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from litlens.errors import InputFileError, LitLensError
from litlens.services.attribution import evaluate_attribution

SMALL = ["DaisyMiller", "TheAwakening", "AlicesAdventuresInWonderland", "WhereAngelsFearToTread"]
KEYS = {"accuracy", "explicit", "other", "anaphoric", "implicit", "quotations"}


@pytest.fixture(scope="module")
def small_pdnc(tmp_path_factory) -> Path:
    from tests.conftest import require_shared

    root = require_shared()
    folder = tmp_path_factory.mktemp("pdnc4")
    for name in SMALL:
        (folder / name).symlink_to(root / name, target_is_directory=True)
    return folder


def test_cli_eval_attribution_scores_a_novel_it_did_not_train_on(small_pdnc):
    # One held-out novel, trained on the three others: the same leave-novels-out path as --folds,
    # with one training instead of two (the whole 5-fold CV is test_cv_slow.py, -m slow).
    out = subprocess.run(
        [sys.executable, "-m", "litlens.cli", "eval", "attribution", "--pdnc", str(small_pdnc), "--method", "cpu",
         "--quotes", "gold", "--characters", "gold", "--novels", "TheAwakening", "--json"],
        capture_output=True, text=True, check=True,
    )
    result = json.loads(out.stdout)
    assert set(result) == {"novels", "pooled"}
    assert set(result["novels"]) == {"TheAwakening"}
    for scores in [*result["novels"].values(), result["pooled"]]:
        assert set(scores) == KEYS
        assert all(0.0 <= scores[k] <= 1.0 for k in KEYS - {"quotations"})
    # Trained on three small novels only, it is already well above a most-frequent-speaker guess.
    assert result["pooled"]["accuracy"] >= 0.7
    assert result["pooled"]["explicit"] >= 0.9
    assert result["pooled"]["quotations"] == result["novels"]["TheAwakening"]["quotations"] > 400


@pytest.mark.slow  # trains on three novels and detects a fourth end to end: minutes on 2 cores
def test_eval_detected_quotes_discovered_characters_one_novel(small_pdnc):
    result = evaluate_attribution(small_pdnc, quotes="detected", characters="discovered", novels="DaisyMiller", details=True)
    scores = result["novels"]["DaisyMiller"]
    assert scores["quotations"] > 400  # unmatched gold quotations are still counted (as wrong)
    assert scores["accuracy"] >= 0.6
    assert result["addressees"]["quotations"] > 0
    assert len(result["reliability"]) == 10
    # the character steps, too, learned from the three other novels only
    assert result["character_models"] == [sorted(set(SMALL) - {"DaisyMiller"})]


def test_eval_refuses_unknown_novels_and_too_few_to_train(small_pdnc, tmp_path):
    with pytest.raises(InputFileError, match="no PDNC novel named Nope"):
        evaluate_attribution(small_pdnc, novels="Nope")
    one = tmp_path / "one"
    one.mkdir()
    (one / "DaisyMiller").symlink_to(small_pdnc / "DaisyMiller", target_is_directory=True)
    with pytest.raises(LitLensError, match="at least two other"):
        evaluate_attribution(one)


def test_cli_train_attributor_writes_a_usable_model(small_pdnc, tmp_path):
    from litlens.attribution.cpu import load_model

    out = tmp_path / "m.zip"
    subprocess.run(
        [sys.executable, "-m", "litlens.cli", "train", "attributor", "--pdnc", str(small_pdnc),
         "--novels", "DaisyMiller,TheAwakening", "-o", str(out)],
        capture_output=True, text=True, check=True,
    )
    assert load_model(out).trained_on == ["DaisyMiller", "TheAwakening"]


def test_load_novel_reuses_a_given_nlp_pass_and_the_character_model_it_is_given(small_pdnc, monkeypatch):
    # The fold-by-fold CV (benchmarks/attribution_folds.py) passes each fold's character model
    # and a cached spaCy pass; neither may be replaced behind its back.
    from litlens.services import attribution as service
    from litlens.text import build_structure
    from litlens.text.ingest import read_book

    novel_dir = small_pdnc / "DaisyMiller"
    structure = build_structure(read_book(novel_dir / "novel_text.txt").text)

    def no_second_pass(text):
        raise AssertionError("the NLP pass ran again")

    monkeypatch.setattr(service, "build_structure", no_second_pass)
    rules = service.load_novel(novel_dir, quotes="detected", characters="discovered", character_model=None,
                               structure=structure)
    learned = service.load_novel(novel_dir, quotes="detected", characters="discovered", structure=structure)
    assert rules.quotations == learned.quotations and rules.quotations
    # the learned steps only join entries and leave some out: never more entries than the rules
    assert 0 < len(learned.characters) < len(rules.characters)
    assert {"Winterbourne"} <= {c.name for c in learned.characters}
    # quotations detected earlier on that pass are not detected again
    monkeypatch.setattr(service, "detect_quotations", lambda *a, **k: (_ for _ in ()).throw(AssertionError("detected again")))
    again = service.load_novel(novel_dir, quotes="detected", characters="discovered", character_model=None,
                               structure=structure, detected=rules.quotations)
    assert again.quotations == rules.quotations
    assert [c.name for c in again.characters] == [c.name for c in rules.characters]
