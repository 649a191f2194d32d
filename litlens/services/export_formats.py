"""Export a stored book as TEI P5 or as a PDNC novel folder (`litlens export tei|pdnc`, File ▸ Export).

Both read the project read-only and write atomically: a file is written under a temporary
name and renamed, so a failed export never leaves half a file where a good one was.
"""

from __future__ import annotations

import os
import tempfile
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

from litlens import __version__
from litlens.errors import InputFileError
from litlens.export.pdnc import pdnc_files
from litlens.export.tei import BookMeta, build_tei
from litlens.services.books import resolve_book
from litlens.store.project import open_project

PDNC_OUTPUT_FILES = ("novel_text.txt", "quotation_info.csv", "character_info.csv")


@dataclass(frozen=True)
class ExportSummary:
    path: str
    quotations: int
    characters: int
    saids: int = 0  # TEI only: sub-quotation elements written
    notes: tuple[str, ...] = ()


def _write_atomic(path: Path, data: bytes) -> None:
    path = Path(path)
    fix = "Choose a folder you can write to (with free space), e.g. -o ~/exports/" + path.name
    if path.is_dir():
        raise InputFileError(path, "is a folder, not a file", "Give a file name such as book.xml")
    if not path.parent.is_dir():
        raise InputFileError(path, f"the folder {path.parent} does not exist", fix)
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".part", dir=path.parent)
    except OSError as exc:
        raise InputFileError(path, f"cannot write the export ({exc.strerror})", fix) from None
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except OSError as exc:
        Path(tmp).unlink(missing_ok=True)
        raise InputFileError(path, f"cannot write the export ({exc.strerror})", fix) from None


def export_tei(project_path: str | Path, out_path: str | Path, book_id: int | None = None) -> ExportSummary:
    """Write the book as one TEI P5 document (see :mod:`litlens.export.tei`)."""
    with open_project(project_path, readonly=True) as project:
        book_id = resolve_book(project, book_id)
        record = project.book(book_id)
        text = project.text(book_id)
        structure = project.structure(book_id)
        quotations = [(str(qid), q) for qid, q in project.quotations(book_id)]
        characters = [c for _, c in project.characters(book_id)]
    meta = BookMeta(
        title=record.title,
        author=record.author,
        source=record.source_path,
        generator="LitLens",
        version=__version__,
        when=datetime.now(timezone.utc).replace(microsecond=0).isoformat(),
    )
    document = build_tei(text, meta, structure.chapters, structure.paragraphs, quotations, characters)
    _write_atomic(Path(out_path), document.xml)
    return ExportSummary(str(out_path), document.quotations, document.persons, document.saids, document.notes)


def export_pdnc(project_path: str | Path, out_dir: str | Path, book_id: int | None = None) -> ExportSummary:
    """Write ``novel_text.txt``, ``quotation_info.csv`` and ``character_info.csv`` into ``out_dir``
    (created if absent), as PDNC ships them (see :mod:`litlens.export.pdnc`)."""
    out_dir = Path(out_dir)
    with open_project(project_path, readonly=True) as project:
        book_id = resolve_book(project, book_id)
        text = project.text(book_id)
        quotations = [q for _, q in project.quotations(book_id)]
        characters = [c for _, c in project.characters(book_id)]
    files = pdnc_files(text, quotations, characters)
    if out_dir.exists() and not out_dir.is_dir():
        raise InputFileError(out_dir, "is a file, not a folder", "Give a folder for the three PDNC files, e.g. -o exports/MyNovel")
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise InputFileError(out_dir, f"cannot create the folder ({exc.strerror})", "Choose a location you can write to") from None
    contents = (files.novel_text, files.quotation_info, files.character_info)
    for name, content in zip(PDNC_OUTPUT_FILES, contents):
        _write_atomic(out_dir / name, content.encode("utf-8"))
    return ExportSummary(str(out_dir), files.quotations, files.characters)
