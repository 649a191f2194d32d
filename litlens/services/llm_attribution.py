"""Use cases of LLM speaker attribution (seed 003 protocol): a project's book, and PDNC.

``attribute_book_llm`` runs the protocol on a stored book, caching each chunk's request
and answer in the project (so a killed run resumes and a re-run costs nothing) and then
saving the attributions. ``evaluate_llm`` scores the protocol on PDNC novels with the
seed's convention; its chunk answers are cached in a per-user cache project (or one the
caller names) for the same reasons.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from litlens.attribution.evaluate import (
    attribution_rows,
    gold_key,
    map_discovered_to_gold,
    pooled,
    predictions_for_gold,
    score_rows,
)
from litlens.attribution.llm_protocol import (
    DEFAULT_CHUNK_TOKENS,
    DEFAULT_STRIDE_TOKENS,
    PROMPT_VERSION,
    CandidateCharacter,
    ProtocolResult,
    QuoteRef,
    run_protocol,
    to_attributions,
)
from litlens.llm import LLMBackend, load_backend, model_label
from litlens.model import Cancelled, Character, Progress, Quotation
from litlens.quotes.pdnc import read_pdnc_characters, read_pdnc_quotations
from litlens.resources import user_data_dir
from litlens.services.evaluation import pdnc_novel_dirs
from litlens.services.progress import check_cancelled, sub_progress
from litlens.services.attribution import check_eval_inputs, select_novels
from litlens.services.books import resolve_book
from litlens.store.attribution import save_attributions
from litlens.store.llm_cache import ProjectChunkCache
from litlens.store.project import open_project



def default_eval_cache() -> Path:
    """The per-user project that caches evaluation chunk answers."""
    return user_data_dir() / "llm_eval_cache.litlens"


def _backend(backend: str | LLMBackend, model: str | None, base_url: str | None, api_key_env: str | None, options: dict) -> LLMBackend:
    if not isinstance(backend, str):
        return backend
    return load_backend(backend, model, base_url=base_url, api_key_env=api_key_env, **options)


def method_name(backend: LLMBackend) -> str:
    return f"llm:{model_label(backend)}"


def candidates_from(characters: Sequence[Character], ids: Sequence[str] | None = None) -> list[CandidateCharacter]:
    """Candidate characters for the prompt; ``ids`` defaults to each character's source id or name."""
    out = []
    for i, c in enumerate(characters):
        cid = ids[i] if ids is not None else (c.source_id or c.name)
        out.append(CandidateCharacter(str(cid), c.name, tuple(c.aliases)))
    return out


def quote_refs(quotations: Sequence[Quotation], ids: Sequence[str]) -> list[QuoteRef]:
    return [QuoteRef(str(i), tuple((int(s), int(e)) for s, e in q.spans)) for q, i in zip(quotations, ids) if q.spans]


def _chapter_spans(text: str) -> list[tuple[int, int]]:
    from litlens.text.chapters import find_chapters
    from litlens.text.paragraphs import find_paragraphs

    chapters = find_chapters(text, find_paragraphs(text))
    return [(c.start, c.end) for c in chapters] or [(0, len(text))]


# ---- a stored book -------------------------------------------------------------------


def attribute_book_llm(
    project_path: str | Path,
    book_id: int | None = None,
    *,
    backend: str | LLMBackend = "transformers",
    model: str | None = None,
    base_url: str | None = None,
    api_key_env: str | None = None,
    progress: Progress | None = None,
    cancelled: Cancelled | None = None,
    chunk_tokens: int = DEFAULT_CHUNK_TOKENS,
    stride_tokens: int = DEFAULT_STRIDE_TOKENS,
    batch_size: int = 2,
    backend_options: dict[str, Any] | None = None,
) -> dict:
    """Attribute every quotation of a stored book with an LLM and save the attributions.

    Returns a summary dict: book id, method, counts of quotations attributed / unmapped,
    chunks answered from the cache vs asked, elapsed seconds and notes. Raises
    :class:`~litlens.errors.Cancelled` when cancelled (answers so far stay cached; stored
    attributions are unchanged) and the backend's typed errors (server down, timeout, out
    of memory) after caching everything answered before them.
    """
    started = time.perf_counter()
    report = progress or (lambda f, m: None)
    report(0.0, "loading the model")
    llm = _backend(backend, model, base_url, api_key_env, dict(backend_options or {}))
    check_cancelled(cancelled, "LLM attribution")
    method = method_name(llm)
    with open_project(project_path, create=False) as project:
        bid = resolve_book(project, book_id)
        text = project.text(bid)
        chapters = [(c.start, c.end) for c in project.structure(bid).chapters] or [(0, len(text))]
        candidates = [CandidateCharacter(str(cid), ch.name, tuple(ch.aliases)) for cid, ch in project.characters(bid)]
        refs = [QuoteRef(str(qid), tuple((int(s), int(e)) for s, e in q.spans)) for qid, q in project.quotations(bid) if q.spans]
        if not refs:
            return {
                "book_id": bid,
                "method": method,
                "quotations": 0,
                "attributed": 0,
                "notes": ["the book has no quotations to attribute"],
                "seconds": round(time.perf_counter() - started, 2),
            }
        result = run_protocol(
            llm,
            text,
            chapters,
            refs,
            candidates,
            cache=ProjectChunkCache(project, book_id=bid),
            chunk_tokens=chunk_tokens,
            stride_tokens=stride_tokens,
            batch_size=batch_size,
            meta={"book_id": bid},
            progress=sub_progress(progress, 0.02, 0.97),
            cancelled=cancelled,
        )
        report(0.98, "saving attributions")
        saved = save_attributions(project, bid, to_attributions(result, method), method)
    summary = result.summary()
    summary.update(
        {
            "book_id": bid,
            "method": method,
            "model": llm.name,
            "prompt_version": PROMPT_VERSION,
            "saved": saved,
            "seconds": round(time.perf_counter() - started, 2),
        }
    )
    stats = getattr(llm, "stats", None)
    if stats is not None:
        summary["generation"] = stats.as_dict()
    report(1.0, "done")
    return summary


# ---- PDNC evaluation -----------------------------------------------------------------


def evaluate_llm(
    pdnc_dir: str | Path,
    *,
    novels: str | Sequence[str] | None = None,
    quotes: str = "gold",
    characters: str = "gold",
    backend: str | LLMBackend = "transformers",
    model: str | None = None,
    base_url: str | None = None,
    api_key_env: str | None = None,
    progress: Progress | None = None,
    cancelled: Cancelled | None = None,
    cache_path: str | Path | None = None,
    chunk_tokens: int = DEFAULT_CHUNK_TOKENS,
    stride_tokens: int = DEFAULT_STRIDE_TOKENS,
    batch_size: int = 2,
    backend_options: dict[str, Any] | None = None,
) -> dict:
    """Run the protocol on PDNC novels and score it with the seed's convention.

    Returns ``{"novels": {NAME: scores}, "pooled": scores, "method": ..., "run": {...}}``
    where scores has ``accuracy``, ``explicit``, ``other``, ``anaphoric``, ``implicit`` and
    ``quotations`` (only quotations whose gold speaker has at least 10 quotations in the
    novel; with detected quotations, unmatched gold ones count as wrong).
    """
    check_eval_inputs(quotes, characters)
    dirs = select_novels(pdnc_novel_dirs(pdnc_dir), novels)
    report = progress or (lambda f, m: None)
    report(0.0, "loading the model")
    llm = _backend(backend, model, base_url, api_key_env, dict(backend_options or {}))
    cache_file = Path(cache_path) if cache_path else default_eval_cache()
    per_novel: dict[str, dict] = {}
    runs: dict[str, dict] = {}
    rows_per_novel: dict[str, list] = {}
    started = time.perf_counter()
    with open_project(cache_file) as cache_project:
        for i, novel_dir in enumerate(dirs):
            check_cancelled(cancelled, "LLM evaluation")
            step = sub_progress(progress, i / len(dirs), (i + 1) / len(dirs))
            t0 = time.perf_counter()
            result, rows = _evaluate_novel(
                llm, novel_dir, quotes, characters, ProjectChunkCache(cache_project, source=f"pdnc:{novel_dir.name}"),
                chunk_tokens=chunk_tokens, stride_tokens=stride_tokens, batch_size=batch_size,
                progress=step, cancelled=cancelled,
            )
            per_novel[novel_dir.name] = score_rows(rows)
            runs[novel_dir.name] = {**result.summary(), "seconds": round(time.perf_counter() - t0, 1)}
            rows_per_novel[novel_dir.name] = rows
    out: dict[str, Any] = {
        "novels": per_novel,
        "pooled": pooled(rows_per_novel),
        "method": method_name(llm),
        "model": llm.name,
        "prompt_version": PROMPT_VERSION,
        "quotes": quotes,
        "characters": characters,
        "run": runs,
        "seconds": round(time.perf_counter() - started, 1),
    }
    stats = getattr(llm, "stats", None)
    if stats is not None:
        out["generation"] = stats.as_dict()
    report(1.0, "evaluation done")
    return out


def _evaluate_novel(
    llm: LLMBackend,
    novel_dir: Path,
    quotes: str,
    characters: str,
    cache: ProjectChunkCache,
    **kwargs: Any,
) -> tuple[ProtocolResult, list[tuple[str, bool]]]:
    """Protocol result and Part A's scoring rows ``(gold type, correct)``."""
    from litlens.text.ingest import read_book

    raw = read_book(novel_dir / "novel_text.txt")
    text = raw.text
    gold = read_pdnc_quotations(novel_dir / "quotation_info.csv")
    gold_chars = read_pdnc_characters(novel_dir / "character_info.csv")
    structure = None
    if quotes == "detected" or characters == "discovered":
        from litlens.quotes.detect import detect_quotations
        from litlens.text import build_structure

        structure = build_structure(text)
        detected = detect_quotations(text, structure.paragraphs, structure.chapters, structure.persons)
    predicted_quotes = gold if quotes == "gold" else detected
    if characters == "gold":
        cands = candidates_from(gold_chars)
    else:
        from litlens.quotes.characters import discover_characters

        found = discover_characters(text, structure.persons, detected)  # type: ignore[union-attr]
        cands = candidates_from(found, [f"d{i}" for i in range(len(found))])
    ids = [str(i) for i in range(len(predicted_quotes))]
    refs = quote_refs(predicted_quotes, ids)
    chapters = [(c.start, c.end) for c in structure.chapters] if structure is not None else _chapter_spans(text)
    result = run_protocol(
        llm, text, chapters or [(0, len(text))], refs, cands, cache=cache,
        meta={"source": cache.defaults.get("source")}, **kwargs,
    )
    # Each answer as a gold character's main name (None: no answer, not an alias, or a
    # discovered character that stands for no gold one), then the seed-003 scoring of
    # litlens.attribution.evaluate (shared with the CPU attributor).
    if characters == "gold":
        names: dict[str, str | None] = {c.id: c.name for c in cands}
    else:
        mapped = map_discovered_to_gold(found, gold_chars)
        names = {c.id: (gold_chars[g].name if g is not None else None) for c, g in zip(cands, mapped)}
    answers: list[str | None] = []
    for i in ids:
        p = result.predictions.get(i)
        answers.append(names.get(p.character_id) if p is not None and p.character_id else None)
    if quotes == "gold":
        predicted = {gold_key(q, k): answers[k] for k, q in enumerate(gold)}
    else:
        predicted = predictions_for_gold(gold, predicted_quotes, answers)
    return result, attribution_rows(gold, predicted, gold_chars)
