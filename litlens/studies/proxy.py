"""Proxy-task items (seed 000 §6): the analysis around a masked quotation, the true
quotation and its strongest distractors, shuffled once per item and remembered.

Input: BEIR-format data (``queries.jsonl``, ``corpus.jsonl``, ``qrels/test.tsv``); a query's
judged documents are its candidate pool, the one with a positive score is gold, and the
distractors are the pool's top-ranked non-gold documents by BM25 (k1 = 0.5, b = 0.9, the
seed's tuning) or by the dense encoder that share no text with the gold or with each other
(``litlens.studies.overlap``): the pool's passages are overlapping windows of one book.
"""

from __future__ import annotations

import csv
import io
import json
import random
import warnings
from collections.abc import Callable
from pathlib import Path

import numpy as np

from litlens.errors import DataFormatError, InputFileError, LitLensError, LitLensWarning
from litlens.studies.items import ItemBuild, Option, SkippedItem, StudyItem
from litlens.studies.overlap import RUN, first_compatible
from litlens.text.datafile import read_data_text

Progress = Callable[[float, str], None]
MASK = "[masked sentence(s)]"


def read_beir(folder: str | Path) -> tuple[dict[str, str], dict[str, str], dict[str, dict[str, int]]]:
    """(queries id → text, corpus id → text, qrels query → {doc: score}) with located errors."""
    folder = Path(folder)
    paths = {"queries": folder / "queries.jsonl", "corpus": folder / "corpus.jsonl", "qrels": folder / "qrels" / "test.tsv"}
    for name, path in paths.items():
        if not path.is_file():
            raise InputFileError(path, f"BEIR {name} file missing", "A BEIR folder holds queries.jsonl, corpus.jsonl and qrels/test.tsv")

    fix = 'Each line of a BEIR .jsonl file is an object {"_id": …, "text": …}'

    def jsonl(path: Path) -> dict[str, str]:
        out = {}
        for line_no, line in enumerate(read_data_text(path, "BEIR file", fix).split("\n"), start=1):
            if not line.strip():
                continue
            try:
                obj = json.loads(line)
                if not isinstance(obj, dict):
                    raise TypeError(f"a JSON {type(obj).__name__}, not an object")
                if not isinstance(obj["text"], str) or not isinstance(obj.get("title") or "", str):
                    raise TypeError("'text' and 'title' must be strings")
                out[str(obj["_id"])] = " ".join(x for x in (obj.get("title") or "", obj["text"]) if x).strip()
            except (ValueError, KeyError, TypeError) as exc:
                raise DataFormatError(path, line_no, f"not a BEIR record ({exc.__class__.__name__}: {exc})", fix) from exc
        return out

    queries, corpus = jsonl(paths["queries"]), jsonl(paths["corpus"])
    qrels: dict[str, dict[str, int]] = {}
    qrels_text = read_data_text(paths["qrels"], "BEIR qrels file", "A qrels file has lines query-id<TAB>corpus-id<TAB>score")
    with io.StringIO(qrels_text, newline="") as fh:
        for line_no, row in enumerate(csv.reader(fh, delimiter="\t", quoting=csv.QUOTE_NONE), start=1):
            if not row or (line_no == 1 and row[0] == "query-id"):
                continue
            if len(row) < 3:
                raise DataFormatError(paths["qrels"], line_no, "expected query-id, corpus-id, score separated by tabs")
            try:
                score = int(float(row[2]))
            except (ValueError, OverflowError) as exc:
                raise DataFormatError(paths["qrels"], line_no, f"score {row[2]!r} is not a number") from exc
            if row[1] not in corpus:
                raise DataFormatError(paths["qrels"], line_no, f"document {row[1]!r} is not in corpus.jsonl")
            qrels.setdefault(row[0], {})[row[1]] = score
    return queries, corpus, qrels


def bm25_ranker(corpus_texts: list[str]) -> Callable[[str, list[int]], np.ndarray]:
    """Scores of chosen corpus documents for a query under BM25 (k1 = 0.5, b = 0.9)."""
    try:
        from litlens.retrieval.bm25 import BM25Index  # the evidence-retrieval BM25 (issue 5)
    except ImportError:
        BM25Index = None  # noqa: N806
    if BM25Index is not None:
        index = BM25Index(corpus_texts, k1=0.5, b=0.9)

        def score(query: str, doc_ids: list[int]) -> np.ndarray:
            return np.asarray(index.scores(query))[doc_ids]

        return score
    import bm25s

    retriever = bm25s.BM25(k1=0.5, b=0.9)
    retriever.index(bm25s.tokenize(corpus_texts, stopwords="en", show_progress=False), show_progress=False)

    def score_bm25s(query: str, doc_ids: list[int]) -> np.ndarray:
        tokens = bm25s.tokenize([query], stopwords="en", show_progress=False, return_ids=False)[0]
        return np.asarray(retriever.get_scores(tokens))[doc_ids]

    return score_bm25s


def dense_ranker(corpus_texts: list[str]) -> Callable[[str, list[int]], np.ndarray]:
    try:
        from litlens.retrieval.dense import DenseEncoder
    except ImportError as exc:
        raise LitLensError(
            "dense distractors need the dense encoder of evidence retrieval (litlens.retrieval.dense), "
            "which is not installed in this version; use --distractors bm25"
        ) from exc
    encoder = DenseEncoder()
    passages = np.asarray(encoder.encode_passages(corpus_texts))

    def score(query: str, doc_ids: list[int]) -> np.ndarray:
        # RELiC marks the hidden quotation "[masked sentence(s)]"; the encoder expects [MASK] and,
        # for a query over its length limit, keeps the words around it (expected here: no warning).
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", LitLensWarning)
            q = np.asarray(encoder.encode_queries([query.replace(MASK, "[MASK]")]))[0]
        return passages[doc_ids] @ q

    return score


def proxy_items_from_beir(
    folder: str | Path,
    *,
    distractors: str = "bm25",
    per_item: int = 3,
    seed: int = 0,
    limit: int | None = None,
    progress: Progress | None = None,
) -> ItemBuild:
    """One item per query with a gold document: gold + (per_item − 1) distractors.

    The distractors are the best-ranked non-gold documents of the query's pool that share no
    sentence and no run of 8 words with the gold or with a distractor already kept (walked in
    rank order). A query whose pool cannot give enough such documents is skipped and reported.
    """
    if per_item < 2:
        raise LitLensError(f"--per-item must be at least 2 (gold and one distractor), not {per_item}")
    queries, corpus, qrels = read_beir(folder)
    doc_ids = list(corpus)
    row_of = {d: n for n, d in enumerate(doc_ids)}
    texts = [corpus[d] for d in doc_ids]
    if progress:
        progress(0.05, f"indexing {len(texts)} passages ({distractors})")
    if distractors == "bm25":
        rank = bm25_ranker(texts)
    elif distractors == "dense":
        rank = dense_ranker(texts)
    else:
        raise LitLensError(f"--distractors must be bm25 or dense, not {distractors!r}")
    build = ItemBuild()
    wanted = per_item - 1
    qids = [q for q in queries if q in qrels]
    if limit:
        qids = qids[:limit]
    for n, qid in enumerate(qids):
        judged = qrels[qid]
        gold = [d for d, s in judged.items() if s > 0]
        pool = [d for d, s in judged.items() if s <= 0]
        if not gold:
            build.skipped.append(SkippedItem(qid, "no passage of its pool is judged relevant (score > 0): no gold"))
            continue
        scores = rank(queries[qid], [row_of[d] for d in pool]) if pool else np.zeros(0)
        order = [int(i) for i in np.argsort(-scores, kind="stable")]
        kept = first_compatible([corpus[gold[0]]], ((i, corpus[pool[i]]) for i in order), wanted)
        if len(kept) < wanted:
            reason = too_few_distractors(len(kept), wanted, f"pool of {len(pool)} non-gold passages")
            build.skipped.append(SkippedItem(qid, reason))
            continue
        options = [Option(corpus[gold[0]], gold[0], True)] + [Option(corpus[pool[i]], pool[i], False) for i in kept]
        random.Random(f"{seed}:{qid}").shuffle(options)
        position = {i: r for r, i in enumerate(order, start=1)}
        build.items.append(StudyItem(qid, {"context": queries[qid], "query_id": qid, "distractors": distractors,
                                           "distractor_scores": [round(float(scores[i]), 4) for i in kept],
                                           "distractor_ranks": [position[i] for i in kept]}, options))
        if progress:
            progress(0.1 + 0.9 * (n + 1) / len(qids), f"item {n + 1} of {len(qids)}")
    return build


def too_few_distractors(found: int, wanted: int, pool: str, *, also: str = "") -> str:
    """Why an item was skipped: ``pool`` says where the candidates came from, ``also`` any further condition."""
    return (f"only {found} of the {wanted} distractors needed share {also}no sentence and no run of {RUN} words "
            f"with the gold and each other ({pool})")
