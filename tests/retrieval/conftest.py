"""Fixtures for evidence retrieval: a small project (the first three chapters of the sample novel)."""

from __future__ import annotations

from pathlib import Path

import pytest

from litlens.resources import sample_novel
from litlens.services.books import ingest_file

from ..conftest import FIXTURES, SHARED

ESSAY = FIXTURES / "retrieval" / "essay_pride.txt"
BIRCO = SHARED / "data" / "birco-relic-dev"


@pytest.fixture(scope="session")
def short_novel(tmp_path_factory) -> Path:
    lines = sample_novel().read_text(encoding="utf-8").splitlines(keepends=True)[:402]  # chapters I-III
    path = tmp_path_factory.mktemp("novel") / "pride_1_3.txt"
    path.write_text("".join(lines), encoding="utf-8")
    return path


@pytest.fixture(scope="session")
def short_project_template(short_novel, tmp_path_factory) -> Path:
    project = tmp_path_factory.mktemp("proj") / "pp15.litlens"
    ingest_file(project, short_novel)
    return project


@pytest.fixture
def short_project(short_project_template, tmp_path) -> Path:
    """A fresh copy per test, so tests that write do not see each other."""
    import sqlite3

    target = tmp_path / "pp15.litlens"
    src = sqlite3.connect(short_project_template)
    dst = sqlite3.connect(target)
    src.backup(dst)
    src.close()
    dst.close()
    return target


@pytest.fixture
def birco_dir() -> Path:
    if not BIRCO.is_dir():
        pytest.skip(f"needs BIRCO-RELiC dev at {BIRCO} (../shared is absent in a plain clone)")
    return BIRCO
