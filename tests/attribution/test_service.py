"""Attributing a stored book with the shipped CPU model: answers, export, corrections, bad input."""

from __future__ import annotations

import json

import pytest

from litlens.errors import Cancelled, InputFileError, NoCharactersError
from litlens.services import editing
from litlens.services.attribution import attribute_book, default_model_path, review_items
from litlens.services.books import export_quotations
from litlens.store.attribution import read_attributions
from litlens.store.project import open_project


def test_shipped_model_exists_and_names_its_training_novels():
    from litlens.attribution.cpu import load_model

    ranker = load_model(default_model_path())
    assert len(ranker.trained_on) >= 10
    assert "PrideAndPrejudice" in ranker.trained_on


def test_attribute_book_fills_every_speaker_and_the_export(detected, tmp_path):
    seen = []
    summary = attribute_book(detected, progress=lambda f, m: seen.append(f))
    assert summary["quotations"] > 1000
    assert summary["attributed"] == summary["quotations"] == summary["shown"]
    assert seen[-1] == 1.0 and seen == sorted(seen)
    out = tmp_path / "q.jsonl"
    export_quotations(detected, out)
    records = [json.loads(line) for line in out.read_text().splitlines()]
    assert all(r["speaker"] and 0.0 <= r["speaker_confidence"] <= 1.0 for r in records)
    with open_project(detected) as project:
        book_id = project.books()[0].id
        counts = {c.name: c.quote_count for _, c in project.characters(book_id)}
        stored = read_attributions(project, book_id, "cpu")
    assert len(stored) == summary["quotations"]
    assert sum(counts.values()) == summary["quotations"]  # character quote counts follow the speakers
    # Elizabeth speaks most in Pride and Prejudice.
    assert max(counts, key=counts.get).startswith("Elizabeth")
    assert any(a.addressees for a in stored)


def test_review_items_put_the_least_confident_first_and_corrections_last(detected):
    attribute_book(detected)
    items = review_items(detected)
    confs = [i.confidence for i in items if i.method]
    assert confs == sorted(confs)
    with open_project(detected) as project:
        book_id = project.books()[0].id
        target = items[0].quotation_id
        name = project.characters(book_id)[1][1].name
        editing.set_quotation_speaker(project, target, name)
    items = review_items(detected)
    assert items[-1].quotation_id == target and items[-1].method is None
    attribute_book(detected)  # a re-run keeps the correction
    with open_project(detected) as project:
        assert dict(project.quotations(project.books()[0].id))[target].speaker == name


def test_merging_characters_changes_the_candidates(detected):
    with open_project(detected) as project:
        book_id = project.books()[0].id
        listed = project.characters(book_id)
        chars = {c.name: cid for cid, c in listed}
        jane = next(c.name for _, c in listed if "Jane" in c.aliases)
        lizzy = next(c.name for _, c in listed if "Elizabeth" in c.aliases)
        editing.merge_characters(project, book_id, chars[jane], chars[lizzy])
    attribute_book(detected)
    with open_project(detected) as project:
        speakers = {q.speaker for _, q in project.quotations(project.books()[0].id)}
    assert jane not in speakers and lizzy in speakers


def test_cancelled_attribution_stores_nothing(detected):
    calls = []

    def cancelled() -> bool:
        calls.append(1)
        return len(calls) > 1

    with pytest.raises(Cancelled):
        attribute_book(detected, cancelled=cancelled)
    with open_project(detected) as project:
        book_id = project.books()[0].id
        assert read_attributions(project, book_id) == []
        assert all(q.speaker is None for _, q in project.quotations(book_id))


def test_book_without_characters_is_refused_and_nothing_changes(detected):
    attribute_book(detected)
    with open_project(detected) as project:
        book_id = project.books()[0].id
        before = [(q.speaker, q.speaker_confidence) for _, q in project.quotations(book_id)]
        project.replace_characters(book_id, [])
    with pytest.raises(NoCharactersError, match="no characters"):
        attribute_book(detected)
    with open_project(detected) as project:
        assert [(q.speaker, q.speaker_confidence) for _, q in project.quotations(book_id)] == before


def test_missing_or_bad_model_file_is_a_clear_error(detected, tmp_path):
    with pytest.raises(InputFileError, match="no such attributor model"):
        attribute_book(detected, model_path=tmp_path / "none.zip")
    bad = tmp_path / "bad.zip"
    bad.write_text("not a model")
    with pytest.raises(InputFileError, match="not a LitLens attributor model: it is not a ZIP archive.*retrain it"):
        attribute_book(detected, model_path=bad)
    # Other malformed and crafted model files: tests/attribution/test_model_file.py


def test_cli_attribute_prints_a_summary(detected):
    import subprocess
    import sys

    out = subprocess.run([sys.executable, "-m", "litlens.cli", "attribute", "-p", str(detected), "--method", "cpu"],
                         capture_output=True, text=True, check=True)
    assert "quotations attributed" in out.stdout
    bad = subprocess.run([sys.executable, "-m", "litlens.cli", "attribute", "-p", str(detected), "--attributor", "/nonexistent.joblib"],
                         capture_output=True, text=True)
    assert bad.returncode != 0 and bad.stderr.startswith("litlens: error:") and "no such attributor model" in bad.stderr


@pytest.mark.parametrize(("quotes", "characters", "named"), [("predicted", "gold", "--quotes"), ("gold", "found", "--characters")])
def test_evaluations_refuse_an_unknown_setting_before_reading_anything(tmp_path, quotes, characters, named):
    from litlens.errors import LitLensError
    from litlens.services.attribution import load_novel
    from litlens.services.llm_attribution import evaluate_llm

    with pytest.raises(LitLensError, match=named):
        load_novel(tmp_path / "no-such-novel", quotes=quotes, characters=characters)
    with pytest.raises(LitLensError, match=named):
        evaluate_llm(tmp_path / "no-such-corpus", quotes=quotes, characters=characters)


def test_merge_suggestions_on_the_sample_never_pair_a_man_and_a_woman(detected_pp):
    from litlens.model import Character
    from litlens.quotes.characters import _different_first_names, _first_names
    from litlens.services.books import list_characters, merge_suggestions

    listed = list_characters(detected_pp)
    gender = {c["id"]: c["gender"] for c in listed}
    first = dict(zip((c["id"] for c in listed),
                     _first_names([Character(c["name"], c["aliases"], c["gender"]) for c in listed])))
    suggestions = merge_suggestions(detected_pp)
    assert all(s["probability"] >= 0.05 for s in suggestions)
    assert [s["probability"] for s in suggestions] == sorted((s["probability"] for s in suggestions), reverse=True)
    for s in suggestions:
        assert {gender[s["keep_id"]], gender[s["fold_id"]]} != {"male", "female"}, s
        assert not _different_first_names(first[s["keep_id"]], first[s["fold_id"]]), s
