"""Run a study panel alone: ``python -m litlens.gui.annotate|dashboard [PROJECT] [--screenshot OUT.png]``.

Without a PROJECT, a demo project is built once in ``$LITLENS_HOME/studies-demo.litlens``: a
proxy study from the RELiC queries in ``../shared/data/birco-relic-dev`` (or ``--beir DIR``)
with three annotators. For the dashboard to have something to show, two of them
("demo-sim-1", "demo-sim-2") are simulated: each picks the gold candidate with a fixed
probability, otherwise a random one. Real annotators' data never mixes with these.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
from pathlib import Path

from litlens.gui.app import window_size
from litlens.gui.preview import application

REPO = Path(__file__).resolve().parents[2]
DEFAULT_BEIR = REPO.parent / "shared" / "data" / "birco-relic-dev"
DEMO_STUDY = "relic-demo"


def demo_project(beir: Path) -> Path:
    from litlens.resources import user_data_dir
    from litlens.services.studies import AnnotationSession, assign, create_proxy_study, list_studies

    project = user_data_dir() / "studies-demo.litlens"
    if project.exists() and any(s["name"] == DEMO_STUDY for s in list_studies(project)):
        return project
    if not beir.is_dir():
        raise SystemExit(f"litlens: error: the demo needs RELiC data at {beir}; pass --beir DIR or a PROJECT")
    create_proxy_study(project, beir=beir, distractors="bm25", per_item=3, name=DEMO_STUDY)
    assign(project, DEMO_STUDY, ["you", "demo-sim-1", "demo-sim-2"], overlap=3)
    rng = random.Random(6)
    for annotator, skill in (("demo-sim-1", 0.85), ("demo-sim-2", 0.7)):
        session = AnnotationSession.open(project, DEMO_STUDY, annotator)
        for i, entry in enumerate(session.queue):
            gold = entry.item.gold_position
            session.answer(i, gold if rng.random() < skill else rng.choice([1, 2, 3]), duration_ms=rng.randint(4000, 30000))
        session.close()
    session = AnnotationSession.open(project, DEMO_STUDY, "you")
    for i, entry in enumerate(session.queue[:12]):
        session.answer(i, entry.item.gold_position if rng.random() < 0.8 else rng.choice([1, 2, 3]), duration_ms=9000)
    session.close()
    return project


def preview_study_panel(panel: str, argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog=f"python -m litlens.gui.{panel}", description=f"the {panel} panel alone")
    parser.add_argument("project", nargs="?", help="a project with studies (default: a demo project)")
    parser.add_argument("--study", help="study name (default: the first)")
    parser.add_argument("--annotator", help="annotator name to start as (annotate panel)")
    parser.add_argument("--beir", default=str(DEFAULT_BEIR), help="RELiC BEIR folder for the demo project")
    parser.add_argument("--screenshot", metavar="OUT.png", help="render offscreen, save the picture, exit")
    parser.add_argument("--size", type=window_size, metavar="WxH", help="window size, e.g. 1366x768 (a laptop)")
    args = parser.parse_args(sys.argv[1:] if argv is None else argv)
    if args.screenshot and "QT_QPA_PLATFORM" not in os.environ:
        os.environ["QT_QPA_PLATFORM"] = "offscreen"
    app = application()
    project = Path(args.project) if args.project else demo_project(Path(args.beir))
    if panel == "annotate":
        from litlens.gui.annotate import AnnotatorView

        widget = AnnotatorView(project)
        widget.show_dialogs = not args.screenshot
        if args.study:
            widget.study_box.setCurrentIndex(max(0, widget.study_box.findData(args.study)))
        annotator = args.annotator or ("you" if not args.project else None)
        if annotator:
            widget.annotator_box.setCurrentText(annotator)
            widget.start(widget.study_box.currentData(), annotator)
            if widget.session and widget.index is not None:
                widget.choose(widget.session.study.scale[0])
        widget.resize(1100, 780)
    else:
        from litlens.gui.dashboard import AgreementPanel

        widget = AgreementPanel(project, args.study, poll=not args.screenshot)
        widget.resize(1400, 820)
    if args.size:
        widget.resize(*args.size)
    widget.show()
    if args.screenshot:
        if panel == "dashboard":  # wait for the numbers and their CIs
            from PySide6.QtCore import QEventLoop, QTimer

            for again in (True, False):  # the second pass shows a warm recompute, as after each judgment
                loop = QEventLoop()
                widget.ci_refreshed.connect(loop.quit)
                QTimer.singleShot(60000, loop.quit)
                loop.exec()
                widget.ci_refreshed.disconnect(loop.quit)
                if again:
                    widget.refresh()
        app.processEvents()
        if not widget.grab().save(args.screenshot):
            raise SystemExit(f"litlens: error: cannot write the screenshot to {args.screenshot}")
        widget.close()
        return
    app.exec()
