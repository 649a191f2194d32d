"""Use cases of the memorization audit (issue 38): name cloze, CSG and Min-K% on a stored book.

Each runs a probe from :mod:`litlens.audit` with a backend from :mod:`litlens.llm`, stores the
result in the project's ``audits`` table with the model and settings, and returns the JSON the
CLI prints. The CLI and the GUI both call these.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from litlens.audit import cloze, csg, mink
from litlens.audit.errors import NoEligiblePassageError
from litlens.audit.stats import MEMORISED_AT
from litlens.llm import LLMBackend, load_backend, model_label
from litlens.model import Cancelled, Progress
from litlens.services.books import resolve_book
from litlens.services.progress import sub_progress
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


def run_name_cloze(project_path: str | Path, book_id: int | None = None, *, limit: int | None = cloze.DEFAULT_LIMIT,
                   seed: int = 0, backend: str | LLMBackend = "transformers", model: str | None = None,
                   base_url: str | None = None, api_key_env: str | None = None, store: bool = True,
                   progress: Progress | None = None, cancelled: Cancelled | None = None) -> dict[str, Any]:
    """Name cloze on a stored book → ``{"passages", "accuracy", "ci", "model", "items"}``."""
    started = time.perf_counter()
    with open_project(project_path, readonly=True) as project:
        book_id = resolve_book(project, book_id)
        text = project.text(book_id)
        sentences = project.structure(book_id).sentences
        characters = [c for _, c in project.characters(book_id)]
    if progress:
        progress(0.0, "finding passages")
    items = cloze.eligible_items(text, sentences, characters, _entities)
    if not items:
        raise NoEligiblePassageError(
            f"{project_path}: book {book_id} has no passage of {cloze.MIN_WORDS}-{cloze.MAX_WORDS} words with exactly "
            "one named entity that is a one-word character name, so name cloze cannot run. Check that the book has "
            "characters (`litlens characters`), or use `litlens audit csg` or `litlens audit mink`"
        )
    chosen = cloze.pick(items, limit, seed)
    llm = backend_for(backend, model, base_url=base_url, api_key_env=api_key_env)
    result = cloze.run(llm, chosen, progress=sub_progress(progress, 0.05, 1.0), cancelled=cancelled)
    out = {"passages": result["passages"], "accuracy": result["accuracy"], "ci": result["ci"],
           "model": model_label(llm), "items": result["items"]}
    settings = {"limit": limit, "seed": seed, "eligible": len(items), "backend": _kind(llm),
                "seconds": round(time.perf_counter() - started, 1)}
    if store:
        _store(project_path, book_id, "name-cloze", out["model"], settings, out)
    return out


def run_csg(project_path: str | Path, book_id: int | None = None, *, limit: int | None = csg.DEFAULT_LIMIT,
            seed: int = 0, backend: str | LLMBackend = "transformers", model: str | None = None,
            base_url: str | None = None, api_key_env: str | None = None, store: bool = True,
            progress: Progress | None = None, cancelled: Cancelled | None = None) -> dict[str, Any]:
    """CSG on a stored book → ``{"items", "followed_text", "followed_memory", "other", "model", "details"}``."""
    started = time.perf_counter()
    with open_project(project_path, readonly=True) as project:
        book_id = resolve_book(project, book_id)
        book = project.book(book_id)
        text = project.text(book_id)
        paragraphs = project.structure(book_id).paragraphs
        quotations = [q for _, q in project.quotations(book_id)]
        characters = [c for _, c in project.characters(book_id)]
    items = csg.eligible_items(text, paragraphs, quotations, characters, seed=seed)
    if not items:
        raise NoEligiblePassageError(
            f"{project_path}: book {book_id} has no explicit quotation (\"… said NAME\") whose speaker is a male or "
            "female character named in a passage of at most "
            f"{csg.MAX_PASSAGE_WORDS} words, so CSG cannot run. Attribute speakers first (`litlens attribute`), "
            "or use `litlens audit name-cloze`"
        )
    chosen = csg.pick(items, limit, seed)
    llm = backend_for(backend, model, base_url=base_url, api_key_env=api_key_env)
    result = csg.run(llm, chosen, book_label(book), progress=progress, cancelled=cancelled)
    out = {"items": result["items"], "followed_text": result["followed_text"],
           "followed_memory": result["followed_memory"], "other": result["other"], "model": model_label(llm),
           "details": result["details"]}
    settings = {"limit": limit, "seed": seed, "eligible": len(items), "backend": _kind(llm),
                "seconds": round(time.perf_counter() - started, 1)}
    if store:
        _store(project_path, book_id, "csg", out["model"], settings, out)
    return out


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
    settings = {"k": k, "seed": seed, "chapter_tokens": chapter_tokens, "backend": _kind(llm),
                "control": str(control_file) if control_file else "shuffled",
                "seconds": round(time.perf_counter() - started, 1)}
    if store:
        _store(project_path, book_id, "mink", out["model"], settings, out)
    return out


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


def stored_audits(project_path: str | Path, book_id: int | None = None, probe: str | None = None) -> list[AuditRecord]:
    with open_project(project_path, readonly=True) as project:
        return list_audits(project, book_id, probe)


def _kind(llm: LLMBackend) -> str:
    return llm.name.split(":", 1)[0]


def _store(project_path: str | Path, book_id: int, probe: str, model: str, settings: dict, result: dict) -> None:
    with open_project(project_path) as project:
        save_audit(project, book_id, probe, model, settings, result)
