"""GGUF files through llama-cpp-python (the optional ``gguf`` extra)."""

from __future__ import annotations

import atexit
import threading
import time
from pathlib import Path
from typing import Any

from litlens.errors import LLMBackendUnavailableError, LLMError, LLMModelNotFoundError, LLMNotCausalError
from litlens.llm import GenerationStats, default_model

_LOADED: dict[tuple[str, int], Any] = {}
_LOCK = threading.Lock()


def _close_all() -> None:
    # Free llama.cpp models before interpreter shutdown tears down the C bindings (which
    # otherwise prints an ignored TypeError from Llama.__del__).
    for llama in _LOADED.values():
        try:
            llama.close()
        except Exception:  # noqa: BLE001
            pass
    _LOADED.clear()


atexit.register(_close_all)


def llama_cpp_available() -> bool:
    import importlib.util

    return importlib.util.find_spec("llama_cpp") is not None


class GGUFBackend:
    """One request at a time through ``llama_cpp.Llama`` (llama.cpp batches internally)."""

    def __init__(self, llama: Any, *, name: str):
        self.llama = llama
        self.name = name
        self.context_window = int(llama.n_ctx())
        self.stats = GenerationStats()

    @classmethod
    def load(
        cls, model: str | None = None, *, n_ctx: int = 8192, n_threads: int | None = None
    ) -> GGUFBackend:
        if not llama_cpp_available():
            raise LLMBackendUnavailableError(
                "the gguf backend needs llama-cpp-python: `pip install 'litlens[gguf]'` "
                "(builds from source, about 8 minutes on 2 cores), or use --backend transformers"
            )
        path = Path(model).expanduser() if model else Path(default_model("gguf"))
        if not path.is_file():
            raise LLMModelNotFoundError(f"{path}: no such GGUF file. Check the --model path")
        with path.open("rb") as fh:
            if fh.read(4) != b"GGUF":
                raise LLMNotCausalError(f"{path}: not a GGUF file (wrong magic bytes)")
        key = (str(path.resolve()), int(n_ctx))
        with _LOCK:
            if key not in _LOADED:
                from llama_cpp import Llama

                try:
                    _LOADED[key] = Llama(
                        model_path=str(path), n_ctx=int(n_ctx), n_threads=n_threads, verbose=False
                    )
                except (ValueError, RuntimeError) as exc:
                    raise LLMError(f"{path}: llama.cpp cannot load this model ({exc})") from exc
            llama = _LOADED[key]
        return cls(llama, name=f"gguf:{path}")

    def count_tokens(self, text: str) -> int:
        return len(self.llama.tokenize(text.encode("utf-8"), add_bos=False, special=False))

    def chat(
        self,
        conversations: list[list[dict[str, str]]],
        *,
        max_new_tokens: int = 256,
        temperature: float = 0.0,
    ) -> list[str]:
        answers = []
        for conversation in conversations:
            started = time.perf_counter()
            # Evaluate every prompt from scratch: reusing the KV cache of an earlier prompt that
            # shares a prefix splits the evaluation differently, and the rounding differences were
            # enough to change a greedy answer. Same request, same answer is worth the lost reuse.
            self.llama.reset()
            out = self.llama.create_chat_completion(
                messages=conversation, max_tokens=int(max_new_tokens), temperature=float(temperature)
            )
            self.stats.seconds += time.perf_counter() - started
            usage = out.get("usage") or {}
            self.stats.calls += 1
            self.stats.requests += 1
            self.stats.prompt_tokens += int(usage.get("prompt_tokens", 0))
            self.stats.generated_tokens += int(usage.get("completion_tokens", 0))
            answers.append((out["choices"][0]["message"].get("content") or "").strip())
        return answers
