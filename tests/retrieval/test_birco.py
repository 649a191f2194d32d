"""The headline figure on BIRCO-RELiC dev (skips without ../shared)."""

from __future__ import annotations

import json

import pytest

from litlens.cli import main
from litlens.retrieval.datasets import load_beir
from litlens.retrieval.evaluate import evaluate_retriever


def test_bm25_reaches_the_target_on_birco_dev(birco_dir):
    data = load_beir(birco_dir)
    assert len(data.queries) == 30 and all(len(data.pool(q)) > 30 for q in data.queries)
    with_demotion = evaluate_retriever(data, "bm25").metrics
    without = evaluate_retriever(data, "bm25", demote_quoted=False).metrics
    assert with_demotion["ndcg@10"] >= 25.0  # random ordering gives about 9
    assert with_demotion["ndcg@10"] >= without["ndcg@10"]


def test_cli_eval_retrieval_writes_the_run(birco_dir, tmp_path, capsys):
    run = tmp_path / "run.json"
    assert main(["eval", "retrieval", "--beir", str(birco_dir), "--method", "bm25", "--json", "--run-out", str(run)]) == 0
    result = json.loads(capsys.readouterr().out)
    for key in ("recall@1", "recall@3", "recall@5", "recall@10", "recall@50", "recall@100", "mean_rank", "mrr", "ndcg@10"):
        assert key in result["metrics"]
    ranking = json.loads(run.read_text(encoding="utf-8"))
    assert len(ranking) == 30 and all(len(v) > 30 for v in ranking.values())


@pytest.mark.slow
@pytest.mark.filterwarnings("ignore::litlens.retrieval.dense.QueryTruncatedWarning")  # long BIRCO queries are cut around [MASK]
def test_hybrid_adds_lexical_evidence_to_the_dense_encoder_on_birco_dev(birco_dir):
    data = load_beir(birco_dir)
    hybrid = evaluate_retriever(data, "hybrid").metrics["ndcg@10"]
    dense = evaluate_retriever(data, "dense").metrics["ndcg@10"]
    # Measured 26.7 against 20.1. Hybrid stays below BM25 at every fusion weight, held-out too
    # (docs/retrieval.md: 32.0 against 35.3), so BM25 is the default.
    assert hybrid >= dense + 3.0


def test_cli_reports_a_malformed_beir_folder(tmp_path, capsys):
    (tmp_path / "b" / "qrels").mkdir(parents=True)
    (tmp_path / "b" / "queries.jsonl").write_text('{"_id": "q", "text": "t"}\n{oops\n')
    (tmp_path / "b" / "corpus.jsonl").write_text('{"_id": "d", "text": "t"}\n')
    (tmp_path / "b" / "qrels" / "test.tsv").write_text("q\td\t1\n")
    assert main(["eval", "retrieval", "--beir", str(tmp_path / "b"), "--method", "bm25"]) == 2
    assert "queries.jsonl:2: not valid JSON" in capsys.readouterr().err
