"""Run one panel alone, for screenshots and manual checks:
``python -m litlens.gui.<panel> [PROJECT] [--screenshot OUT.png]``.

This module knows no panel: each panel module passes its own class, so the panels and the
window never import each other through it.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path


def application():
    """The one QApplication, named for LitLens's settings."""
    from PySide6.QtWidgets import QApplication

    app = QApplication.instance() or QApplication(sys.argv[:1])
    app.setApplicationName("LitLens")
    app.setOrganizationName("LitLens")
    return app


def preview(panel_class, name: str, argv: list[str] | None = None) -> None:
    """Show ``panel_class`` (built on a :class:`~litlens.gui.state.BookState`) on the first book
    of PROJECT, or on the bundled sample novel when no PROJECT is given."""
    parser = argparse.ArgumentParser(prog=f"python -m litlens.gui.{name}", description=f"the {name} panel alone")
    parser.add_argument("project", nargs="?", type=Path, help="a .litlens project (default: the sample novel)")
    parser.add_argument("--screenshot", metavar="OUT.png", help="render offscreen, save the picture, exit")
    args = parser.parse_args(sys.argv[1:] if argv is None else argv)
    if args.screenshot and "QT_QPA_PLATFORM" not in os.environ:
        os.environ["QT_QPA_PLATFORM"] = "offscreen"
    app = application()
    from litlens.gui.state import BookState
    from litlens.services.books import list_books
    from litlens.services.session import BookSession

    if args.project is not None:
        books = list_books(args.project) if args.project.is_file() else []
        if not books:
            raise SystemExit(f"litlens: error: {args.project} is not a LitLens project with a book in it")
        project, book_id = args.project, books[0].id
    else:
        from litlens.resources import sample_novel, sample_project
        from litlens.services.books import ingest_file

        project = sample_project()
        book_id = ingest_file(project, sample_novel()).book.id
    state = BookState()
    widget = panel_class(state)
    widget.setWindowTitle(f"LitLens — {name}")
    widget.resize(1100, 750)
    state.open_session(BookSession(project, book_id))
    widget.show()
    if args.screenshot:
        app.processEvents()
        if not widget.grab().save(args.screenshot):
            raise SystemExit(f"litlens: error: cannot write the screenshot to {args.screenshot}")
        return
    app.exec()
