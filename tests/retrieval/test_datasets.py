"""BEIR and RELiC-format loading, and the errors bad files give."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from litlens.errors import DataFormatError, InputFileError
from litlens.retrieval.datasets import load_beir, load_relic


def _beir(folder: Path, *, qrels: str | None = None, corpus: str | None = None) -> Path:
    (folder / "qrels").mkdir(parents=True)
    (folder / "queries.jsonl").write_text(
        '{"_id": "q1", "text": "She said [masked sentence(s)] and left."}\n{"_id": "q2", "text": "a ball"}\n', encoding="utf-8"
    )
    (folder / "corpus.jsonl").write_text(
        corpus
        or '{"_id": "d1", "title": "", "text": "I am going."}\n{"_id": "d2", "text": "The ball."}\n{"_id": "d3", "text": "Rain."}\n',
        encoding="utf-8",
    )
    (folder / "qrels" / "test.tsv").write_text(
        qrels or "query-id\tcorpus-id\tscore\nq1\td1\t1\nq1\td3\t0\nq2\td2\t1\n", encoding="utf-8"
    )
    return folder


def test_beir_pools_are_judged_documents_when_negatives_are_judged(tmp_path):
    ds = load_beir(_beir(tmp_path / "b"))
    assert ds.queries["q1"] == "She said [MASK] and left."
    assert ds.pool("q1") == ["d1", "d3"]
    assert ds.pool("q2") == ["d1", "d2", "d3"]  # only a positive judged: the whole corpus


@pytest.mark.parametrize(
    ("qrels", "corpus", "where", "what"),
    [
        ("query-id\tcorpus-id\tscore\nq1\td1\n", None, "test.tsv:2", "3 tab-separated"),
        ("query-id\tcorpus-id\tscore\nq1\td1\tx\n", None, "test.tsv:2", "not a number"),
        ("query-id\tcorpus-id\tscore\nq1\td1\t1\nq9\td1\t1\n", None, "test.tsv:3", "q9"),
        (None, '{"_id": "d1", "text": "ok"}\n{"_id": "d2", "text": \n', "corpus.jsonl:2", "not valid JSON"),
        (None, '{"_id": "d1", "text": "ok"}\n{"_id": "d2"}\n', "corpus.jsonl:2", "'text'"),
    ],
)
def test_beir_malformed_lines_name_file_and_line(tmp_path, qrels, corpus, where, what):
    folder = _beir(tmp_path / "b", qrels=qrels, corpus=corpus)
    with pytest.raises(DataFormatError) as info:
        load_beir(folder)
    assert where in str(info.value) and what in str(info.value)


def test_beir_missing_file_is_named(tmp_path):
    folder = _beir(tmp_path / "b")
    (folder / "corpus.jsonl").unlink()
    with pytest.raises(InputFileError, match="corpus.jsonl: file is missing"):
        load_beir(folder)


def _relic(path: Path, **change) -> Path:
    ex = {"id": "e1", "book": "b", "left": ["Before."], "right": ["After."], "quote_start": 1, "quote_len": 2}
    ex.update(change)
    path.write_text(json.dumps({"books": {"b": {"sentences": ["S0.", "S1.", "S2.", "S3."]}}, "examples": [ex]}), encoding="utf-8")
    return path


def test_relic_candidates_are_every_window_of_its_book(tmp_path):
    ds = load_relic(_relic(tmp_path / "r.json"))
    assert ds.queries["e1"] == "Before. [MASK] After."
    assert ds.qrels["e1"] == {"b:1:2": 1.0}
    assert len(ds.pool("e1")) == 4 + 3 + 2 + 1  # windows of 1..4 sentences (5 would not fit)
    assert ds.corpus["b:1:2"] == "S1. S2."


def test_relic_gold_outside_the_book_is_refused(tmp_path):
    with pytest.raises(DataFormatError, match="outside its book"):
        load_relic(_relic(tmp_path / "r.json", quote_start=3, quote_len=2))
