"""Reader-window benchmark: start-up on the sample, and a 600,000-word novel.

Each measurement runs in a fresh Python process (offscreen Qt) so start-up includes
imports, and peak memory belongs to that run alone:

* ``startup_sample``: process start → first painted window with the sample's
  highlights (the sample project already ingested);
* ``baseline_bare_window``: process start → first painted empty QMainWindow, the
  floor any PySide6 app pays on this machine (figures are also given as a ratio to it);
* ``open_big``: a novel of about 600,000 words made by joining PDNC novels (chapters
  renumbered 1..N), already ingested: time to open its project and paint the first
  highlights, then time to jump to the last chapter and paint it, and the RSS of the
  running app.

The big novel's ingest time (CLI, cold) is measured too, since a user pays it once.

Usage:  .venv/bin/python benchmarks/bench_gui.py [--pdnc ../shared/data/pdnc] [--words 600000]
Writes benchmarks/results/gui.json.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
RESULTS = REPO / "benchmarks" / "results" / "gui.json"

_PRELUDE = """
import json, os, resource, sys, time
os.environ["QT_QPA_PLATFORM"] = "offscreen"
from PySide6.QtWidgets import QApplication
app = QApplication([])
def rss_mb():
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
def painted(widget):
    widget.repaint()
    app.processEvents()
    return time.time()
"""

STEPS = {
    "baseline_bare_window": """
        from PySide6.QtWidgets import QMainWindow
        w = QMainWindow(); w.resize(1400, 900); w.show()
        done = painted(w)
        result = {"shown_at": done, "rss_mb": rss_mb()}
    """,
    "startup_sample": """
        from litlens.gui.main_window import MainWindow
        w = MainWindow(); w.show_dialogs = False; w.show()
        assert w.open_project(__import__("pathlib").Path(sys.argv[1]))
        done = painted(w)
        assert w.reader.view.highlighted, "no highlights painted"
        result = {"shown_at": done, "highlighted": len(w.reader.view.highlighted), "rss_mb": rss_mb()}
    """,
    "open_big": """
        from litlens.gui.main_window import MainWindow
        w = MainWindow(); w.show_dialogs = False; w.show()
        app.processEvents()
        t0 = time.time()
        assert w.open_project(__import__("pathlib").Path(sys.argv[1]))
        opened = painted(w) - t0
        session = w.state.session
        t1 = time.time()
        w.state.jump_requested.emit(session.chapters[-1].start)
        jumped = painted(w) - t1
        assert w.reader.view.highlighted, "no highlights after the jump"
        t2 = time.time()
        w.reader.view.verticalScrollBar().setValue(w.reader.view.verticalScrollBar().maximum() // 2)
        w.reader.view.refresh_highlights()
        scrolled = painted(w) - t2
        result = {"open_seconds": opened, "jump_last_chapter_seconds": jumped, "scroll_middle_seconds": scrolled,
                  "chapters": len(session.chapters), "quotations": len(session.quotes), "rss_mb": rss_mb(),
                  "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}
    """,
}


def _run(step: str, *args: str) -> dict:
    code = _PRELUDE + textwrap.dedent(STEPS[step]) + "\nprint(json.dumps(result))\n"
    start = time.time()
    out = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, check=False)
    if out.returncode != 0:
        raise SystemExit(f"{step} failed:\n{out.stderr[-2000:]}")
    result = json.loads(out.stdout.strip().splitlines()[-1])
    if "shown_at" in result:
        result["seconds"] = result.pop("shown_at") - start
    return result


def build_big_novel(pdnc: Path, words: int, out: Path) -> dict:
    """Join PDNC novels (sorted by name) into one text of at least ``words`` words, chapters renumbered."""
    from litlens.text.chapters import find_chapters
    from litlens.text.paragraphs import find_paragraphs

    parts: list[str] = []
    total = chapter_no = 0
    used = []
    for novel in sorted(p for p in pdnc.iterdir() if (p / "novel_text.txt").is_file()):
        text = (novel / "novel_text.txt").read_text(encoding="utf-8")
        used.append(novel.name)
        for chapter in find_chapters(text, find_paragraphs(text)):
            paragraphs = [p for p in re.split(r"\n\s*\n", text[chapter.start:chapter.end]) if p.strip()]
            heading_lines = len(chapter.title.split(" / ")) if chapter.title.strip() else 0  # "PART I / CHAPTER II"
            body = "\n\n".join(paragraphs[heading_lines:]).strip()
            if not body:
                continue
            chapter_no += 1
            parts.append(f"CHAPTER {chapter_no}.\n\n{body}\n\n")
            total += len(body.split())
        if total >= words:
            break
    out.write_text("".join(parts), encoding="utf-8")
    return {"words": total, "chapters": chapter_no, "novels": used}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pdnc", default=str(REPO.parent / "shared" / "data" / "pdnc"))
    parser.add_argument("--words", type=int, default=600_000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()

    env_home = tempfile.mkdtemp(prefix="litlens-bench-")
    os.environ["LITLENS_HOME"] = env_home
    from litlens.resources import sample_novel, sample_project
    from litlens.services.books import ingest_file

    sample = sample_project()
    ingest_file(sample, sample_novel())
    report: dict = {"startup_sample": [], "baseline_bare_window": []}
    for _ in range(args.repeat):
        report["baseline_bare_window"].append(_run("baseline_bare_window"))
        report["startup_sample"].append(_run("startup_sample", str(sample)))
    best = {k: min(r["seconds"] for r in report[k]) for k in ("startup_sample", "baseline_bare_window")}
    report["startup_seconds_best"] = best["startup_sample"]
    report["startup_ratio_to_bare_window"] = best["startup_sample"] / best["baseline_bare_window"]

    pdnc = Path(args.pdnc)
    if pdnc.is_dir():
        folder = Path(tempfile.mkdtemp(prefix="litlens-big-"))
        novel = folder / "joined.txt"
        report["big_novel"] = build_big_novel(pdnc, args.words, novel)
        project = folder / "joined.litlens"
        start = time.time()
        subprocess.run([str(Path(sys.executable).with_name("litlens")), "ingest", str(novel), "-p", str(project)],
                       check=True, capture_output=True)
        report["big_novel"]["ingest_cli_seconds"] = time.time() - start
        report["open_big"] = [_run("open_big", str(project)) for _ in range(args.repeat)]
    else:
        report["open_big"] = f"skipped: no PDNC folder at {pdnc}"

    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    print(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
