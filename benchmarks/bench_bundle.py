"""The packaged app against the venv, in the same run: time from process start to the window's
first picture (``litlens gui PROJECT --screenshot``, offscreen, the project already stored), and
the bundle's size on disk.

Usage:  .venv/bin/python benchmarks/bench_bundle.py PROJECT [--runs 3]
PROJECT must be of a schema the bundle knows (e.g. one the bundle's `litlens sample` made).
Needs dist/LitLens/ from packaging/build.sh. Writes benchmarks/results/bundle.json.
The bundle runs with PATH=/usr/bin:/bin and no venv; runs alternate so machine load hits both alike.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
BUNDLE = REPO / "dist" / "LitLens"
RESULTS = REPO / "benchmarks" / "results" / "bundle.json"


def _size_mb(folder: Path) -> float:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file() and not p.is_symlink()) / 1e6


def _first_picture(command: list[str], env: dict[str, str], out: Path) -> float:
    start = time.perf_counter()
    result = subprocess.run(command + ["--screenshot", str(out)], env=env, capture_output=True, text=True)
    seconds = time.perf_counter() - start
    if result.returncode != 0 or not out.is_file():
        raise SystemExit(f"{command[0]} failed: {result.stderr[-2000:]}")
    out.unlink()
    return seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("project")
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        shot = Path(tmp) / "shot.png"
        base = {"QT_QPA_PLATFORM": "offscreen", "HOME": tmp, "LITLENS_HOME": tmp}
        bundle_env = dict(base, PATH="/usr/bin:/bin", LANG="C.UTF-8")
        venv_env = dict(os.environ, **base)
        # Each side opens its own copy: a newer venv may migrate a project the bundle then refuses.
        copies = {side: Path(tmp) / f"{side}.litlens" for side in ("bundle", "venv")}
        for copy in copies.values():
            shutil.copy(args.project, copy)
        bundle_cmd = [str(BUNDLE / "litlens"), "gui", str(copies["bundle"])]
        venv_cmd = [str(REPO / ".venv" / "bin" / "litlens"), "gui", str(copies["venv"])]
        times: dict[str, list[float]] = {"bundle": [], "venv": []}
        for _ in range(args.runs):
            times["venv"].append(_first_picture(venv_cmd, venv_env, shot))
            times["bundle"].append(_first_picture(bundle_cmd, bundle_env, shot))
    result = {
        "bundle_size_mb": round(_size_mb(BUNDLE), 1),
        "first_picture_s": {k: [round(v, 2) for v in vs] for k, vs in times.items()},
        "median_s": {k: round(statistics.median(vs), 2) for k, vs in times.items()},
        "ratio_bundle_to_venv": round(statistics.median(times["bundle"]) / statistics.median(times["venv"]), 2),
        "python": sys.version.split()[0],
    }
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
