"""attribute_book_llm and evaluate_llm with the real packaged SmolLM2 model."""

from __future__ import annotations

from pathlib import Path

import pytest

from litlens.errors import LLMModelNotFoundError, NoCharactersError
from litlens.services.books import ingest_file
from litlens.services.llm_attribution import attribute_book_llm, evaluate_llm
from litlens.store.attribution import read_attributions
from litlens.store.llm_cache import cache_rows
from litlens.store.project import open_project

STORY = """CHAPTER I

Elizabeth Bennet came down to breakfast late, and found Mr. Darcy already at the table.

"You are early, Mr. Darcy," said Elizabeth.

"I am always early," replied Darcy, without looking up from his letter.

Elizabeth laughed and poured the tea. "Then you must find the rest of us very idle."

"Not idle," said Mr. Darcy. "Only slow."

Jane Bennet came in a moment later. "Good morning, Lizzy," said Jane.
"""

NAMELESS = """CHAPTER I

It was raining again when they reached the house.

"We are late," she said.

"We are always late," he answered, and shut the door behind them.
"""


@pytest.fixture
def story_project(tmp_path: Path) -> Path:
    source = tmp_path / "story.txt"
    source.write_text(STORY, encoding="utf-8")
    project = tmp_path / "story.litlens"
    ingest_file(project, source)
    return project


def test_attribute_book_llm_saves_attributions_and_a_rerun_is_free(story_project: Path, smol) -> None:
    messages: list[tuple[float, str]] = []
    summary = attribute_book_llm(story_project, backend=smol, progress=lambda f, m: messages.append((f, m)))
    assert summary["method"] == "llm:SmolLM2-135M-Instruct"
    assert summary["quotations"] >= 5 and summary["backend_requests"] >= 1
    assert summary["saved"]["saved"] == summary["quotations"]
    assert messages[-1][0] == 1.0 and all(0.0 <= f <= 1.0 for f, _ in messages)
    with open_project(story_project) as project:
        bid = project.books()[0].id
        stored = read_attributions(project, bid, summary["method"])
        ids = {str(cid) for cid, _ in project.characters(bid)}
        assert len(stored) == summary["quotations"]
        assert all(a.speaker is None or a.speaker in ids for a in stored)
        assert all(0.0 <= a.confidence <= 1.0 for a in stored)
        rows = cache_rows(project, book_id=bid)
        assert len(rows) == summary["backend_requests"]
    again = attribute_book_llm(story_project, backend=smol)
    assert again["backend_requests"] == 0 and again["chunks_cached"] == again["chunks"]
    with open_project(story_project) as project:
        assert read_attributions(project, bid, summary["method"]) == stored


def test_attribute_book_llm_with_no_characters_is_a_clear_error(tmp_path: Path, smol) -> None:
    source = tmp_path / "nameless.txt"
    source.write_text(NAMELESS, encoding="utf-8")
    project_path = tmp_path / "nameless.litlens"
    ingest_file(project_path, source)
    with open_project(project_path) as project:
        bid = project.books()[0].id
        assert project.characters(bid) == []
    with pytest.raises(NoCharactersError, match="no characters to attribute"):
        attribute_book_llm(project_path, backend=smol)
    with open_project(project_path) as project:
        assert read_attributions(project, bid) == []


def test_attribute_book_llm_bad_model_path_changes_nothing(story_project: Path, tmp_path: Path) -> None:
    with pytest.raises(LLMModelNotFoundError):
        attribute_book_llm(story_project, backend="transformers", model=str(tmp_path / "missing-model"))
    with open_project(story_project) as project:
        bid = project.books()[0].id
        assert read_attributions(project, bid) == []


def test_evaluate_llm_on_a_pdnc_novel_excerpt(tmp_path: Path, smol, pdnc_dir: Path) -> None:
    """The whole evaluation path on a tiny PDNC-shaped folder cut from Daisy Miller."""
    import csv

    src = pdnc_dir / "DaisyMiller"
    text = (src / "novel_text.txt").read_text(encoding="utf-8")
    with open(src / "quotation_info.csv", newline="", encoding="utf-8") as fh:
        reader = csv.DictReader(fh)
        fields = reader.fieldnames
        rows = [r for r, _ in zip(reader, range(6))]
    end = max(int(x) for r in rows for x in r["quoteByteSpans"].replace("[", " ").replace("]", " ").replace(",", " ").split()) + 10
    novel = tmp_path / "pdnc" / "DaisyExcerpt"
    novel.mkdir(parents=True)
    (novel / "novel_text.txt").write_text(text[:end], encoding="utf-8")
    with open(novel / "quotation_info.csv", "w", newline="", encoding="utf-8") as fh:
        writer = csv.DictWriter(fh, fieldnames=fields)
        writer.writeheader()
        writer.writerows(rows)
    (novel / "character_info.csv").write_bytes((src / "character_info.csv").read_bytes())
    result = evaluate_llm(tmp_path / "pdnc", backend=smol, cache_path=tmp_path / "cache.litlens")
    scores = result["novels"]["DaisyExcerpt"]
    assert set(scores) == {"accuracy", "explicit", "other", "anaphoric", "implicit", "quotations"}
    assert scores["quotations"] == 0  # nobody speaks 10 times in six quotations
    assert result["pooled"]["quotations"] == 0
    assert result["method"] == "llm:SmolLM2-135M-Instruct" and result["run"]["DaisyExcerpt"]["quotations"] == 6
