"""Fixtures for annotation-study tests: small proxy and Likert studies in a temporary project."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import FIXTURES

STUDY_FIXTURES = FIXTURES / "studies"
BEIR_MINI = STUDY_FIXTURES / "beir_mini"
LQA_MINI = STUDY_FIXTURES / "literaryqa_mini.jsonl"
ANSWERS = STUDY_FIXTURES / "answers.csv"


@pytest.fixture
def proxy_project(tmp_path: Path) -> Path:
    from litlens.services.studies import assign, create_proxy_study

    project = tmp_path / "study.litlens"
    create_proxy_study(project, beir=BEIR_MINI, distractors="bm25", per_item=3, name="proxy")
    assign(project, "proxy", ["A", "B", "C"], overlap=3)
    return project


@pytest.fixture
def likert_project(tmp_path: Path) -> Path:
    from litlens.services.studies import assign, create_likert_study

    project = tmp_path / "likert.litlens"
    create_likert_study(project, literaryqa=LQA_MINI, answers=ANSWERS, mode="reference", name="likert")
    assign(project, "likert", ["A", "B"], overlap=2)
    return project
