"""A corpus of novels on Ray: each book ingested and attributed by a Ray task.

``run_batch`` takes a folder of novels (or a text file listing their paths), starts a local
Ray with ``workers`` CPUs (or joins a running cluster at ``address``), runs
:func:`process_book` once per book as a Ray task and writes, under the output folder:

* ``<stem>.litlens`` per book: a normal project, made by the same two service calls as
  ``litlens ingest`` and ``litlens attribute`` (so the window opens it, and its quotations
  are those of the one-book CLI);
* ``quotations.parquet``: every book's quotations in the ``export quotes`` format plus ``book``;
* ``manifest.json``: engine, Ray version, start and finish times, one entry per book.

A book that fails is recorded with its error and the others go on. A book is done when its
record in ``.litlens-batch/<stem>.json`` names the input's SHA-256, this LitLens version and
the same attribution settings; a second run skips such books and redoes the others.
Ray is imported here only, when a batch runs: ``import litlens`` and the window never load it.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
import time
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

from litlens import __version__
from litlens.errors import InputFileError, LitLensError
from litlens.model import Progress
from litlens.services.pipeline import PIPELINE_VERSION

NOVEL_SUFFIXES = (".txt", ".html", ".htm", ".xhtml", ".epub")
ATTRIBUTE_MODES = ("cpu", "llm", "none")
STATE_DIR = ".litlens-batch"
MANIFEST = "manifest.json"
QUOTATIONS = "quotations.parquet"


@dataclass(frozen=True)
class LLMSettings:
    """The OpenAI-compatible server (or other backend) of ``--attribute llm``."""

    backend: str = "openai"
    model: str | None = None
    base_url: str | None = None
    api_key_env: str | None = None


def collect_inputs(source: str | Path) -> list[Path]:
    """The novels to process: a folder's novel files (sorted), or the paths a list file names.

    In a list file, one path a line; blank lines and lines starting with ``#`` are ignored, and
    relative paths are read from the list file's folder.
    """
    source = Path(source)
    if source.is_dir():
        books = sorted(p for p in source.iterdir() if p.is_file() and p.suffix.lower() in NOVEL_SUFFIXES)
        if not books:
            raise InputFileError(source, "the folder holds no novels (.txt, .html, .epub)",
                                 "Pass a folder of novels or a text file listing their paths")
    elif source.is_file():
        try:
            lines = source.read_text(encoding="utf-8").splitlines()
        except (OSError, UnicodeDecodeError) as exc:
            raise InputFileError(source, f"cannot read the list of novels ({exc})",
                                 "Pass a folder of novels or a UTF-8 text file with one path a line") from exc
        books = [Path(line.strip()) for line in lines if line.strip() and not line.lstrip().startswith("#")]
        books = [p if p.is_absolute() else source.parent / p for p in books]
        if not books:
            raise InputFileError(source, "the list names no novels",
                                 "Write one novel path a line (relative paths are read from the list's folder)")
    else:
        raise InputFileError(source, "no such file or folder", "Pass a folder of novels or a text file listing their paths")
    stems: dict[str, Path] = {}
    for path in books:
        if path.stem in stems:
            raise InputFileError(path, f"two inputs share the name {path.stem!r} ({stems[path.stem]} and {path}), "
                                 "so their outputs would collide", "Rename one of them")
        stems[path.stem] = path
    return books


def file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def run_key(attribute: str, llm: LLMSettings | None) -> dict:
    """What, besides the input, decides a book's output: a change means the book is redone."""
    key = {"litlens_version": __version__, "pipeline_version": PIPELINE_VERSION, "attribute": attribute}
    if attribute == "llm" and llm is not None:
        key["llm"] = {"backend": llm.backend, "model": llm.model}
    return key


def _state_path(out_dir: Path, stem: str) -> Path:
    return out_dir / STATE_DIR / f"{stem}.json"


def project_path(out_dir: Path, stem: str) -> Path:
    return out_dir / f"{stem}.litlens"


def _remove_project(path: Path) -> None:
    for suffix in ("", "-wal", "-shm", "-journal"):
        Path(str(path) + suffix).unlink(missing_ok=True)


def completed(book: Path, out_dir: Path, key: dict) -> dict | None:
    """The stored record of a book whose output is complete and current, else None."""
    state = _state_path(out_dir, book.stem)
    if not state.is_file() or not project_path(out_dir, book.stem).is_file():
        return None
    try:
        record = json.loads(state.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if record.get("status") != "done" or record.get("key") != key:
        return None
    try:
        if record.get("input_sha256") != file_sha256(book):
            return None
    except OSError:
        return None
    return record


def process_book(book: str | Path, out_dir: str | Path, attribute: str = "cpu", llm: LLMSettings | None = None,
                 key: dict | None = None) -> dict:
    """Ingest one novel into ``OUT/<stem>.litlens`` and attribute its speakers (a Ray task).

    Never raises for a bad book: the returned entry says ``failed`` with the error, and no
    project is left for it. A done book's record is written last, so a run killed halfway
    leaves a book that the next run redoes. ``key`` (default :func:`run_key`) is stored with
    the record; the driver passes its own so that workers and driver agree on what is current.
    """
    from litlens.services.attribution import attribute_book
    from litlens.services.books import ingest_file

    book, out_dir = Path(book), Path(out_dir)
    started = time.perf_counter()
    target = project_path(out_dir, book.stem)
    state = _state_path(out_dir, book.stem)
    state.unlink(missing_ok=True)
    _remove_project(target)
    entry: dict = {"book": book.stem, "status": "done", "error": None, "seconds": 0.0, "quotations": 0}
    try:
        digest = file_sha256(book)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # a book without quotations is a result, not a failure
            result = ingest_file(target, book)
            if attribute == "cpu":
                attribute_book(target, result.book.id)
            elif attribute == "llm" and _in_cluster_llm(llm):
                pass  # the driver runs the LLM stage for every book at once through ray.data.llm
            elif attribute == "llm":
                from litlens.services.llm_attribution import attribute_book_llm

                llm = llm or LLMSettings()
                attribute_book_llm(target, result.book.id, backend=llm.backend, model=llm.model,
                                   base_url=llm.base_url, api_key_env=llm.api_key_env)
        from litlens.services.books import list_quotations

        entry["quotations"] = len(list_quotations(target, result.book.id))
    except Exception as exc:  # noqa: BLE001 - any failure of one book is recorded and the corpus goes on
        _remove_project(target)
        entry.update(status="failed", error=str(exc) if isinstance(exc, LitLensError) else f"{type(exc).__name__}: {exc}")
    entry["seconds"] = round(time.perf_counter() - started, 3)
    if entry["status"] == "done" and not (attribute == "llm" and _in_cluster_llm(llm)):
        _record_done(out_dir, book, entry, digest, key or run_key(attribute, llm))
    return entry


def _in_cluster_llm(llm: LLMSettings | None) -> bool:
    """True when the LLM stage runs inside Ray with vLLM (``--backend vllm``), not on a server."""
    return llm is not None and llm.backend == "vllm"


def _record_done(out_dir: Path, book: Path, entry: dict, digest: str, key: dict) -> None:
    _write_json(_state_path(out_dir, book.stem), {**entry, "input": str(book), "input_sha256": digest, "key": key})


def _write_json(path: Path, data: object) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".part")
    tmp.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    os.replace(tmp, path)


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def write_quotations_parquet(out_dir: Path, stems: Sequence[str]) -> int:
    """``OUT/quotations.parquet``: the books' quotations in the export format plus ``book``."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from litlens.services.books import list_quotations

    schema = pa.schema([
        ("book", pa.string()), ("id", pa.string()), ("source_id", pa.string()),
        ("spans", pa.list_(pa.list_(pa.int64()))), ("type", pa.string()),
        ("referring_expression", pa.string()), ("speaker", pa.string()),
        ("speaker_confidence", pa.float64()), ("chapter", pa.int64()),
    ])
    rows = []
    for stem in stems:
        for record in list_quotations(project_path(out_dir, stem)):
            record.pop("text", None)
            rows.append({"book": stem, **record})
    target = out_dir / QUOTATIONS
    tmp = target.with_name(target.name + ".part")
    pq.write_table(pa.Table.from_pylist(rows, schema=schema), tmp)
    os.replace(tmp, target)
    return len(rows)


def run_batch(
    source: str | Path,
    out_dir: str | Path,
    *,
    workers: int = 2,
    address: str | None = None,
    attribute: str = "cpu",
    llm: LLMSettings | None = None,
    progress: Progress | None = None,
    export: str | Sequence[str] | None = None,
) -> dict:
    """Process a corpus on Ray and return the manifest (also written to ``OUT/manifest.json``).

    Without ``address`` a local Ray with ``workers`` CPUs is started and shut down afterwards;
    with it, the run joins that cluster (whose nodes must see INPUT and OUT at the same paths).
    A Ray already initialised in this process is used as it is. ``export`` (``"tei,pdnc"`` or a
    list) also writes every done book as TEI P5 (``OUT/tei/<stem>.xml``) and/or a PDNC folder
    (``OUT/pdnc/<stem>/``), as ``litlens export tei|pdnc -p OUT`` does; the manifest's ``exports``
    names the folders.
    """
    from litlens.services.export_formats import export_corpus, parse_formats

    if getattr(sys, "frozen", False):
        raise LitLensError("litlens batch is not in the packaged app: Ray starts its workers with a Python "
                           "interpreter, which the bundle does not carry. Install LitLens with pip "
                           "(pip install litlens) to run a corpus, or run `litlens ingest` and `litlens attribute` per book")

    formats = () if not export else parse_formats(export if isinstance(export, str) else ",".join(export))
    if attribute not in ATTRIBUTE_MODES:
        raise LitLensError(f"--attribute must be one of {', '.join(ATTRIBUTE_MODES)}, not {attribute!r}")
    if attribute == "llm" and (llm is None or (llm.backend == "openai" and not llm.base_url)):
        raise LitLensError("--attribute llm needs a server: pass --backend openai --base-url URL --model M "
                           "(e.g. a `vllm serve` or llama.cpp server), or --backend vllm --model M on a Ray cluster with GPUs")
    if attribute == "llm" and _in_cluster_llm(llm):
        from litlens.services.batch_vllm import require_vllm, vllm_processor_options

        vllm_processor_options(llm.model or "", gpus=1)  # --model given
        require_vllm()
    if workers < 1:
        raise LitLensError(f"--workers must be at least 1, not {workers}")
    books = collect_inputs(source)
    out_dir = Path(out_dir).resolve()
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise InputFileError(out_dir, f"cannot create the output folder ({exc.strerror})", "Choose a writable folder") from exc
    report = progress or (lambda f, m: None)
    started = _now()
    key = run_key(attribute, llm)
    entries: dict[str, dict] = {}
    todo: list[Path] = []
    for book in books:
        record = completed(book, out_dir, key)
        if record is None:
            todo.append(book.resolve())
        else:
            entries[book.stem] = {"book": book.stem, "status": "skipped", "error": None,
                                  "seconds": 0.0, "quotations": record["quotations"]}
    report(len(entries) / len(books), f"{len(entries)} of {len(books)} books already done")

    if todo:
        ray_version = _run_on_ray(todo, out_dir, attribute, llm, key, workers, address, entries,
                                  lambda: report(len(entries) / len(books), "books"))
    else:  # everything is current: no cluster to start
        from importlib.metadata import version

        ray_version = version("ray")
    ordered = [entries[b.stem] for b in books]
    write_quotations_parquet(out_dir, [e["book"] for e in ordered if e["status"] != "failed"])
    done = [e["book"] for e in ordered if e["status"] != "failed"]
    exports = {fmt: export_corpus(out_dir, fmt, stems=done).path for fmt in formats}
    manifest = {
        "engine": "ray",
        "ray_version": ray_version,
        "started": started,
        "finished": _now(),
        "litlens_version": __version__,
        "attribute": attribute,
        "books": ordered,
    }
    if exports:
        manifest["exports"] = exports
    _write_json(out_dir / MANIFEST, manifest)
    report(1.0, "done")
    return manifest


def _run_on_ray(todo: list[Path], out_dir: Path, attribute: str, llm: LLMSettings | None, key: dict, workers: int,
                address: str | None, entries: dict[str, dict], tick) -> str:
    """Run :func:`process_book` on Ray for each book, filling ``entries``; return Ray's version."""
    import logging

    import ray

    started_here = False
    if not ray.is_initialized():
        options = {"include_dashboard": False, "log_to_driver": False, "logging_level": logging.WARNING}
        if address:
            try:
                ray.init(address=address, **options)
            except (ConnectionError, ValueError, RuntimeError) as exc:
                raise LitLensError(f"cannot join the Ray cluster at {address} ({exc}). Start one with "
                                   "`ray start --head` on the head node, or leave out --address for a local Ray") from exc
        else:
            ray.init(num_cpus=workers, **options)
        started_here = True
    try:
        gpus = 0
        if attribute == "llm" and _in_cluster_llm(llm):
            from litlens.services.batch_vllm import require_gpus

            gpus = require_gpus()  # before any book: a cluster without GPUs is one line, not a failed corpus
        task = ray.remote(num_cpus=1, max_retries=0)(process_book)
        pending = {task.remote(str(b), str(out_dir), attribute, llm, key): b for b in todo}
        while pending:
            ready, _ = ray.wait(list(pending), num_returns=1)
            for ref in ready:
                book = pending.pop(ref)
                try:
                    entry = ray.get(ref)
                except Exception as exc:  # noqa: BLE001 - a worker that died takes only its book with it
                    entry = {"book": book.stem, "status": "failed", "error": f"the Ray task failed: {exc}",
                             "seconds": 0.0, "quotations": 0}
                entries[book.stem] = entry
                if not (gpus and entry["status"] == "done"):
                    tick()
        if gpus:
            _llm_stage_on_ray_data([b for b in todo if entries[b.stem]["status"] == "done"], out_dir, llm, key, gpus,
                                   entries, tick)
        return ray.__version__
    finally:
        if started_here:
            ray.shutdown()


def _llm_stage_on_ray_data(books: list[Path], out_dir: Path, llm: LLMSettings, key: dict, gpus: int,
                           entries: dict[str, dict], tick) -> None:
    """Attribute the ingested ``books`` with vLLM engines that ``ray.data.llm`` runs on the GPUs.

    One backend (one tokenizer) serves every book; a book's waves of chunks each go through
    the engines as one Ray Data pass. A book whose LLM stage fails is recorded as failed.
    """
    from litlens.services.batch_vllm import RayDataVLLMBackend
    from litlens.services.llm_attribution import attribute_book_llm

    backend = RayDataVLLMBackend(llm.model or "", gpus=gpus)
    for book in books:
        entry = entries[book.stem]
        target = project_path(out_dir, book.stem)
        started = time.perf_counter()
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                attribute_book_llm(target, backend=backend, batch_size=1 << 16)
            entry["seconds"] = round(entry["seconds"] + time.perf_counter() - started, 3)
            _record_done(out_dir, book, entry, file_sha256(book), key)
        except Exception as exc:  # noqa: BLE001 - one book's failure is recorded and the corpus goes on
            _remove_project(target)
            entry.update(status="failed", quotations=0,
                         error=str(exc) if isinstance(exc, LitLensError) else f"{type(exc).__name__}: {exc}")
        tick()
