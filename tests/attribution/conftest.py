"""Attribution fixtures: Pride and Prejudice ingested (detected) and imported (gold), once per session."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from litlens.services.books import import_pdnc, ingest_file
from tests.conftest import SAMPLE_PDNC


@pytest.fixture(scope="session")
def detected_pp(tmp_path_factory) -> Path:
    project = tmp_path_factory.mktemp("attr_detected") / "pp.litlens"
    ingest_file(project, SAMPLE_PDNC / "novel_text.txt")
    return project


@pytest.fixture(scope="session")
def gold_pp(tmp_path_factory) -> Path:
    project = tmp_path_factory.mktemp("attr_gold") / "pp.litlens"
    import_pdnc(project, SAMPLE_PDNC)
    return project


@pytest.fixture
def detected(detected_pp, tmp_path) -> Path:
    """A private copy of the detected project that a test may change."""
    copy = tmp_path / "pp.litlens"
    shutil.copy(detected_pp, copy)
    return copy


@pytest.fixture
def gold(gold_pp, tmp_path) -> Path:
    copy = tmp_path / "gold.litlens"
    shutil.copy(gold_pp, copy)
    return copy
