"""Where LitLens finds its bundled files and keeps per-user data."""

from __future__ import annotations

import os
from pathlib import Path

from litlens.errors import InputFileError

RESOURCES = Path(__file__).resolve().parent.parent / "resources"
SAMPLE_NOVEL = RESOURCES / "sample" / "pride_and_prejudice.txt"


def sample_novel() -> Path:
    if not SAMPLE_NOVEL.is_file():
        raise InputFileError(
            SAMPLE_NOVEL,
            "the bundled sample novel is missing",
            "Install LitLens from its source folder with `pip install -e .` so resources/ is found",
        )
    return SAMPLE_NOVEL


def user_data_dir() -> Path:
    """Per-user folder for the sample project and settings ($LITLENS_HOME overrides)."""
    base = os.environ.get("LITLENS_HOME")
    if base:
        path = Path(base)
    else:
        xdg = os.environ.get("XDG_DATA_HOME")
        path = (Path(xdg) if xdg else Path.home() / ".local" / "share") / "litlens"
    path.mkdir(parents=True, exist_ok=True)
    return path


def sample_project() -> Path:
    return user_data_dir() / "sample.litlens"
