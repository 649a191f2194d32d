"""The OpenAI-compatible backend against a real llama.cpp server started on 127.0.0.1."""

from __future__ import annotations

import socket
import threading
from pathlib import Path

import pytest

from litlens.attribution.llm_protocol import CandidateCharacter, MemoryCache, run_protocol
from litlens.errors import LLMError, LLMServerError, LLMTimeoutError
from litlens.llm import load_backend
from tests.llm.conftest import LlamaServer, free_port, needs_llama_cpp, story

CHARS = [
    CandidateCharacter("0", "Elizabeth Bennet", ("Elizabeth", "Lizzy")),
    CandidateCharacter("1", "Mr. Darcy", ("Darcy",)),
]


@needs_llama_cpp
def test_openai_backend_talks_to_a_real_server(llama_server: LlamaServer) -> None:
    backend = load_backend("openai", base_url=llama_server.base_url, context_window=4096)
    assert backend.name.startswith("openai:") and backend.model.endswith(".gguf")
    assert backend.count_tokens("Hello there, Mr. Darcy.") == 8  # the server's tokenizer
    assert backend.approximate_tokens is False
    answers = backend.chat([[{"role": "user", "content": "Reply with OK."}]] * 2, max_new_tokens=5)
    assert len(answers) == 2 and answers[0] == answers[1] and answers[0]
    assert backend.stats.generated_tokens > 0


@needs_llama_cpp
def test_protocol_runs_through_the_server(llama_server: LlamaServer) -> None:
    backend = load_backend("openai", base_url=llama_server.base_url, context_window=4096)
    text, quotes = story(4)
    cache = MemoryCache()
    result = run_protocol(backend, text, [(0, len(text))], quotes, CHARS, cache=cache, max_answer_tokens=80)
    assert set(result.predictions) == {q.id for q in quotes}
    assert result.backend_requests >= 1 and len(cache.records) == result.backend_requests
    assert result.chunks[0].status in {"ok", "partial", "failed"}


def test_server_down_is_a_clear_error() -> None:
    port = free_port()  # nothing listens there
    with pytest.raises(LLMServerError, match=f"127.0.0.1:{port}.*cannot reach the LLM server.*2 attempts.*--base-url"):
        load_backend("openai", base_url=f"http://127.0.0.1:{port}/v1", retries=1, backoff=0.01)


def test_a_server_that_never_answers_times_out() -> None:
    """A real TCP server that accepts connections and never replies."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(8)
    accepted: list[socket.socket] = []
    stop = threading.Event()

    def accept() -> None:
        listener.settimeout(0.2)
        while not stop.is_set():
            try:
                accepted.append(listener.accept()[0])
            except OSError:
                continue

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    try:
        port = listener.getsockname()[1]
        with pytest.raises(LLMTimeoutError, match=r"no answer within 0.3 s after 2 attempts"):
            load_backend("openai", base_url=f"http://127.0.0.1:{port}", timeout=0.3, retries=1, backoff=0.01)
    finally:
        stop.set()
        thread.join()
        for conn in accepted:
            conn.close()
        listener.close()


def test_missing_api_key_variable_is_a_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("LITLENS_TEST_KEY", raising=False)
    with pytest.raises(LLMError, match="LITLENS_TEST_KEY is not set"):
        load_backend("openai", base_url="http://127.0.0.1:9/v1", api_key_env="LITLENS_TEST_KEY")


@needs_llama_cpp
def test_server_dying_mid_run_keeps_answers_and_the_rerun_resumes(packaged_gguf: Path) -> None:
    server = LlamaServer(packaged_gguf).start()
    try:
        backend = load_backend("openai", base_url=server.base_url, context_window=4096, retries=1, backoff=0.01)
        text, quotes = story(40)
        cache = MemoryCache()

        def kill_after_first(fraction: float, message: str) -> None:
            if message.startswith("chunk 1 of"):
                server.stop()  # the server process dies between two requests

        kwargs = dict(chunk_tokens=300, stride_tokens=60, batch_size=1, max_answer_tokens=40)
        with pytest.raises(LLMServerError, match="cannot reach the LLM server"):
            run_protocol(backend, text, [(0, len(text))], quotes, CHARS, cache=cache, progress=kill_after_first, **kwargs)
        answered = len(cache.records)
        assert answered >= 1  # the chunk answered before the death is kept

        server.start()  # same port, same model
        result = run_protocol(backend, text, [(0, len(text))], quotes, CHARS, cache=cache, **kwargs)
        assert result.chunks[0].cached and not result.chunks[-1].cached
        # Every request answered before the death came from the cache, none was sent again.
        assert len(cache.records) == answered + result.backend_requests
    finally:
        server.stop()
