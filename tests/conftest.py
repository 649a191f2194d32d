"""Shared fixtures: paths to shipped fixtures and to ../shared, a small project."""

from __future__ import annotations

from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
FIXTURES = REPO / "tests" / "fixtures"
SHARED = REPO.parent / "shared"
PDNC = SHARED / "data" / "pdnc"
SAMPLE_PDNC = FIXTURES / "pdnc" / "PrideAndPrejudice"


def require_shared() -> Path:
    if not PDNC.is_dir():
        pytest.skip(f"needs the PDNC corpus at {PDNC} (../shared is absent in a plain clone)")
    return PDNC


@pytest.fixture
def pdnc_dir() -> Path:
    return require_shared()


@pytest.fixture(autouse=True)
def _isolated_home(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    # Keep the sample project and settings out of the user's real home.
    monkeypatch.setenv("LITLENS_HOME", str(tmp_path_factory.mktemp("home")))
