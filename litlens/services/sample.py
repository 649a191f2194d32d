"""The bundled sample novel, ready to explore: ingested, and its speakers attributed on the CPU.

``litlens sample`` and the window's first run both call :func:`prepare_sample`, so the first
screen a newcomer sees already has speakers, charts and a review list. Later calls reopen the
stored project at once: the ingest is reused, and attribution runs only while no quotation of
the book has an attribution yet.
"""

from __future__ import annotations

from pathlib import Path

from litlens.model import Cancelled, Progress
from litlens.resources import sample_novel, sample_project
from litlens.services.attribution import attribute_book
from litlens.services.books import IngestResult, ingest_file
from litlens.services.progress import sub_progress
from litlens.store.project import open_project


def has_attributions(project_path: str | Path, book_id: int) -> bool:
    with open_project(project_path, create=False) as project:
        row = project.conn.execute("SELECT 1 FROM attributions WHERE book_id = ? LIMIT 1", (book_id,)).fetchone()
    return row is not None


def prepare_sample(
    project_path: str | Path | None = None,
    *,
    progress: Progress | None = None,
    cancelled: Cancelled | None = None,
) -> tuple[IngestResult, dict | None]:
    """Ingest the sample (or reopen it) and attribute its speakers if that was never done.

    Returns the ingest result and the attribution summary (None when speakers were already there).
    """
    project = Path(project_path) if project_path else sample_project()
    result = ingest_file(project, sample_novel(), progress=sub_progress(progress, 0.0, 0.7), cancelled=cancelled)
    summary = None
    if not has_attributions(project, result.book.id):
        if progress:
            progress(0.7, "attributing speakers (CPU)")
        summary = attribute_book(project, result.book.id, progress=sub_progress(progress, 0.7, 1.0), cancelled=cancelled)
    if progress:
        progress(1.0, "ready")
    return result, summary
