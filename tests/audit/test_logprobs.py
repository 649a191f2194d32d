"""Token log-probabilities through transformers and llama.cpp agree with a plain computation."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from litlens.audit.logprobs import NoLogprobsError, TextTooShortError, token_scores
from litlens.audit.mink import lowest_mean, score_text

# Written for this test: a passage from no novel.
TEXT = ("The lighthouse keeper counted the gulls each morning and wrote their number in a green ledger, "
        "though nobody had ever asked him to, and the ledger had grown heavy with years of careful figures.")
HAS_LLAMA_CPP = importlib.util.find_spec("llama_cpp") is not None


@pytest.fixture(scope="module")
def packaged() -> Path:
    from litlens.llm import packaged_model_path

    try:
        return packaged_model_path()
    except Exception as exc:  # noqa: BLE001
        pytest.skip(f"the packaged SmolLM2 model is not installed: {exc}")


@pytest.fixture(scope="module")
def plain(packaged: Path) -> tuple[int, float]:
    """Min-K% (k=0.2) of TEXT computed directly with transformers from the packaged GGUF."""
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    tok = AutoTokenizer.from_pretrained(packaged.parent, gguf_file=packaged.name)
    model = AutoModelForCausalLM.from_pretrained(packaged.parent, gguf_file=packaged.name).eval()
    ids = tok(TEXT, add_special_tokens=False)["input_ids"]
    with torch.no_grad():
        logp = torch.log_softmax(model(torch.tensor([ids])).logits[0].float(), dim=-1)
    values = [logp[i - 1, ids[i]].item() for i in range(1, len(ids))]
    return len(values), lowest_mean(values, 0.2)


def test_logprobs_transformers_equal_a_plain_computation(packaged, plain):
    from litlens.llm import load_backend

    result = score_text(load_backend("transformers", str(packaged)), TEXT, k=0.2)
    assert result.tokens == plain[0]
    assert result.min_k == pytest.approx(plain[1], abs=0.002)
    assert result.min_k_plus_plus is not None and result.min_k_plus_plus < 0


@pytest.mark.skipif(not HAS_LLAMA_CPP, reason="needs llama-cpp-python (the gguf extra)")
def test_logprobs_llama_cpp_equal_a_plain_computation(packaged, plain):
    from litlens.llm import load_backend

    # llama.cpp scores the float32 copy of the GGUF with a float32 cache (litlens.audit.dequantise);
    # on the quantised file with its default cache it was 0.007 off here.
    result = score_text(load_backend("gguf", str(packaged)), TEXT, k=0.2)
    assert result.tokens == plain[0]
    assert result.min_k == pytest.approx(plain[1], abs=0.002)


# The opening of Moby-Dick (1851), a novel outside PDNC.
MOBY = ("Call me Ishmael. Some years ago—never mind how long precisely—having little or no money in my purse, "
        "and nothing particular to interest me on shore, I thought I would sail about a little and see the watery "
        "part of the world. It is a way I have of driving off the spleen and regulating the circulation.")


@pytest.mark.parametrize("backend", ["transformers", pytest.param("gguf", marks=pytest.mark.skipif(
    not HAS_LLAMA_CPP, reason="needs llama-cpp-python (the gguf extra)"))])
def test_logprobs_audit_mink_command_equals_plain_transformers(packaged, backend, tmp_path, capsys):
    """`litlens audit mink --text` gives the min_k of a plain transformers computation on the packaged GGUF."""
    import json

    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    from litlens.cli import main

    tok = AutoTokenizer.from_pretrained(packaged.parent, gguf_file=packaged.name)
    model = AutoModelForCausalLM.from_pretrained(packaged.parent, gguf_file=packaged.name).eval()
    ids = tok(MOBY, add_special_tokens=False)["input_ids"]
    with torch.no_grad():
        logp = torch.log_softmax(model(torch.tensor([ids])).logits[0].float(), dim=-1)
    values = sorted(logp[i - 1, ids[i]].item() for i in range(1, len(ids)))
    m = -(-len(values) // 5)  # ceil(0.2 n)
    expected = sum(values[:m]) / m

    passage = tmp_path / "moby.txt"
    passage.write_text(MOBY, encoding="utf-8")
    args = ["audit", "mink", "--text", str(passage), "--backend", backend, "--json"]
    if backend == "gguf":
        args += ["--model", str(packaged)]
    assert main(args) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["tokens"] == len(ids) - 1
    assert abs(result["min_k"] - expected) <= 0.002


def test_logprobs_long_text_is_scored_in_windows(packaged):
    from litlens.llm import load_backend

    backend = load_backend("transformers", str(packaged))
    n = backend.count_tokens(TEXT)
    whole = token_scores(backend, TEXT)
    windowed = token_scores(backend, TEXT, window=16)
    assert len(whole) == n - 1
    assert len(windowed) == n - 1 - (n - 1) // 16  # each window's first token is unscored
    assert len(token_scores(backend, TEXT, max_tokens=10)) == 9


def test_logprobs_one_token_text_is_a_clear_error(packaged):
    from litlens.llm import load_backend

    with pytest.raises(TextTooShortError, match="at least two"):
        token_scores(load_backend("transformers", str(packaged)), "The")


@pytest.fixture
def server_without_logprobs():
    """A local OpenAI-compatible HTTP server whose completions carry no log-probabilities."""
    import json
    import threading
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    class Handler(BaseHTTPRequestHandler):
        def _send(self, body: dict) -> None:
            data = json.dumps(body).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self) -> None:  # noqa: N802
            self._send({"data": [{"id": "plain-model", "context_length": 2048}]})

        def do_POST(self) -> None:  # noqa: N802
            self.rfile.read(int(self.headers.get("Content-Length", 0)))
            self._send({"choices": [{"text": " the", "logprobs": None}]})

        def log_message(self, *args) -> None:
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}/v1"
    httpd.shutdown()
    httpd.server_close()


def test_logprobs_openai_server_without_prompt_logprobs_says_so(server_without_logprobs):
    from litlens.llm import load_backend

    backend = load_backend("openai", None, base_url=server_without_logprobs)
    with pytest.raises(NoLogprobsError, match="no prompt log-probabilities.*--backend transformers or gguf"):
        token_scores(backend, TEXT)


def test_logprobs_one_token_late_is_told_from_aligned_prompt_logprobs():
    from litlens.audit.logprobs import one_token_late

    tokens = ["The", " cat", " sat", " on", " the", " mat", " and", " the", " dog", " slept", "."]
    aligned = [None] + [{tok: -0.5, " the": -2.0} for tok in tokens[1:]]
    late = [None] + [{nxt: -0.5, tok: -6.0} for tok, nxt in zip(tokens[1:], tokens[2:] + ["\n"])]
    assert not one_token_late(tokens, aligned)
    assert one_token_late(tokens, late)
    assert not one_token_late(tokens[:3], late[:3])  # too little evidence either way
    assert not one_token_late(tokens, [])  # a server without top log-probabilities


@pytest.mark.skipif(not HAS_LLAMA_CPP, reason="needs llama-cpp-python[server] for a real OpenAI-compatible server")
@pytest.mark.parametrize("extra,message", [
    ((), "one token late"),  # llama-cpp-python 0.3 reads each echoed token from the row after it
    (("--logits_all", "False"), "did not return the prompt's log-probabilities"),
])
def test_logprobs_real_server_that_cannot_score_is_one_line(packaged, tmp_path, extra, message):
    from litlens.llm import load_backend
    from litlens.services.audit import run_mink
    from tests.llm.conftest import LlamaServer

    passage = tmp_path / "moby.txt"
    passage.write_text(MOBY, encoding="utf-8")
    server = LlamaServer(packaged, n_ctx=1024, extra=extra).start(timeout=300)
    try:  # a long timeout: the server sorts the whole vocabulary at each echoed token, slow on a busy machine
        backend = load_backend("openai", None, base_url=server.base_url, timeout=900)
        with pytest.raises(NoLogprobsError) as error:
            run_mink(text_file=passage, backend=backend)
    finally:
        server.stop()
    text = str(error.value)
    assert "\n" not in text and message in text and "--backend" in text and "gguf" in text, text
