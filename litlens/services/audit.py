"""Use cases of the memorization audit (issue 38): name cloze, CSG and Min-K% on a stored book.

Each runs a probe from :mod:`litlens.audit` with a backend from :mod:`litlens.llm`, stores the
result in the project's ``audits`` table with the model and settings, and returns the JSON the
CLI prints. The CLI and the GUI both call these.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from litlens.audit import cloze, csg, mink
from litlens.audit.errors import NoEligiblePassageError
from litlens.audit.stats import MEMORISED_AT
from litlens.llm import LLMBackend, load_backend, model_label
from litlens.model import Cancelled, Progress
from litlens.services.books import resolve_book
from litlens.services.progress import check_cancelled, sub_progress
from litlens.store.audits import AuditRecord, list_audits, save_audit
from litlens.store.project import BookRecord, open_project

PROBES = ("name-cloze", "csg", "mink")


def backend_for(backend: str | LLMBackend = "transformers", model: str | None = None, *, base_url: str | None = None,
                api_key_env: str | None = None) -> LLMBackend:
    if not isinstance(backend, str):
        return backend
    return load_backend(backend, model, base_url=base_url, api_key_env=api_key_env)


def book_label(book: BookRecord) -> str:
    """How the prompt names the book: its title (and author), else its file or folder name."""
    if book.title:
        return f"the novel {book.title}" + (f" by {book.author}" if book.author else "")
    source = Path(book.source_path)
    name = source.parent.name if source.name == "novel_text.txt" else source.stem
    return f"the novel {name}"


def _entities(passages: list[str]) -> list[list[tuple[int, int, str]]]:
    from litlens.text.sentences import load_nlp

    nlp = load_nlp()
    return [[(e.start_char, e.end_char, e.label_) for e in doc.ents] for doc in nlp.pipe(passages, batch_size=64)]


@dataclass(frozen=True)
class _Book:
    """What the passage probes read of a stored book."""

    id: int
    record: BookRecord
    text: str
    structure: Any
    quotations: list
    characters: list


def _read_book(project_path: str | Path, book_id: int | None) -> _Book:
    with open_project(project_path, readonly=True) as project:
        book_id = resolve_book(project, book_id)
        return _Book(book_id, project.book(book_id), project.text(book_id), project.structure(book_id),
                     [q for _, q in project.quotations(book_id)], [c for _, c in project.characters(book_id)])


def _finish(project_path: str | Path, book_id: int, probe: str, out: dict[str, Any], llm: LLMBackend,
            settings: dict[str, Any], started: float, store: bool) -> dict[str, Any]:
    """Add the backend and run time to the settings and store the run (with its model and date)."""
    settings = {**settings, "backend": _kind(llm), "seconds": round(time.perf_counter() - started, 1)}
    if store:
        _store(project_path, book_id, probe, out["model"], settings, out)
    return out


def run_name_cloze(project_path: str | Path, book_id: int | None = None, *, limit: int | None = cloze.DEFAULT_LIMIT,
                   seed: int = 0, backend: str | LLMBackend = "transformers", model: str | None = None,
                   base_url: str | None = None, api_key_env: str | None = None, store: bool = True,
                   progress: Progress | None = None, cancelled: Cancelled | None = None) -> dict[str, Any]:
    """Name cloze on a stored book → ``{"passages", "accuracy", "ci", "model", "items"}``."""
    started = time.perf_counter()
    book = _read_book(project_path, book_id)
    if progress:
        progress(0.0, "finding passages")
    items = cloze.eligible_items(book.text, book.structure.sentences, book.characters, _entities)
    if not items:
        raise NoEligiblePassageError(
            f"{project_path}: book {book.id} has no passage of {cloze.MIN_WORDS}-{cloze.MAX_WORDS} words with exactly "
            "one named entity that is a one-word character name, so name cloze cannot run. Check that the book has "
            "characters (`litlens characters`), or use `litlens audit csg` or `litlens audit mink`"
        )
    llm = backend_for(backend, model, base_url=base_url, api_key_env=api_key_env)
    result = cloze.run(llm, cloze.pick(items, limit, seed), progress=sub_progress(progress, 0.05, 1.0),
                       cancelled=cancelled)
    out = {"passages": result["passages"], "accuracy": result["accuracy"], "ci": result["ci"],
           "model": model_label(llm), "items": result["items"]}
    return _finish(project_path, book.id, "name-cloze", out, llm,
                   {"limit": limit, "seed": seed, "eligible": len(items)}, started, store)


def run_csg(project_path: str | Path, book_id: int | None = None, *, limit: int | None = csg.DEFAULT_LIMIT,
            seed: int = 0, backend: str | LLMBackend = "transformers", model: str | None = None,
            base_url: str | None = None, api_key_env: str | None = None, store: bool = True,
            progress: Progress | None = None, cancelled: Cancelled | None = None) -> dict[str, Any]:
    """CSG on a stored book → ``{"items", "followed_text", "followed_memory", "other", "model", "details"}``."""
    started = time.perf_counter()
    book = _read_book(project_path, book_id)
    items = csg.eligible_items(book.text, book.structure.paragraphs, book.quotations, book.characters, seed=seed)
    if not items:
        raise NoEligiblePassageError(
            f"{project_path}: book {book.id} has no explicit quotation (\"… said NAME\") whose speaker is a male or "
            "female character named in a passage of at most "
            f"{csg.MAX_PASSAGE_WORDS} words, so CSG cannot run. Attribute speakers first (`litlens attribute`), "
            "or use `litlens audit name-cloze`"
        )
    llm = backend_for(backend, model, base_url=base_url, api_key_env=api_key_env)
    result = csg.run(llm, csg.pick(items, limit, seed), book_label(book.record), progress=progress,
                     cancelled=cancelled)
    out = {"items": result["items"], "followed_text": result["followed_text"],
           "followed_memory": result["followed_memory"], "other": result["other"], "model": model_label(llm),
           "details": result["details"]}
    return _finish(project_path, book.id, "csg", out, llm, {"limit": limit, "seed": seed, "eligible": len(items)},
                   started, store)


def run_mink(project_path: str | Path | None = None, book_id: int | None = None, *, text_file: str | Path | None = None,
             control_file: str | Path | None = None, k: float = mink.DEFAULT_K, seed: int = 0,
             chapter_tokens: int | None = mink.DEFAULT_CHAPTER_TOKENS, backend: str | LLMBackend = "transformers",
             model: str | None = None, base_url: str | None = None, api_key_env: str | None = None,
             store: bool = True, progress: Progress | None = None, cancelled: Cancelled | None = None) -> dict[str, Any]:
    """Min-K% and Min-K%++ of a text file, or of a stored book per chapter beside a control."""
    from litlens.text.ingest import read_book

    if not 0 < k <= 1:
        raise NoEligiblePassageError(f"--k {k}: k is the share of lowest-scoring tokens, give a number in (0, 1]")
    started = time.perf_counter()
    llm = backend_for(backend, model, base_url=base_url, api_key_env=api_key_env)
    control = read_book(control_file).text if control_file else None
    if text_file is not None:
        body = read_book(text_file).text
        score = mink.score_text(llm, body, k=k)
        out = {"method": "min-k", "k": k, **score.as_dict(), "model": model_label(llm)}
        kind = "file" if control is not None else "shuffled"
        control = control if control is not None else mink.shuffled_words(body, seed)
        out["control"] = {"kind": kind, **mink.score_text(llm, control, k=k, max_tokens=score.tokens + 1).as_dict()}
        return out
    if project_path is None:
        raise NoEligiblePassageError("Min-K% needs a text: give --text FILE or -p PROJECT")
    with open_project(project_path, readonly=True) as project:
        book_id = resolve_book(project, book_id)
        text = project.text(book_id)
        chapters = project.structure(book_id).chapters
    scored = mink.score_book(llm, text, chapters, k=k, seed=seed, control_text=control, chapter_tokens=chapter_tokens,
                             progress=progress, cancelled=cancelled)
    out = {"method": "min-k", "k": k, "tokens": scored["tokens"], "min_k": scored["min_k"],
           "min_k_plus_plus": scored["min_k_plus_plus"], "model": model_label(llm),
           "control": scored["control"], "chapters": scored["chapters"]}
    settings = {"k": k, "seed": seed, "chapter_tokens": chapter_tokens,
                "control": str(control_file) if control_file else "shuffled"}
    return _finish(project_path, book_id, "mink", out, llm, settings, started, store)


def verdict(probe: str, result: dict[str, Any]) -> str:
    """One line a reader can act on."""
    if probe == "name-cloze":
        lo, hi = result["ci"]
        flag = "likely memorised" if result["accuracy"] >= MEMORISED_AT else "no sign of memorisation"
        return (f"name cloze: {result['accuracy']:.3f} of {result['passages']} passages right "
                f"(95% CI {lo:.3f}-{hi:.3f}): {flag} (flagged at >= {MEMORISED_AT:.2f})")
    if probe == "csg":
        return (f"CSG: followed the text {result['followed_text']:.3f}, memory {result['followed_memory']:.3f}, "
                f"other {result['other']:.3f} over {result['items']} quotations")
    line = f"Min-K% (k={result['k']}): {result['min_k']:.4f} over {result['tokens']} tokens"
    if result.get("min_k_plus_plus") is not None:
        line += f", Min-K%++ {result['min_k_plus_plus']:.4f}"
    control = result.get("control")
    if control:
        line += f"; control ({control['kind']}): {control['min_k']:.4f}"
        if control.get("min_k_plus_plus") is not None:
            line += f", Min-K%++ {control['min_k_plus_plus']:.4f}"
    return line


def notes(probe: str, result: dict[str, Any]) -> list[str]:
    """What a reader should know about a run beside its figures (replies that were not names)."""
    if probe == "name-cloze":
        n = len(result["items"])
        blank = sum(1 for item in result["items"] if not item["guess"])
        if blank:
            return [f"{blank} of {n} replies held no one-word proper name (a pronoun, a sentence or nothing) and were "
                    "scored as wrong" + ("; the model is not following the prompt, so the accuracy says little: "
                                          "try a larger instruct model (--model)" if 2 * blank > n else "")]
    if probe == "csg":
        n = result["items"]
        blank = sum(1 for d in result["details"] if not cloze.names_someone(d["answer"]))
        if blank:
            return [f"{blank} of {n} replies named nobody and count as \"other\""
                    + ("; the model is not following the prompt: try a larger instruct model (--model)"
                       if 2 * blank > n else "")]
    return []


def stored_audits(project_path: str | Path, book_id: int | None = None, probe: str | None = None) -> list[AuditRecord]:
    with open_project(project_path, readonly=True) as project:
        return list_audits(project, book_id, probe)


def _kind(llm: LLMBackend) -> str:
    return llm.name.split(":", 1)[0]


def _store(project_path: str | Path, book_id: int, probe: str, model: str, settings: dict, result: dict) -> None:
    with open_project(project_path) as project:
        save_audit(project, book_id, probe, model, settings, result)


@dataclass(frozen=True)
class BookAudit:
    """One book of a project as the Audit panel shows it: its speakers and its latest probe runs."""

    book_id: int
    title: str
    quotations: int  # active quotations
    with_speaker: int  # of them, with a speaker (gold, set by hand or attributed)
    attribution_methods: tuple[str, ...]  # methods with stored attributions ("cpu", "llm", …)
    latest: dict[str, AuditRecord]  # probe -> newest stored run

    @property
    def memorised(self) -> bool | None:
        """Name cloze at or above the threshold; None while name cloze has not run."""
        cloze_run = self.latest.get("name-cloze")
        return None if cloze_run is None else cloze_run.result["accuracy"] >= MEMORISED_AT

    def verdict(self) -> str:
        if self.memorised is None:
            return "not audited (run name cloze)" if self.latest else "not audited"
        return "likely memorised" if self.memorised else "no sign of memorisation"

    def speakers(self) -> str:
        methods = ", ".join(self.attribution_methods) if self.attribution_methods else "none stored"
        return f"{self.with_speaker:,} of {self.quotations:,} quotations with a speaker (attributions: {methods})"


def audit_overview(project_path: str | Path) -> list[BookAudit]:
    """Every book of the project with its speaker attributions and its newest run of each probe."""
    from litlens.store.attribution import attribution_methods

    with open_project(project_path, readonly=True) as project:
        rows = []
        for book in project.books():
            total, given = project.conn.execute(
                "SELECT COUNT(*), COALESCE(SUM(speaker IS NOT NULL AND speaker != ''), 0) FROM quotations"
                " WHERE book_id = ? AND status = 'active'", (book.id,)).fetchone()
            latest: dict[str, AuditRecord] = {}
            for record in list_audits(project, book.id):  # newest first
                latest.setdefault(record.probe, record)
            title = book_label(book).removeprefix("the novel ")
            rows.append(BookAudit(book.id, title, int(total), int(given), tuple(attribution_methods(project, book.id)),
                                  latest))
        return rows


PROBE_TITLES = {"name-cloze": "name cloze", "csg": "CSG", "mink": "Min-K%"}


def run_audit(project_path: str | Path, book_id: int | None = None, probes: tuple[str, ...] | list[str] = PROBES, *,
              limit: int | None = cloze.DEFAULT_LIMIT, seed: int = 0, chapter_tokens: int | None = mink.DEFAULT_CHAPTER_TOKENS,
              backend: str | LLMBackend = "transformers", model: str | None = None, base_url: str | None = None,
              api_key_env: str | None = None, progress: Progress | None = None,
              cancelled: Cancelled | None = None) -> dict[str, Any]:
    """Several probes on one book with one loaded model, each stored as it ends (the Audit panel's run).

    A probe that cannot run on this book (no eligible passage, no log-probabilities) does not stop
    the others: its one-line reason is returned under ``"errors"``. Cancelling stops the run;
    the probes that ended before stay stored.
    """
    from litlens.errors import Cancelled as CancelledError, LitLensError

    unknown = [p for p in probes if p not in PROBES]
    if unknown or not probes:
        raise NoEligiblePassageError(f"probes {unknown or '(none)'}: choose among {', '.join(PROBES)}")
    if progress:
        progress(0.0, "loading the model")
    llm = backend_for(backend, model, base_url=base_url, api_key_env=api_key_env)
    results: dict[str, Any] = {}
    errors: dict[str, str] = {}
    share = 1.0 / len(probes)
    for n, probe in enumerate(probes):
        check_cancelled(cancelled, "memorization audit")
        part = sub_progress(progress, n * share, (n + 1) * share)
        step = (lambda f, m, title=PROBE_TITLES[probe], part=part: part(f, f"{title}: {m}")) if part else None
        try:
            if probe == "name-cloze":
                results[probe] = run_name_cloze(project_path, book_id, limit=limit, seed=seed, backend=llm,
                                                progress=step, cancelled=cancelled)
            elif probe == "csg":
                results[probe] = run_csg(project_path, book_id, limit=limit, seed=seed, backend=llm, progress=step,
                                         cancelled=cancelled)
            else:
                results[probe] = run_mink(project_path, book_id, seed=seed, chapter_tokens=chapter_tokens, backend=llm,
                                          progress=step, cancelled=cancelled)
        except CancelledError:
            raise
        except LitLensError as exc:
            errors[probe] = str(exc)
    if progress:
        progress(1.0, "audit done")
    return {"model": model_label(llm), "results": results, "errors": errors}
