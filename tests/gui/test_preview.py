"""One panel alone (``python -m litlens.gui.<panel> [PROJECT] [--screenshot OUT.png]``), and
a preview helper that imports no panel."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest


def test_preview_shows_a_panel_on_a_project_and_saves_its_picture(gold_project, tmp_path):
    from PySide6.QtGui import QImage

    from litlens.gui.characters import CharacterPanel
    from litlens.gui.preview import preview

    out = tmp_path / "characters.png"
    preview(CharacterPanel, "characters", [str(gold_project), "--screenshot", str(out)])
    image = QImage(str(out))
    assert (image.width(), image.height()) == (1100, 750)
    colours = {image.pixel(x, y) for x in range(0, image.width(), 9) for y in range(0, image.height(), 9)}
    assert len(colours) > 10  # the table was drawn, not a blank window


def test_preview_of_a_file_that_is_no_project_says_so(tmp_path):
    from litlens.gui.characters import CharacterPanel
    from litlens.gui.preview import preview

    with pytest.raises(SystemExit, match="is not a LitLens project"):
        preview(CharacterPanel, "characters", [str(tmp_path / "missing.litlens"), "--screenshot", str(tmp_path / "x.png")])


def test_preview_module_runs_a_panel_from_the_command_line(gold_project, tmp_path):
    out = tmp_path / "charts.png"
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "LITLENS_HOME": str(tmp_path)}
    run = subprocess.run([sys.executable, "-m", "litlens.gui.charts", str(gold_project), "--screenshot", str(out)],
                         capture_output=True, text=True, env=env, timeout=180)
    assert run.returncode == 0, run.stderr[-2000:]
    assert out.stat().st_size > 10_000


def test_preview_and_app_modules_import_no_panel():
    code = ("import sys, litlens.gui.preview, litlens.gui.app; "
            "panels = [m for m in sys.modules if m.startswith('litlens.gui.') and m not in "
            "('litlens.gui.preview', 'litlens.gui.app')]; print(panels)")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == "[]"
