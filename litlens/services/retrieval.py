"""Evidence retrieval use cases, shared by the CLI and the GUI.

Indexes are built once per book and stored in the project: the candidate windows, and the passage
vectors of each encoder (keyed by model + pooling). A build that is cancelled stores nothing.
"""

from __future__ import annotations

import csv
import io
import json
from dataclasses import asdict, dataclass
from pathlib import Path

from litlens.errors import InputFileError, LitLensError
from litlens.model import Cancelled, Progress
from litlens.retrieval.candidates import build_candidates
from litlens.retrieval.retriever import METHODS, Hit, Retriever
from litlens.services.books import chapter_number, resolve_book
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


def build_index(
    project_path: str | Path,
    book_id: int | None = None,
    *,
    method: str = "hybrid",
    model: str | None = None,
    progress: Progress | None = None,
    cancelled: Cancelled | None = None,
) -> dict:
    """Build (or reuse) the stored index a method needs; returns counts and what was reused."""
    _check_method(method)
    with open_project(project_path, create=False) as project:
        book_id = resolve_book(project, book_id)
        count = ensure_candidates(project, book_id, sub_progress(progress, 0.0, 0.1), cancelled)
        info = {"book": book_id, "candidates": count, "vectors": None, "reused_vectors": False}
        if method == "bm25":
            if progress:
                progress(1.0, "BM25 needs no stored vectors")
            return info
        from litlens.retrieval.dense import shared_encoder

        encoder = shared_encoder(model)
        store = RetrievalStore(project)
        if store.embeddings(book_id, encoder.cache_key) is not None:
            info.update(vectors=encoder.cache_key, reused_vectors=True)
            if progress:
                progress(1.0, "passage vectors already stored")
            return info
        texts = [c.text for c in store.candidates(book_id)]
        vectors = encoder.encode_passages(texts, sub_progress(progress, 0.1, 0.98), cancelled)
        check_cancelled(cancelled, "index build")
        store.save_embeddings(book_id, encoder.cache_key, vectors)
        if progress:
            progress(1.0, f"stored {len(texts):,} passage vectors")
        info["vectors"] = encoder.cache_key
        return info


def _check_method(method: str) -> None:
    if method not in METHODS:
        raise LitLensError(f"unknown method {method!r}; choose one of {', '.join(METHODS)}")


def load_retriever(project: Project, book_id: int, method: str, model: str | None = None, *, demote_quoted: bool = True, reranker=None) -> Retriever:
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
            vectors = store.embeddings(book_id, encoder.cache_key)
            if vectors is None:
                vectors = encoder.encode_passages([c.text for c in candidates])
                store.save_embeddings(book_id, encoder.cache_key, vectors)
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
    method: str = "hybrid",
    k: int = 10,
    model: str | None = None,
    demote_quoted: bool = True,
) -> list[SearchHit]:
    _check_method(method)
    with open_project(project_path, create=False) as project:
        book_id = resolve_book(project, book_id)
        chapters = project.structure(book_id).chapters
        retriever = load_retriever(project, book_id, method, model, demote_quoted=demote_quoted)
        hits: list[Hit] = retriever.search(query, k)
        return [
            SearchHit(r + 1, h.candidate, chapter_number(chapters, h.chapter), h.start, h.end, h.text, h.score, h.method, h.demoted)
            for r, h in enumerate(hits)
        ]


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
    with open_project(project_path, create=False) as project:
        book_id = resolve_book(project, book_id)
        chapters = project.structure(book_id).chapters
        rows: list[EvidenceRow] = RetrievalStore(project).evidence(book_id, claim)
        out = []
        for r in rows:
            d = asdict(r)
            d["chapter"] = chapter_number(chapters, r.chapter)
            out.append(d)
        return out


def list_claims(project_path: str | Path, *, book_id: int | None = None) -> list[dict]:
    with open_project(project_path, create=False) as project:
        book_id = resolve_book(project, book_id)
        return [{"name": n, "text": t, "evidence": c} for n, t, c in RetrievalStore(project).claims(book_id)]


EXPORT_FORMATS = ("csv", "md")


def render_evidence(rows: list[dict], fmt: str, title: str = "") -> str:
    if fmt == "csv":
        buffer = io.StringIO()
        writer = csv.writer(buffer, lineterminator="\n")
        writer.writerow(["claim", "claim_text", "chapter", "start", "end", "quotation", "query", "method", "score"])
        for r in rows:
            writer.writerow([r["claim"], r["claim_text"], r["chapter"], r["start"], r["end"], r["text"], r["query"], r["method"], r["score"]])
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
    with open_project(project_path, create=False) as project:
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
    with open_project(project_path, create=False) as project:
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
