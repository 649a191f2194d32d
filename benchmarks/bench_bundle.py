"""The packaged app against the venv, in the same run: time from process start to the window's
first picture (``litlens gui PROJECT --screenshot``, offscreen, the project already stored), the
bundle's size on disk, and the TEI validation time.

Usage:  .venv/bin/python benchmarks/bench_bundle.py PROJECT [--runs 3] [--build]
PROJECT must be of a schema the bundle knows (e.g. one the bundle's `litlens sample` made).
Needs dist/LitLens/ from packaging/build.sh (``--build`` runs it first and times it; or pass
``--build-seconds S`` from a build done elsewhere, e.g. the slow packaging test).
TEI: the bundle exports PROJECT's book as TEI P5, and lxml (this venv) compiles
../shared/data/tei/tei_all_4.2.1.rng and validates the document; both times are recorded.
Writes benchmarks/results/bundle.json, with the load average before and after.
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
TEI_RNG = REPO.parent / "shared" / "data" / "tei" / "tei_all_4.2.1.rng"


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


def _tei_validation(bundle_cmd: list[str], env: dict[str, str], project: Path, tmp: Path) -> dict:
    """Export PROJECT's book as TEI with the bundle, then compile tei_all and validate with lxml."""
    from lxml import etree

    xml = tmp / "book.xml"
    start = time.perf_counter()
    done = subprocess.run(bundle_cmd + ["export", "tei", "-p", str(project), "-o", str(xml)], env=env,
                          capture_output=True, text=True)
    export_s = time.perf_counter() - start
    if done.returncode:
        raise SystemExit(f"the bundle's TEI export failed: {done.stderr[-2000:]}")
    if not TEI_RNG.is_file():
        return {"export_s": round(export_s, 2), "skipped": f"no schema at {TEI_RNG}"}
    start = time.perf_counter()
    schema = etree.RelaxNG(etree.parse(str(TEI_RNG)))
    compile_s = time.perf_counter() - start
    start = time.perf_counter()
    document = etree.parse(str(xml))
    valid = schema.validate(document)
    validate_s = time.perf_counter() - start
    return {"export_s": round(export_s, 2), "compile_schema_s": round(compile_s, 2), "validate_s": round(validate_s, 2),
            "valid": bool(valid), "errors": [str(e) for e in list(schema.error_log)[:3]],
            "said": len(document.findall(".//{http://www.tei-c.org/ns/1.0}said")), "bytes": xml.stat().st_size}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("project")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--build", action="store_true", help="run packaging/build.sh first and time it")
    parser.add_argument("--build-seconds", type=float, help="the build time of a build done elsewhere, to record")
    args = parser.parse_args()
    load = {"start": [round(x, 2) for x in os.getloadavg()]}
    build_s = args.build_seconds
    if args.build:
        start = time.perf_counter()
        subprocess.run([str(REPO / "packaging" / "build.sh")], cwd=REPO, check=True)
        build_s = time.perf_counter() - start
        load["after_build"] = [round(x, 2) for x in os.getloadavg()]
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
        tei = _tei_validation([str(BUNDLE / "litlens")], bundle_env, copies["bundle"], Path(tmp))
    load["end"] = [round(x, 2) for x in os.getloadavg()]
    result = {
        "bundle_size_mb": round(_size_mb(BUNDLE), 1),
        "build_s": round(build_s, 1) if build_s is not None else None,
        "first_picture_s": {k: [round(v, 2) for v in vs] for k, vs in times.items()},
        "median_s": {k: round(statistics.median(vs), 2) for k, vs in times.items()},
        "ratio_bundle_to_venv": round(statistics.median(times["bundle"]) / statistics.median(times["venv"]), 2),
        "tei_validation": tei,
        "load_average_1_5_15": load,
        "cpu_count": os.cpu_count(),
        "python": sys.version.split()[0],
    }
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
