"""The Retriever facade with the real packaged encoder."""

from __future__ import annotations

import numpy as np
import pytest

from litlens.errors import LitLensError
from litlens.retrieval import dense
from litlens.retrieval.candidates import build_candidates
from litlens.retrieval.dense import PRECISION_ENV, DenseEncoder, EncoderError, resolve_precision, shared_encoder
from litlens.retrieval.retriever import Retriever
from litlens.model import Sentence

TEXTS = [
    "She is tolerable; but not handsome enough to tempt me.",
    "In vain have I struggled. It will not do. My feelings will not be repressed.",
    "Mr. Bennet was among the earliest of those who waited on Mr. Bingley.",
    "The rain fell all afternoon on the road to Meryton.",
]


@pytest.mark.parametrize("method", ["bm25", "dense", "hybrid"])
def test_retriever_finds_the_passage(method):
    r = Retriever(TEXTS, method=method, encoder=shared_encoder())
    hits = r.search("Darcy finally declares his love: [MASK] Elizabeth refuses him. His feelings were repressed in vain.", 2)
    assert hits[0].candidate == 1 and hits[0].method == method
    assert hits[0].score >= hits[1].score


def test_retriever_other_methods_share_one_lexical_index():
    dense = Retriever(TEXTS, method="dense", encoder=shared_encoder())
    first, second = dense.with_method("hybrid"), dense.with_method("bm25")
    assert first.bm25 is not None and first.bm25 is second.bm25  # built once, not per search
    assert first.search("the road to Meryton in the rain", 1)[0].candidate == 3


def test_retriever_never_returns_overlapping_windows():
    from litlens.retrieval.candidates import Candidate

    sentences = [f"Emma speaks of Harriet and Mr Elton, sentence {i}." for i in range(80)]
    text = " ".join(sentences)
    offsets, at = [], 0
    for sent in sentences:
        offsets.append((at, at + len(sent)))
        at += len(sent) + 1
    candidates = []
    for n in range(1, 6):
        for i in range(len(sentences) - n + 1):
            candidates.append(Candidate(len(candidates), 1, 0, i, n, offsets[i][0], offsets[i + n - 1][1],
                                        text[offsets[i][0] : offsets[i + n - 1][1]]))
    hits = Retriever(candidates=candidates, method="bm25").search("Emma speaks of Harriet: [MASK]", 10)
    assert len(hits) == 10
    for a in hits:
        for b in hits:
            assert a is b or a.end <= b.start or b.end <= a.start
    assert len(Retriever(candidates=candidates, method="bm25").search("Emma speaks of Harriet: [MASK]", 100)) <= 80


def test_retriever_demotes_passages_the_query_quotes():
    query = 'Darcy said "She is tolerable; but not handsome enough to tempt me" and later: [MASK] tolerable handsome'
    on = Retriever(TEXTS, method="bm25").search(query, 4)
    off = Retriever(TEXTS, method="bm25", demote_quoted=False).search(query, 4)
    assert off[0].candidate == 0 and not off[0].demoted
    assert on[-1].candidate == 0 and on[-1].demoted


def test_dense_scores_are_dot_products_of_query_and_passage_vectors():
    enc = shared_encoder()
    r = Retriever(TEXTS, method="dense", encoder=enc)
    q = enc.encode_queries(["a proposal of marriage"])[0]
    assert r.scores("a proposal of marriage") == pytest.approx(r.embeddings @ q, rel=1e-5)


def test_first_token_pooling_gives_other_vectors():
    enc = DenseEncoder(pooling="first")
    assert enc.cache_key != shared_encoder().cache_key
    v = enc.encode_passages(TEXTS[:2])
    assert v.shape == (2, 384)


def test_bfloat16_encoder_gives_almost_the_float32_vectors():
    exact = DenseEncoder(precision="fp32")
    fast = DenseEncoder(precision="bf16")
    assert (exact.precision, fast.precision) == ("fp32", "bf16")
    a, b = exact.encode_passages(TEXTS), fast.encode_passages(TEXTS)
    assert b.dtype == np.float32
    cosines = (a * b).sum(1) / (np.linalg.norm(a, axis=1) * np.linalg.norm(b, axis=1))
    assert cosines.min() > 0.999
    q = "Darcy declares his love: his feelings will not be repressed"
    assert np.argmax(a @ exact.encode_queries([q])[0]) == np.argmax(b @ fast.encode_queries([q])[0]) == 1


def test_precision_auto_uses_bfloat16_only_on_a_cpu_with_matrix_units(monkeypatch):
    monkeypatch.delenv(PRECISION_ENV, raising=False)
    monkeypatch.setattr(dense, "cpu_has_bf16_matrix_units", lambda: True)
    assert resolve_precision(None, "cpu") == "bf16"
    assert resolve_precision("auto", "cuda") == "fp32"
    monkeypatch.setattr(dense, "cpu_has_bf16_matrix_units", lambda: False)
    assert resolve_precision("auto", "cpu") == "fp32"
    monkeypatch.setenv(PRECISION_ENV, "BF16")
    assert resolve_precision(None, "cpu") == "bf16"
    assert resolve_precision("fp32", "cpu") == "fp32"  # an explicit choice beats the variable
    monkeypatch.setenv(PRECISION_ENV, "half")
    with pytest.raises(EncoderError, match="LITLENS_DENSE_PRECISION"):
        resolve_precision(None, "cpu")


def test_matrix_units_count_only_when_the_cpu_has_them_and_the_system_lets_us_use_them(monkeypatch):
    import torch

    monkeypatch.setattr(torch.cpu, "get_capabilities", lambda: {"amx_bf16": False}, raising=False)
    assert not dense.cpu_has_bf16_matrix_units()
    monkeypatch.setattr(torch.cpu, "get_capabilities", lambda: {"amx_bf16": True}, raising=False)
    monkeypatch.setattr(torch.cpu, "_init_amx", lambda: False, raising=False)  # kernel refuses
    assert not dense.cpu_has_bf16_matrix_units()
    monkeypatch.setattr(torch.cpu, "_init_amx", lambda: True, raising=False)
    assert dense.cpu_has_bf16_matrix_units()


def test_a_text_generator_is_not_accepted_as_encoder(tmp_path):
    (tmp_path / "config.json").write_text('{"model_type": "llama", "architectures": ["LlamaForCausalLM"]}')
    with pytest.raises(EncoderError, match="not an encoder"):
        DenseEncoder(str(tmp_path))


def test_a_folder_without_a_model_is_refused(tmp_path):
    with pytest.raises(EncoderError, match="cannot load"):
        DenseEncoder(str(tmp_path))


def test_unknown_method_is_refused():
    with pytest.raises(LitLensError, match="unknown method"):
        Retriever(TEXTS, method="magic")


def test_candidates_are_windows_within_a_chapter():
    text = "A. B. C. D."
    sents = [Sentence(i, 3 * i, 3 * i + 2, 0, 0 if i < 3 else 1) for i in range(4)]
    cands = build_candidates(1, text, sents)
    assert [(c.first, c.n) for c in cands] == [(0, 1), (1, 1), (2, 1), (3, 1), (0, 2), (1, 2), (0, 3)]
    assert cands[-1].text == "A. B. C." and (cands[-1].start, cands[-1].end) == (0, 8)


def test_listwise_answer_parsing_keeps_unnamed_passages_in_order():
    from litlens.retrieval.rerank import parse_ranking

    assert parse_ranking("3 > 1", 4) == [2, 0, 1, 3]
    assert parse_ranking("no idea", 3) == [0, 1, 2]
    assert parse_ranking("[2] > [2] > [9] > [1]", 3) == [1, 0, 2]


def test_rerank_with_the_packaged_llm_returns_a_permutation_of_the_head():
    from litlens.retrieval.rerank import ListwiseReranker

    reranker = ListwiseReranker.default("transformers", None, max_new_tokens=12)
    r = Retriever(TEXTS, method="rerank", reranker=reranker, rerank_top=3, encoder=shared_encoder())
    plain = Retriever(TEXTS, method="hybrid", encoder=shared_encoder()).search("Darcy [MASK] feelings", 4)
    hits = r.search("Darcy [MASK] feelings", 4)
    assert sorted(h.text for h in hits[:3]) == sorted(h.text for h in plain[:3])
    assert hits[3].text == plain[3].text and all(h.method == "rerank" for h in hits)
