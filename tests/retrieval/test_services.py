"""Retrieval use cases on a real (short) project: index, search, evidence, criticism, training."""

from __future__ import annotations

import csv
import json

import numpy as np
import pytest

from litlens.errors import Cancelled, LitLensError, NoQuotationsWarning
from litlens.retrieval.dense import DenseEncoder
from litlens.services.retrieval import (
    build_index,
    evaluate_benchmark,
    export_evidence,
    link_criticism,
    list_claims,
    list_evidence,
    pin_evidence,
    search,
    train_retriever,
    unpin_evidence,
)
from litlens.store.project import open_project
from litlens.store.retrieval import RetrievalStore

from .conftest import ESSAY


def _counts(project):
    with open_project(project) as p:
        store = RetrievalStore(p)
        return store.candidate_count(1), store.embedding_keys(1)


def test_index_build_stores_candidates_and_vectors_once(short_project):
    info = build_index(short_project, method="dense")
    n, keys = _counts(short_project)
    assert info["candidates"] == n > 500 and keys == [info["vectors"]]
    again = build_index(short_project, method="dense")
    assert again["reused_vectors"] is True


def test_cancelled_index_build_keeps_finished_chunks_and_resumes(short_project, monkeypatch):
    import litlens.services.retrieval as retrieval

    monkeypatch.setattr(retrieval, "VECTOR_CHUNK", 200)  # several chunks on the short book
    calls = []

    def cancelled():
        calls.append(1)
        return len(calls) > 12  # cancel in the middle of the build

    with pytest.raises(Cancelled):
        build_index(short_project, method="dense", cancelled=cancelled)
    encoder = DenseEncoder()
    with open_project(short_project) as p:
        store = RetrievalStore(p)
        assert store.embedding_keys(1) == []  # no half-written final vectors
        kept = store.chunk_summary(1, encoder.cache_key)
        total = store.candidate_count(1)
    done = sum(c[0] for c in kept.values())
    assert 0 < done < total and all(c[0] == 200 for c in kept.values())
    encoded = []
    real = DenseEncoder.encode_passages

    def counting(self, texts, progress=None, cancelled=None):
        encoded.append(len(texts))
        return real(self, texts, progress, cancelled)

    monkeypatch.setattr(DenseEncoder, "encode_passages", counting)
    info = build_index(short_project, method="dense")
    assert sum(encoded) == total - done  # the resumed build encodes only what was missing
    with open_project(short_project) as p:
        store = RetrievalStore(p)
        resumed = store.embeddings(1, encoder.cache_key)
        assert store.chunk_summary(1, encoder.cache_key) == {}
    texts = [c.text for c in store_candidates(short_project)]
    fresh = real(encoder, texts[:5] + texts[-5:])
    assert info["candidates"] == total and resumed.shape[0] == total
    assert np.allclose(resumed[list(range(5)) + list(range(total - 5, total))], fresh, atol=2e-2)


def store_candidates(project):
    with open_project(project) as p:
        return RetrievalStore(p).candidates(1)


def test_build_plan_estimates_the_rest_of_the_build(short_project, monkeypatch):
    import litlens.services.retrieval as retrieval

    plan = retrieval.dense_build_plan(short_project)
    assert plan["ready"] is False and plan["done"] == 0 and plan["remaining"] == plan["passages"] > 500
    assert plan["seconds"] > 0
    build_index(short_project, method="dense")
    assert retrieval.dense_build_plan(short_project)["ready"] is True
    assert retrieval.vectors_ready(short_project)


def test_search_returns_distinct_passages_with_context(short_project):
    hits = search(short_project, "Mr. Bennet and his wife talk of Mr. Bingley, who has taken Netherfield: [MASK]",
                  method="bm25", k=10)
    assert len(hits) == 10
    spans = sorted((h.start, h.end) for h in hits)
    assert all(a_end <= b_start for (_, a_end), (b_start, _) in zip(spans, spans[1:]))  # no two overlap
    with open_project(short_project) as p:
        text = p.text(1)
    for h in hits:
        assert h.before == "" or " ".join(text[max(0, h.start - len(h.before) - 40) : h.start].split()).endswith(h.before)
        assert h.after == "" or " ".join(text[h.end : h.end + len(h.after) + 40].split()).startswith(h.after)
    assert sum(bool(h.before) for h in hits) >= 8 and sum(bool(h.after) for h in hits) >= 8


def test_search_of_a_book_with_one_paragraph_says_how_many_passages_it_has(tmp_path):
    from litlens.services.books import ingest_file
    from litlens.services.retrieval import shortfall_note

    novel = tmp_path / "one.txt"
    novel.write_text("Anne walked to the sea. The wind was cold. She thought of Wentworth and his letter.\n", encoding="utf-8")
    project = tmp_path / "one.litlens"
    with pytest.warns(NoQuotationsWarning):
        ingest_file(project, novel)
    hits = search(project, "Anne remembers Wentworth by the sea: [MASK]", method="bm25", k=10)
    assert 1 <= len(hits) <= 3
    assert "only" in shortfall_note(hits, 10)


def test_search_refuses_a_query_that_is_only_the_mask(short_project):
    with pytest.raises(LitLensError, match="only \\[MASK\\]"):
        search(short_project, " [MASK] ", method="bm25")


def test_a_query_without_mask_is_read_as_a_description():
    from litlens.services.retrieval import query_notes

    assert query_notes("Elizabeth laughs at Darcy: [MASK]") == []
    assert "description" in query_notes("Elizabeth laughs at Darcy")[0]


def test_search_finds_a_passage_with_its_chapter(short_project):
    hits = search(short_project, "Darcy coldly says Elizabeth is tolerable but not handsome enough to tempt him",
                  method="bm25", k=5)
    assert len(hits) == 5 and hits[0].rank == 1
    assert any("tolerable" in h.text for h in hits[:3])
    top = next(h for h in hits if "tolerable" in h.text)
    assert top.chapter == 3


def test_search_refuses_an_empty_query(short_project):
    with pytest.raises(LitLensError, match="query is empty"):
        search(short_project, "  ", method="bm25")


def test_pin_list_unpin_and_export(short_project, tmp_path):
    hit = search(short_project, "a single man in possession of a good fortune", method="bm25", k=1)[0]
    eid = pin_evidence(short_project, "marriage market", hit.start, hit.end, claim_text="Money drives marriage", query="q")
    assert pin_evidence(short_project, "marriage market", hit.start, hit.end) == eid  # pinning twice keeps one
    rows = list_evidence(short_project)
    assert len(rows) == 1 and rows[0]["chapter"] == 1 and "truth universally" in rows[0]["text"]
    assert list_claims(short_project) == [{"name": "marriage market", "text": "Money drives marriage", "evidence": 1}]
    out_csv, out_md = tmp_path / "ev.csv", tmp_path / "ev.md"
    assert export_evidence(short_project, out_csv) == 1
    row = next(csv.DictReader(out_csv.open(encoding="utf-8")))
    assert row["claim"] == "marriage market" and row["chapter"] == "1"
    export_evidence(short_project, out_md)
    md = out_md.read_text(encoding="utf-8")
    assert "## marriage market" in md and "Chapter 1" in md and "truth universally" in md
    unpin_evidence(short_project, eid)
    assert list_evidence(short_project) == []
    with pytest.raises(LitLensError, match="no pinned evidence"):
        unpin_evidence(short_project, eid)


def test_pin_outside_the_book_is_refused(short_project):
    with pytest.raises(LitLensError, match="outside the book"):
        pin_evidence(short_project, "c", 10, 10_000_000)


@pytest.fixture
def examples(short_project, tmp_path):
    out = tmp_path / "examples.json"
    result = link_criticism(short_project, ESSAY, out)
    return short_project, out, result


def test_link_criticism_finds_the_quotations_of_the_book(examples):
    _, out, result = examples
    # The short project holds chapters I-III: the essay's quotations from chapters 1 and 3 are found,
    # those of chapters 34 and 36 are not in this text.
    quotes = [item["quote"] for item in result["items"]]
    assert len(quotes) == 2
    assert quotes[0].strip('"').startswith("It is a truth universally acknowledged")
    assert "tolerable" in quotes[1]
    data = json.loads(out.read_text(encoding="utf-8"))
    ex = data["examples"][1]
    assert ex["left"][-1].endswith("his words fix her opinion of him for months:")
    assert ex["right"][0].startswith("The insult is small")
    assert len(ex["left"]) <= 4 and len(ex["right"]) <= 4


def test_link_criticism_output_is_accepted_by_evaluation(examples):
    _, out, _ = examples
    result = evaluate_benchmark(relic=out, method="bm25")
    assert result["metrics"]["queries"] == 2
    # The analysis around the "tolerable" quotation (Darcy, dance, overhears) puts it in the top
    # 50 of the ~1,000 windows of chapters I-III; the opening sentence's context shares no word
    # with it, so lexical ranking alone cannot find it.
    assert result["metrics"]["recall@50"] == 50.0
    assert 1 <= result["metrics"]["mean_rank"] <= 1000


def test_training_runs_on_cpu_resumes_and_loads(tmp_path, examples):
    _, out, _ = examples
    data = json.loads(out.read_text(encoding="utf-8"))
    ex = data["examples"]
    # Make a tiny real training set: more examples from the same novel (one sentence each side).
    sents = data["books"]["1"]["sentences"]
    for i in range(10, 200, 12):
        ex.append({"id": f"s{i}", "book": "1", "left": [sents[i - 1]], "right": [sents[i + 1]], "quote_start": i, "quote_len": 1})
    out.write_text(json.dumps(data), encoding="utf-8")
    model = tmp_path / "model"
    first = train_retriever(out, model, epochs=1, batch_size=4, grad_accum=2)
    assert first["epochs_run"] == 1 and (model / "checkpoint" / "state.pt").is_file()
    assert first["history"][0]["epoch"] == 0 and first["history"][1]["train_loss"] > 0
    second = train_retriever(out, model, epochs=2, batch_size=4)
    assert second["history"][-1]["epoch"] == 2 and len(second["history"]) == 3  # resumed, not restarted
    enc = DenseEncoder(str(model))
    assert enc.keeps_mask and enc.encode_queries(["x [MASK] y"]).shape == (1, 384)
    result = evaluate_benchmark(relic=out, method="dense", model=str(model))
    assert result["metrics"]["queries"] == len(ex)
