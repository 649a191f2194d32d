"""Start the reader window: ``litlens gui [FILE_OR_PROJECT] [--screenshot OUT.png] [--panel NAME]``."""

from __future__ import annotations

import os
import sys
from pathlib import Path

PANELS = ("window", "reader", "inspector", "characters", "charts", "speakers", "evidence", "quotations")


def _application():
    from PySide6.QtWidgets import QApplication

    app = QApplication.instance() or QApplication(sys.argv[:1])
    app.setApplicationName("LitLens")
    app.setOrganizationName("LitLens")
    return app


def _open(window, target: Path | None) -> None:
    from litlens.gui.main_window import PROJECT_SUFFIXES, project_for
    from litlens.resources import sample_novel, sample_project

    if target is None:  # the bundled sample: ingested once, reopened at once afterwards
        window.ingest(sample_novel(), sample_project())
    elif target.suffix.lower() in PROJECT_SUFFIXES:
        window.open_project(target)
    else:
        window.ingest(target, project_for(target))


def _pick_example_quote(window) -> None:
    """For screenshots: select the first explicit quotation on screen so the inspector shows one."""
    state = window.state
    view = window.reader.view
    rows = [r for r in view.highlighted if r.quotation.type == "explicit"] or view.highlighted
    if rows:
        state.select(rows[0])


def run(target: str | None = None, *, screenshot: str | None = None, panel: str = "window") -> int:
    """Open the window on ``target`` (a novel or a project; the sample when None)."""
    if screenshot and "QT_QPA_PLATFORM" not in os.environ:
        os.environ["QT_QPA_PLATFORM"] = "offscreen"
    if panel not in PANELS:
        raise ValueError(f"--panel must be one of {', '.join(PANELS)}")
    app = _application()
    from PySide6.QtCore import QTimer

    from litlens.gui.main_window import MainWindow

    window = MainWindow()
    window.show_dialogs = screenshot is None
    window.show()
    outcome = {"code": 0}
    if screenshot:
        def save() -> None:
            app.processEvents()
            _pick_example_quote(window)
            app.processEvents()
            if panel in window.docks:  # a tabbed dock is drawn only when it is the visible tab
                window.docks[panel].raise_()
                app.processEvents()
            widget = {"window": window, "reader": window.reader}.get(panel) or window.docks[panel].widget()
            if not widget.grab().save(screenshot):
                outcome["code"] = 1
                print(f"litlens: error: cannot write the screenshot to {screenshot}", file=sys.stderr)
            app.quit()

        def failed(message: str) -> None:
            print(f"litlens: error: {message.splitlines()[0]}", file=sys.stderr)
            outcome["code"] = 2
            app.quit()

        window.book_opened.connect(lambda: QTimer.singleShot(200, save))
        window.error_shown.connect(failed)
    QTimer.singleShot(0, lambda: _open(window, Path(target) if target else None))
    app.exec()
    return outcome["code"]


def preview(panel: str, argv: list[str] | None = None) -> None:
    """Run one panel alone on the sample novel (``python -m litlens.gui.<panel> [--screenshot OUT.png]``)."""
    import argparse

    parser = argparse.ArgumentParser(prog=f"python -m litlens.gui.{panel}", description=f"the {panel} panel alone")
    parser.add_argument("--screenshot", metavar="OUT.png", help="render offscreen, save the picture, exit")
    args = parser.parse_args(sys.argv[1:] if argv is None else argv)
    if args.screenshot and "QT_QPA_PLATFORM" not in os.environ:
        os.environ["QT_QPA_PLATFORM"] = "offscreen"
    app = _application()
    from litlens.gui.state import BookState
    from litlens.resources import sample_novel, sample_project
    from litlens.services.books import ingest_file
    from litlens.services.session import BookSession

    project = sample_project()
    result = ingest_file(project, sample_novel())
    state = BookState()
    classes = _panel_classes()
    widget = classes[panel](state)
    widget.setWindowTitle(f"LitLens — {panel}")
    widget.resize(1100, 750)
    state.open_session(BookSession(project, result.book.id))
    widget.show()
    if args.screenshot:
        app.processEvents()
        if not widget.grab().save(args.screenshot):
            raise SystemExit(f"litlens: error: cannot write the screenshot to {args.screenshot}")
        return
    app.exec()


def _panel_classes() -> dict:
    from litlens.gui.characters import CharacterPanel
    from litlens.gui.charts import ChartsPanel
    from litlens.gui.inspector import QuoteInspector
    from litlens.gui.reader import ReaderPanel
    from litlens.gui.speakers import SpeakersPanel
    from litlens.gui.evidence import EvidencePanel
    from litlens.gui.quotations import QuotationTable

    return {"reader": ReaderPanel, "inspector": QuoteInspector, "characters": CharacterPanel, "charts": ChartsPanel,
            "speakers": SpeakersPanel, "evidence": EvidencePanel, "quotations": QuotationTable}
