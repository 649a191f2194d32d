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
def test_logprobs_llama_cpp_close_to_a_plain_computation(packaged, plain):
    from litlens.llm import load_backend

    result = score_text(load_backend("gguf", str(packaged)), TEXT, k=0.2)
    assert result.tokens == plain[0]
    # llama.cpp multiplies with 8-bit quantised activations; on this text it differs from the
    # de-quantised float32 model by 0.007 nats (measured), transformers by 0.0.
    assert result.min_k == pytest.approx(plain[1], abs=0.02)


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
