"""GUI fixtures: offscreen Qt, the sample novel ingested once, a window per test."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import pytest  # noqa: E402

pytest.importorskip("PySide6", reason="the GUI tests need PySide6 (pip install -e '.[test]')")

from PySide6.QtCore import QSettings  # noqa: E402

from litlens.services.books import import_pdnc, ingest_file  # noqa: E402

from ..conftest import SAMPLE_PDNC  # noqa: E402


@pytest.fixture(scope="session")
def detected_project(tmp_path_factory) -> Path:
    """Pride and Prejudice as a user gets it: detected quotations, discovered characters."""
    project = tmp_path_factory.mktemp("detected") / "pp.litlens"
    ingest_file(project, SAMPLE_PDNC / "novel_text.txt")
    return project


@pytest.fixture(scope="session")
def gold_project(tmp_path_factory) -> Path:
    """Pride and Prejudice with PDNC gold quotations, speakers and characters."""
    project = tmp_path_factory.mktemp("gold") / "pp.litlens"
    import_pdnc(project, SAMPLE_PDNC)
    return project


@pytest.fixture
def fresh_gold(gold_project, tmp_path) -> Path:
    """A private copy of the gold project that a test may edit."""
    copy = tmp_path / "pp.litlens"
    shutil.copy(gold_project, copy)
    return copy


@pytest.fixture
def window(qtbot, tmp_path):
    from litlens.gui.main_window import MainWindow

    settings = QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)
    w = MainWindow(settings=settings)
    w.show_dialogs = False
    qtbot.addWidget(w)
    w.show()
    yield w
    w.runner.cancel()
    w.runner.wait(10000)
