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


EXPORT_FORMATS = ("tei", "pdnc")


@dataclass(frozen=True)
class CorpusExportSummary:
    """A ``litlens batch`` output exported book by book."""

    path: str
    books: tuple[tuple[str, ExportSummary], ...]  # (book stem, its export)
    left_out: tuple[str, ...]  # failed books: they have no project


def parse_formats(value: str | None) -> tuple[str, ...]:
    """``"tei,pdnc"`` as ``("tei", "pdnc")``; a one-line error for an unknown format."""
    formats = tuple(dict.fromkeys(f.strip().lower() for f in (value or "").split(",") if f.strip()))
    unknown = [f for f in formats if f not in EXPORT_FORMATS]
    if unknown or not formats:
        from litlens.errors import LitLensError

        raise LitLensError(f"--export takes a comma-separated list of {', '.join(EXPORT_FORMATS)}, not {value!r}")
    return formats


def is_batch_output(path: str | Path) -> bool:
    """True for a folder that ``litlens batch`` wrote (it holds ``manifest.json``)."""
    return Path(path).is_dir() and (Path(path) / "manifest.json").is_file()


def batch_books(batch_dir: str | Path) -> tuple[list[tuple[str, Path]], list[str]]:
    """The projects of a ``litlens batch`` output in the manifest's order, and the failed books."""
    import json

    batch_dir = Path(batch_dir)
    manifest_path = batch_dir / "manifest.json"
    if not manifest_path.is_file():
        raise InputFileError(batch_dir, "is a folder without manifest.json, so not a `litlens batch` output",
                             "Pass a project file (-p book.litlens) or the -o folder of a `litlens batch` run")
    try:
        books = json.loads(manifest_path.read_text(encoding="utf-8"))["books"]
        entries = [(str(b["book"]), str(b["status"])) for b in books]
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise InputFileError(manifest_path, f"cannot read the batch manifest ({exc})",
                             "Run `litlens batch` again to rewrite it") from None
    done, left_out = [], []
    for stem, status in entries:
        project = batch_dir / f"{stem}.litlens"
        if status in ("done", "skipped") and project.is_file():
            done.append((stem, project))
        else:
            left_out.append(stem)
    return done, left_out


def export_corpus(batch_dir: str | Path, fmt: str, out_dir: str | Path | None = None, *,
                  stems: list[str] | None = None, progress=None) -> CorpusExportSummary:
    """Export every book of a ``litlens batch`` output: ``OUT/<stem>.xml`` (tei) or ``OUT/<stem>/`` (pdnc).

    The books are those of the manifest (failed ones, which have no project, are left out and
    named in the summary), or ``stems`` when the batch run itself exports before writing it.
    ``out_dir`` defaults to ``<batch_dir>/<fmt>``.
    """
    if fmt not in EXPORT_FORMATS:
        raise ValueError(f"unknown export format {fmt!r}")
    if stems is None:
        books, left_out = batch_books(batch_dir)
    else:
        books, left_out = [(stem, Path(batch_dir) / f"{stem}.litlens") for stem in stems], []
    target = Path(out_dir) if out_dir is not None else Path(batch_dir) / fmt
    if target.exists() and not target.is_dir():
        raise InputFileError(target, "is a file, not a folder", f"Give a folder for one {fmt} export per book, e.g. -o exports/{fmt}")
    try:
        target.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise InputFileError(target, f"cannot create the folder ({exc.strerror})", "Choose a location you can write to") from None
    report = progress or (lambda f, m: None)
    done = []
    for i, (stem, project) in enumerate(books):
        report(i / max(1, len(books)), stem)
        if fmt == "tei":
            done.append((stem, export_tei(project, target / f"{stem}.xml")))
        else:
            done.append((stem, export_pdnc(project, target / stem)))
    report(1.0, "exported")
    return CorpusExportSummary(str(target), tuple(done), tuple(left_out))
