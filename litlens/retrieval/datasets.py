"""Retrieval benchmarks on disk: BEIR folders and RELiC-format JSON.

Both load into one :class:`RetrievalSet`: queries, candidate texts, graded judgments, and for each
query its candidate pool (the ids it is ranked against).

BEIR folder: ``queries.jsonl`` (``{"_id", "text"}`` per line), ``corpus.jsonl`` (``{"_id",
"title", "text"}``), ``qrels/test.tsv`` (header ``query-id corpus-id score``, tab-separated).
When the qrels list judged non-relevant documents (score 0) for a query, that query's pool is its
judged documents; otherwise the pool is the whole corpus.

RELiC-format JSON (what ``litlens link-criticism`` writes and ``litlens train retriever`` reads)::

    {"format": "litlens-relic/1",
     "books": {"BOOK": {"title": "...", "sentences": ["...", ...]}},
     "examples": [{"id": "...", "book": "BOOK", "left": ["sentence", ...], "right": [...],
                   "quote_start": 120, "quote_len": 2, "quote": "..."}]}

``quote_start`` is the index of the quotation's first sentence in the book's ``sentences`` and
``quote_len`` (1 to 5) the number of sentences. The candidates of an example are every window of
1 to 5 consecutive sentences of its book; the gold is the window ``(quote_start, quote_len)``.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from litlens.errors import DataFormatError, InputFileError
from litlens.text.datafile import read_data_text

MASK = "[MASK]"
MASK_VARIANTS = ("[masked sentence(s)]", "[MASKED SENTENCE(S)]", "<mask>", MASK)
MAX_WINDOW = 5


@dataclass
class RetrievalSet:
    queries: dict[str, str]
    corpus: dict[str, str]
    qrels: dict[str, dict[str, float]]
    pools: dict[str, list[str]]  # query id -> candidate ids it is ranked against
    book_of: dict[str, str] = field(default_factory=dict)  # candidate or query id -> book

    def pool(self, query_id: str) -> list[str]:
        return self.pools.get(query_id) or list(self.corpus)


def normalise_mask(text: str) -> str:
    """Replace the mask spellings of the known benchmarks by ``[MASK]``."""
    for variant in MASK_VARIANTS:
        if variant != MASK:
            text = text.replace(variant, MASK)
    return text


def _read_jsonl(path: Path, required: Sequence[str]) -> list[dict]:
    if not path.is_file():
        raise InputFileError(
            path, "file is missing", "A BEIR folder needs queries.jsonl, corpus.jsonl and qrels/test.tsv"
        )
    rows = []
    text = read_data_text(path, "BEIR file", 'Each line of a BEIR .jsonl file is an object {"_id": …, "text": …}')
    for number, line in enumerate(text.split("\n"), start=1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as exc:
            raise DataFormatError(path, number, f"not valid JSON ({exc.msg})") from None
        if not isinstance(row, dict):
            raise DataFormatError(path, number, "expected a JSON object per line")
        for key in required:
            if key not in row:
                raise DataFormatError(path, number, f"missing field {key!r}")
        if not isinstance(row["_id"], (str, int)):
            raise DataFormatError(path, number, "field '_id' must be a string")
        rows.append(row)
    if not rows:
        raise DataFormatError(path, None, "file has no rows")
    return rows


def load_beir(folder: str | Path, split: str = "test") -> RetrievalSet:
    folder = Path(folder)
    if not folder.is_dir():
        raise InputFileError(folder, "is not a folder", "Pass the BEIR folder (with queries.jsonl, corpus.jsonl, qrels/)")
    queries = {str(r["_id"]): normalise_mask(str(r["text"])) for r in _read_jsonl(folder / "queries.jsonl", ("_id", "text"))}
    corpus = {}
    for r in _read_jsonl(folder / "corpus.jsonl", ("_id", "text")):
        title = str(r.get("title") or "").strip()
        text = " ".join(str(r["text"]).split())
        corpus[str(r["_id"])] = f"{title} {text}".strip() if title else text
    qrels_path = folder / "qrels" / f"{split}.tsv"
    if not qrels_path.is_file():
        raise InputFileError(qrels_path, "file is missing", f"A BEIR folder needs qrels/{split}.tsv")
    qrels: dict[str, dict[str, float]] = {}
    qrels_text = read_data_text(qrels_path, "BEIR qrels file", "A qrels file has lines query-id<TAB>corpus-id<TAB>score")
    for number, line in enumerate(qrels_text.split("\n"), start=1):
        parts = line.rstrip("\n").split("\t")
        if not line.strip():
            continue
        if number == 1 and parts[0].strip().lower() in ("query-id", "query_id", "qid"):
            continue
        if len(parts) != 3:
            raise DataFormatError(qrels_path, number, f"expected 3 tab-separated fields (query-id, corpus-id, score), found {len(parts)}")
        qid, did, score = (p.strip() for p in parts)
        try:
            value = float(score)
        except ValueError:
            raise DataFormatError(qrels_path, number, f"score {score!r} is not a number") from None
        if qid not in queries:
            raise DataFormatError(qrels_path, number, f"query id {qid!r} is not in queries.jsonl")
        if did not in corpus:
            raise DataFormatError(qrels_path, number, f"corpus id {did!r} is not in corpus.jsonl")
        qrels.setdefault(qid, {})[did] = value
    if not qrels:
        raise DataFormatError(qrels_path, None, "no judgments found")
    pools = {
        qid: list(rel) for qid, rel in qrels.items() if any(v <= 0 for v in rel.values())
    }
    return RetrievalSet({q: queries[q] for q in qrels}, corpus, qrels, pools)


def windows(n_sentences: int, max_len: int = MAX_WINDOW) -> list[tuple[int, int]]:
    """Every (start, length) window of 1..max_len consecutive sentences."""
    return [(s, n) for n in range(1, max_len + 1) for s in range(0, n_sentences - n + 1)]


def relic_query(left: Sequence[str], right: Sequence[str], context: int = 4) -> str:
    """The query text of a RELiC example: up to ``context`` sentences each side around [MASK]."""
    left = list(left)[-context:] if context else []
    right = list(right)[:context] if context else []
    return " ".join([*left, MASK, *right])


def load_relic(path: str | Path) -> RetrievalSet:
    path = Path(path)
    data = read_relic_json(path)
    corpus: dict[str, str] = {}
    book_of: dict[str, str] = {}
    pools: dict[str, list[str]] = {}
    book_pool: dict[str, list[str]] = {}
    for book, info in data["books"].items():
        sentences = info["sentences"]
        ids = []
        for start, n in windows(len(sentences)):
            cid = f"{book}:{start}:{n}"
            corpus[cid] = " ".join(sentences[start : start + n])
            book_of[cid] = book
            ids.append(cid)
        book_pool[book] = ids
    queries, qrels = {}, {}
    for ex in data["examples"]:
        qid = str(ex["id"])
        queries[qid] = relic_query(ex["left"], ex["right"])
        qrels[qid] = {f"{ex['book']}:{ex['quote_start']}:{ex['quote_len']}": 1.0}
        pools[qid] = book_pool[ex["book"]]
        book_of[qid] = ex["book"]
    return RetrievalSet(queries, corpus, qrels, pools, book_of)


def read_relic_json(path: Path) -> dict:
    """Read and check a RELiC-format JSON file (see the module docstring)."""
    if not path.is_file():
        raise InputFileError(path, "file is missing", "Pass a RELiC-format JSON file or a BEIR folder")
    try:
        data = json.loads(read_data_text(path, "RELiC JSON file", "Pass a RELiC-format JSON file or a BEIR folder"))
    except json.JSONDecodeError as exc:
        raise DataFormatError(path, exc.lineno, f"not valid JSON ({exc.msg})") from None
    if not isinstance(data, dict) or "books" not in data or "examples" not in data:
        raise DataFormatError(path, None, "expected an object with 'books' and 'examples'", "See README, 'RELiC-format JSON'")
    if not isinstance(data["books"], dict) or not isinstance(data["examples"], list):
        raise DataFormatError(path, None, "'books' must be an object (name → book) and 'examples' a list",
                              "See README, 'RELiC-format JSON'")
    for book, info in data["books"].items():
        if not isinstance(info, dict) or not isinstance(info.get("sentences"), list) or not all(
                isinstance(x, str) for x in info["sentences"]):
            raise DataFormatError(path, None, f"book {book!r} has no 'sentences' list of strings")
    for i, ex in enumerate(data["examples"]):
        if not isinstance(ex, dict):
            raise DataFormatError(path, None, f"example {i} is a JSON {type(ex).__name__}, not an object")
        for key in ("id", "book", "left", "right", "quote_start", "quote_len"):
            if key not in ex:
                raise DataFormatError(path, None, f"example {i} has no field {key!r}")
        if not isinstance(ex["book"], str) or ex["book"] not in data["books"]:
            raise DataFormatError(path, None, f"example {i} names book {ex['book']!r}, which is not in 'books'")
        if not all(isinstance(side, list) and all(isinstance(x, str) for x in side) for side in (ex["left"], ex["right"])):
            raise DataFormatError(path, None, f"example {i}: 'left' and 'right' must be lists of sentences")
        if not all(isinstance(ex[k], int) and not isinstance(ex[k], bool) for k in ("quote_start", "quote_len")):
            raise DataFormatError(path, None, f"example {i}: 'quote_start' and 'quote_len' must be whole numbers")
        n = len(data["books"][ex["book"]]["sentences"])
        if not (1 <= int(ex["quote_len"]) <= MAX_WINDOW) or not (0 <= int(ex["quote_start"]) <= n - int(ex["quote_len"])):
            raise DataFormatError(path, None, f"example {i} has quote_start/quote_len outside its book ({n} sentences, 1 to {MAX_WINDOW} long)")
    return data
