"""Evidence retrieval use cases, shared by the CLI and the GUI.

Indexes are built once per book and stored in the project: the candidate windows, and the passage
vectors of each encoder (keyed by model + pooling). Vectors are stored a chunk at a time while they
are made, so a build that is cancelled or killed keeps its work and the next one resumes.
"""

from __future__ import annotations

import csv
import io
import json

import numpy as np
from dataclasses import asdict, dataclass
from pathlib import Path

from litlens.errors import InputFileError, LitLensError
from litlens.model import Cancelled, Progress
from litlens.retrieval.candidates import build_candidates
from litlens.retrieval.query import MASK, check_query
from litlens.retrieval.retriever import DEFAULT_METHOD, METHODS, Retriever
from litlens.services.books import chapter_label, chapter_number, resolve_book
from litlens.services.csv_cells import safe_row
from litlens.services.progress import check_cancelled, sub_progress
from litlens.store.project import Project, open_project
from litlens.store.retrieval import EvidenceRow, RetrievalStore

_RETRIEVERS: dict[tuple, Retriever] = {}  # (project path, book, model key) -> loaded index


@dataclass(frozen=True)
class SearchHit:
    rank: int
    candidate: int
    chapter: int | None  # as users count chapters
    start: int
    end: int
    text: str
    score: float
    method: str
    demoted: bool
    before: str = ""  # the sentence just before the passage (same chapter), for context
    after: str = ""  # the sentence just after it
    chapter_label: str = ""  # "51 · Vol. III, Chapter XVI", as every panel names the chapter


def ensure_candidates(project: Project, book_id: int, progress: Progress | None = None, cancelled: Cancelled | None = None) -> int:
    store = RetrievalStore(project)
    count = store.candidate_count(book_id)
    if count:
        return count
    if progress:
        progress(0.0, "building candidate passages")
    candidates = build_candidates(book_id, project.text(book_id), project.structure(book_id).sentences)
    check_cancelled(cancelled, "index build")
    store.replace_candidates(book_id, candidates)
    if progress:
        progress(1.0, f"{len(candidates):,} candidate passages")
    return len(candidates)


VECTOR_CHUNK = 512  # candidates encoded and stored together during an index build
SAMPLE_FOR_ESTIMATE = 48  # passages timed to estimate a build that has not started


def _vector_texts(store: RetrievalStore, book_id: int) -> list[str]:
    return [c.text for c in store.candidates(book_id)]


def dense_build_plan(
    project_path: str | Path,
    book_id: int | None = None,
    *,
    model: str | None = None,
    progress: Progress | None = None,
    cancelled: Cancelled | None = None,
) -> dict:
    """What a dense (or hybrid) search of the book still needs before it can run.

    ``{"ready", "passages", "done", "remaining", "seconds", "model"}``: ``seconds`` estimates the
    rest of the build on this machine, from the chunks already encoded (their measured time per
    character) or, before the first chunk, from encoding a small sample of the book's passages.
    """
    from litlens.retrieval.dense import shared_encoder

    with open_project(project_path, create=False) as project:
        book_id = resolve_book(project, book_id)
        ensure_candidates(project, book_id)
        store = RetrievalStore(project)
        total = store.candidate_count(book_id)
        if progress:
            progress(0.1, "loading the encoder")
        encoder = shared_encoder(model)
        plan = {"book": book_id, "passages": total, "model": encoder.label, "ready": False}
        if store.embeddings(book_id, encoder.cache_key) is not None:
            return plan | {"ready": True, "done": total, "remaining": 0, "seconds": 0.0}
        chunks = store.chunk_summary(book_id, encoder.cache_key)
        texts = _vector_texts(store, book_id)
    done = sum(c[0] for c in chunks.values())
    todo_chars = sum(len(texts[i]) for i in _missing(chunks, len(texts)))
    spent_chars, spent = sum(c[1] for c in chunks.values()), sum(c[2] for c in chunks.values())
    if spent_chars < 20_000:  # too little measured yet: time a sample spread over the book
        import random
        import time

        check_cancelled(cancelled, "estimate")
        if progress:
            progress(0.5, "timing a sample of passages")
        sample = random.Random(0).sample(texts, min(SAMPLE_FOR_ESTIMATE, len(texts)))
        encoder.encode_passages(sample[:4])  # warm-up: the first call pays for loading
        t = time.perf_counter()
        encoder.encode_passages(sample, cancelled=cancelled)
        spent, spent_chars = time.perf_counter() - t, max(1, sum(len(x) for x in sample))
    if progress:
        progress(1.0, "estimated")
    return plan | {"done": done, "remaining": total - done, "seconds": round(todo_chars * spent / max(spent_chars, 1), 1)}


def _missing(chunks: dict[int, tuple[int, int, float]], total: int) -> list[int]:
    have = set()
    for start, (count, _, _) in chunks.items():
        have.update(range(start, start + count))
    return [i for i in range(total) if i not in have]


def _ensure_vectors(project: Project, book_id: int, encoder, progress: Progress | None, cancelled: Cancelled | None):
    """The book's passage vectors for ``encoder``, encoding only what no earlier build stored.

    Vectors are stored a chunk of :data:`VECTOR_CHUNK` candidates at a time, each in its own
    transaction, so a cancel, a crash or a kill keeps every finished chunk; the last chunk
    joins them into one stored array.
    """
    import time

    store = RetrievalStore(project)
    vectors = store.embeddings(book_id, encoder.cache_key)
    if vectors is not None:
        return vectors, True
    texts = _vector_texts(store, book_id)
    chunks = store.chunk_summary(book_id, encoder.cache_key)
    starts = [s for s in range(0, len(texts), VECTOR_CHUNK) if s not in chunks]
    done = sum(c[0] for c in chunks.values())
    if progress and done:
        progress(done / max(len(texts), 1), f"resuming: {done:,} of {len(texts):,} passage vectors already stored")
    for start in starts:
        check_cancelled(cancelled, "index build")
        part = texts[start : start + VECTOR_CHUNK]
        base = done

        def report(fraction: float, _message: str, base: int = base, n: int = len(part)) -> None:
            if progress:
                made = base + int(fraction * n)
                progress(made / len(texts), f"encoded {made:,} of {len(texts):,} passages")

        t = time.perf_counter()
        vectors = encoder.encode_passages(part, report, cancelled)
        store.save_chunk(book_id, encoder.cache_key, start, vectors, sum(len(x) for x in part), time.perf_counter() - t)
        done += len(part)
    if not texts:
        return np.zeros((0, encoder.dimension), dtype=np.float32), False
    return store.finish_embeddings(book_id, encoder.cache_key, len(texts)), False


def build_index(
    project_path: str | Path,
    book_id: int | None = None,
    *,
    method: str = "hybrid",
    model: str | None = None,
    progress: Progress | None = None,
    cancelled: Cancelled | None = None,
) -> dict:
    """Build (or reuse, or resume) the stored index a method needs; returns counts and what was reused."""
    _check_method(method)
    with open_project(project_path, create=False) as project:
        book_id = resolve_book(project, book_id)
        count = ensure_candidates(project, book_id, sub_progress(progress, 0.0, 0.05), cancelled)
        info = {"book": book_id, "candidates": count, "vectors": None, "reused_vectors": False}
        if method == "bm25":
            if progress:
                progress(1.0, "BM25 needs no stored vectors")
            return info
        from litlens.retrieval.dense import shared_encoder

        encoder = shared_encoder(model)
        _, reused = _ensure_vectors(project, book_id, encoder, sub_progress(progress, 0.05, 1.0), cancelled)
        if progress:
            progress(1.0, "passage vectors already stored" if reused else f"stored {count:,} passage vectors")
        info.update(vectors=encoder.cache_key, reused_vectors=reused)
        return info


def vectors_ready(project_path: str | Path, book_id: int | None = None, *, model: str | None = None) -> bool:
    """True when a dense or hybrid search of the book can run without building anything."""
    from litlens.retrieval.dense import shared_encoder

    with open_project(project_path, create=False) as project:
        book_id = resolve_book(project, book_id)
        key = shared_encoder(model).cache_key
        return RetrievalStore(project).embeddings(book_id, key) is not None


def _check_method(method: str) -> None:
    if method not in METHODS:
        raise LitLensError(f"unknown method {method!r}; choose one of {', '.join(METHODS)}")


def load_retriever(project: Project, book_id: int, method: str, model: str | None = None, *, demote_quoted: bool = True,
                   reranker=None, progress: Progress | None = None, cancelled: Cancelled | None = None) -> Retriever:
    key = (str(Path(project.path).resolve()), book_id, None if method == "bm25" else (model or ""))
    base = _RETRIEVERS.get(key)
    store = RetrievalStore(project)
    if base is None or len(base) != store.candidate_count(book_id):
        ensure_candidates(project, book_id)
        candidates = store.candidates(book_id)
        if method == "bm25":
            base = Retriever(candidates=candidates, method="bm25")
        else:
            from litlens.retrieval.dense import shared_encoder

            encoder = shared_encoder(model)
            vectors, _ = _ensure_vectors(project, book_id, encoder, progress, cancelled)
            base = Retriever(candidates=candidates, method="dense", encoder=encoder, embeddings=vectors)
        _RETRIEVERS[key] = base
    if method == "rerank" and reranker is None:
        from litlens.retrieval.rerank import ListwiseReranker

        reranker = ListwiseReranker.default()
    retriever = base.with_method(method)
    retriever.demote_quoted = demote_quoted
    retriever.reranker = reranker
    return retriever


def search(
    project_path: str | Path,
    query: str,
    *,
    book_id: int | None = None,
    method: str = DEFAULT_METHOD,
    k: int = 10,
    model: str | None = None,
    demote_quoted: bool = True,
    progress: Progress | None = None,
    cancelled: Cancelled | None = None,
) -> list[SearchHit]:
    """The ``k`` best passages for ``query``, no two overlapping, each with a sentence of context
    on either side. A dense or hybrid search first builds (or resumes) the book's vectors."""
    _check_method(method)
    check_query(query)
    with open_project(project_path, create=False) as project:
        book_id = resolve_book(project, book_id)
        structure = project.structure(book_id)
        text = project.text(book_id)
        retriever = load_retriever(project, book_id, method, model, demote_quoted=demote_quoted,
                                   progress=progress, cancelled=cancelled)
        by_id = {c.id: c for c in retriever.candidates}
        sentences = sorted(structure.sentences, key=lambda s: s.index)
        position = {s.index: n for n, s in enumerate(sentences)}

        def neighbour(c, step: int) -> str:
            n = position.get(c.first if step < 0 else c.first + c.n - 1)
            if n is None or not 0 <= n + step < len(sentences):
                return ""
            other = sentences[n + step]
            return " ".join(text[other.start : other.end].split()) if other.chapter == c.chapter else ""

        out = []
        for r, h in enumerate(retriever.search(query, k)):
            c = by_id[h.candidate]
            out.append(SearchHit(r + 1, h.candidate, chapter_number(structure.chapters, h.chapter), h.start, h.end, h.text,
                                 h.score, h.method, h.demoted, neighbour(c, -1), neighbour(c, +1),
                                 chapter_label(structure.chapters, h.chapter)))
        return out


def query_notes(query: str) -> list[str]:
    """What a user should know about how a query will be read (shown beside the results)."""
    if MASK not in query:
        return ["no [MASK] in the query: it is read as a description of the passage. For a claim, put [MASK] "
                "where the quotation goes, e.g. \"Darcy's pride shows when he says [MASK]\""]
    return []


def shortfall_note(hits: list[SearchHit], k: int) -> str | None:
    if len(hits) < k:
        return f"the book has only {len(hits)} passages that do not overlap each other (asked for {k})"
    return None


# -- claims and evidence ----------------------------------------------------------------------


def pin_evidence(
    project_path: str | Path,
    claim: str,
    start: int,
    end: int,
    *,
    book_id: int | None = None,
    claim_text: str = "",
    query: str = "",
    method: str = "",
    score: float | None = None,
) -> int:
    """Pin the passage ``[start, end)`` of the book as evidence for ``claim`` (created if new)."""
    if not claim.strip():
        raise LitLensError("the claim needs a name, e.g. --claim 'first impressions'")
    with open_project(project_path, create=False) as project:
        book_id = resolve_book(project, book_id)
        text = project.text(book_id)
        if not (0 <= start < end <= len(text)):
            raise LitLensError(f"passage {start}-{end} is outside the book (0-{len(text)}); use the offsets `litlens search` prints")
        structure = project.structure(book_id)
        from litlens.services.books import chapter_at

        store = RetrievalStore(project)
        claim_id = store.claim_id(book_id, claim.strip(), claim_text)
        passage = " ".join(text[start:end].split())
        return store.pin(claim_id, chapter_at(structure.chapters, start), start, end, passage, query, method, score)


def unpin_evidence(project_path: str | Path, evidence_id: int) -> None:
    with open_project(project_path, create=False) as project:
        if not RetrievalStore(project).unpin(evidence_id):
            raise LitLensError(f"no pinned evidence with id {evidence_id}; see `litlens evidence list`")


def list_evidence(project_path: str | Path, *, book_id: int | None = None, claim: str | None = None) -> list[dict]:
    with open_project(project_path, readonly=True) as project:
        book_id = resolve_book(project, book_id)
        chapters = project.structure(book_id).chapters
        rows: list[EvidenceRow] = RetrievalStore(project).evidence(book_id, claim)
        out = []
        for r in rows:
            d = asdict(r)
            d["chapter"] = chapter_number(chapters, r.chapter)
            d["chapter_label"] = chapter_label(chapters, r.chapter)
            out.append(d)
        return out


def list_claims(project_path: str | Path, *, book_id: int | None = None) -> list[dict]:
    with open_project(project_path, readonly=True) as project:
        book_id = resolve_book(project, book_id)
        return [{"name": n, "text": t, "evidence": c} for n, t, c in RetrievalStore(project).claims(book_id)]


EXPORT_FORMATS = ("csv", "md")


def render_evidence(rows: list[dict], fmt: str, title: str = "") -> str:
    if fmt == "csv":
        buffer = io.StringIO()
        writer = csv.writer(buffer, lineterminator="\n")
        writer.writerow(["claim", "claim_text", "chapter", "start", "end", "quotation", "query", "method", "score"])
        for r in rows:
            writer.writerow(safe_row([r["claim"], r["claim_text"], r["chapter"], r["start"], r["end"], r["text"], r["query"], r["method"], r["score"]]))
        return buffer.getvalue()
    if fmt == "md":
        lines = [f"# Evidence{': ' + title if title else ''}", ""]
        claim = None
        for r in rows:
            if r["claim"] != claim:
                claim = r["claim"]
                lines += [f"## {claim}", ""]
                if r["claim_text"]:
                    lines += [f"*{r['claim_text']}*", ""]
            where = f"Chapter {r['chapter']}" if r["chapter"] is not None else "Front matter"
            lines += [f"- {where} (characters {r['start']}–{r['end']}): “{r['text']}”"]
        return "\n".join(lines).rstrip() + "\n"
    raise LitLensError(f"unknown export format {fmt!r}; choose csv or md")


def export_evidence(project_path: str | Path, out_path: str | Path, *, fmt: str | None = None, book_id: int | None = None, claim: str | None = None) -> int:
    out_path = Path(out_path)
    fmt = fmt or ("md" if out_path.suffix.lower() in (".md", ".markdown") else "csv")
    rows = list_evidence(project_path, book_id=book_id, claim=claim)
    with open_project(project_path, readonly=True) as project:
        title = project.book(resolve_book(project, book_id)).title or ""
    text = render_evidence(rows, fmt, title)
    try:
        out_path.write_text(text, encoding="utf-8")
    except OSError as exc:
        raise InputFileError(out_path, f"cannot write ({exc.strerror})", "Choose a writable path") from None
    return len(rows)


# -- benchmarks -----------------------------------------------------------------------------------


def evaluate_benchmark(
    *,
    beir: str | Path | None = None,
    relic: str | Path | None = None,
    method: str = "hybrid",
    model: str | None = None,
    demote_quoted: bool = True,
    run_out: str | Path | None = None,
    progress: Progress | None = None,
    cancelled: Cancelled | None = None,
) -> dict:
    from litlens.retrieval.datasets import load_beir, load_relic
    from litlens.retrieval.evaluate import evaluate_retriever

    _check_method(method)
    if (beir is None) == (relic is None):
        raise LitLensError("give exactly one of --beir DIR or --relic FILE")
    data = load_beir(beir) if beir is not None else load_relic(relic)
    reranker = None
    if method == "rerank":
        from litlens.retrieval.rerank import ListwiseReranker

        reranker = ListwiseReranker.default()
    result = evaluate_retriever(
        data, method, model=model, reranker=reranker, demote_quoted=demote_quoted, progress=progress, cancelled=cancelled
    )
    if run_out is not None:
        Path(run_out).write_text(json.dumps(result.run, indent=1), encoding="utf-8")
    return {"data": str(beir or relic), **result.settings, "metrics": result.metrics}


# -- training and criticism ------------------------------------------------------------------------


def train_retriever(data: str | Path, output: str | Path, **options) -> dict:
    from litlens.retrieval.training import train_retriever as train

    return train(data, output, **options)


def link_criticism(
    project_path: str | Path,
    essay_path: str | Path,
    output: str | Path | None = None,
    *,
    book_id: int | None = None,
    min_score: float = 80.0,
) -> dict:
    """Find the essay's quotations of the book and write RELiC-format examples to ``output``."""
    from litlens.retrieval.criticism import QuotationFinder, make_examples, read_essay

    essay = read_essay(essay_path)
    with open_project(project_path, readonly=True) as project:
        book_id = resolve_book(project, book_id)
        text = project.text(book_id)
        structure = project.structure(book_id)
        sentences = [" ".join(text[s.start : s.end].split()) for s in structure.sentences]
        offsets = [(s.start, s.end) for s in structure.sentences]
        title = project.book(book_id).title or ""
        chapters = structure.chapters
    quotes = QuotationFinder(sentences, min_score).find(essay)
    examples = make_examples(essay, quotes, str(book_id), id_prefix=Path(essay_path).stem)
    from litlens.services.books import chapter_at

    for ex in examples:  # where the quotation is in the novel, for the GUI and for people
        start = offsets[ex["quote_start"]][0]
        end = offsets[ex["quote_start"] + ex["quote_len"] - 1][1]
        ex["novel_start"], ex["novel_end"] = start, end
        ex["chapter"] = chapter_number(chapters, chapter_at(chapters, start))
    data = {
        "format": "litlens-relic/1",
        "books": {str(book_id): {"title": title, "sentences": sentences}},
        "examples": examples,
        "essay": str(essay_path),
    }
    if output is not None:
        try:
            Path(output).write_text(json.dumps(data, ensure_ascii=False, indent=1), encoding="utf-8")
        except OSError as exc:
            raise InputFileError(output, f"cannot write ({exc.strerror})", "Choose a writable path") from None
    return {"quotations": len(quotes), "examples": len(examples), "output": str(output) if output else None,
            "items": [{k: ex[k] for k in ("id", "quote", "chapter", "novel_start", "novel_end", "essay_start", "essay_end")} for ex in examples]}
