"""Fixtures for the LLM tests: the packaged model (session-scoped) and a real server."""

from __future__ import annotations

import importlib.util
import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

HAS_LLAMA_CPP = importlib.util.find_spec("llama_cpp") is not None
needs_llama_cpp = pytest.mark.skipif(
    not HAS_LLAMA_CPP,
    reason="needs llama-cpp-python (pip install 'litlens[gguf]' or the test extra; builds in ~8 min)",
)


@pytest.fixture(scope="session")
def packaged_gguf() -> Path:
    from litlens.llm import packaged_model_path

    try:
        return packaged_model_path()
    except Exception as exc:  # noqa: BLE001
        pytest.skip(f"the packaged SmolLM2 model is not installed: {exc}")


@pytest.fixture(scope="session")
def smol(packaged_gguf: Path):
    """The real packaged SmolLM2-135M-Instruct through transformers (loaded once)."""
    from litlens.llm import load_backend

    return load_backend("transformers", str(packaged_gguf), batch_size=2)


def story(n: int) -> tuple[str, list]:
    """A hand-built text of ``n`` paragraphs, each with one quotation, and its QuoteRefs."""
    from litlens.attribution.llm_protocol import QuoteRef

    parts, quotes, pos = [], [], 0
    for i in range(n):
        who = "Darcy" if i % 2 else "Elizabeth"
        narration = f"They walked on past the {i}th hedge, and {who} spoke. "
        speech = f"It is a fine day for the {i}th time."
        para = narration + '"' + speech + '"\n\n'
        start = pos + len(narration) + 1
        quotes.append(QuoteRef(f"q{i}", ((start, start + len(speech)),)))
        parts.append(para)
        pos += len(para)
    return "".join(parts), quotes


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class LlamaServer:
    """A real ``llama_cpp.server`` process serving the packaged GGUF on 127.0.0.1."""

    def __init__(self, model: Path, n_ctx: int = 4096, extra: tuple[str, ...] = ()):
        self.model = model
        self.n_ctx = n_ctx
        self.extra = tuple(extra)  # more server options, e.g. ("--logits_all", "False")
        self.port = free_port()
        self.proc: subprocess.Popen | None = None

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def start(self, timeout: float = 60.0) -> LlamaServer:
        cmd = [sys.executable, "-m", "llama_cpp.server", "--model", str(self.model), "--host", "127.0.0.1",
               "--port", str(self.port), "--n_ctx", str(self.n_ctx), "--verbose", "False", *self.extra]
        self.proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env={**os.environ})
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                err = self.proc.stderr.read().decode(errors="replace") if self.proc.stderr else ""
                raise RuntimeError(f"llama_cpp.server exited: {err[-500:]}")
            try:
                with urllib.request.urlopen(self.base_url + "/models", timeout=2) as r:
                    if r.status == 200:
                        return self
            except OSError:
                try:  # still starting: wait a little (returns at once if it exits)
                    self.proc.wait(timeout=0.25)
                except subprocess.TimeoutExpired:
                    pass
        self.stop()
        raise RuntimeError("llama_cpp.server did not start within the timeout")

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(timeout=10)


@pytest.fixture(scope="module")
def llama_server(packaged_gguf: Path):
    if not HAS_LLAMA_CPP:
        pytest.skip("needs llama-cpp-python[server] (the test extra) for a real OpenAI-compatible server")
    server = LlamaServer(packaged_gguf).start()
    yield server
    server.stop()
