"""The LLM stage of ``litlens batch`` inside Ray: ``ray.data.llm`` with vLLM on the cluster's GPUs.

``litlens batch ... --attribute llm --backend vllm --model M`` runs the seed-003 protocol with
the model M loaded by vLLM engines that Ray Data places on the cluster's GPU nodes (the
optional ``litlens[cluster]`` extra: ``ray[data,llm]``, which brings vLLM). The CPU stage
(ingest, quotations, characters) runs as Ray tasks first; then each book's chunks go through a
``ray.data.llm`` processor, one Ray Data pass per wave of the protocol (the n-th chunk of every
chapter), so a book's requests and answers are those the one-book CLI sends to a ``vllm serve``
of the same model (``litlens attribute --method llm --backend openai``).

Nothing here imports Ray or vLLM at module level; :func:`require_vllm` and
:func:`require_gpus` say in one line what is missing before any book is processed.
"""

from __future__ import annotations

import importlib.util
import time
from typing import Any

from litlens.errors import LitLensError
from litlens.llm import GenerationStats

DEFAULT_MAX_MODEL_LEN = 8192  # the protocol's 4,096-token chunks, the character list and the answer
DEFAULT_ENGINE_BATCH = 64  # requests per batch handed to one vLLM engine


def require_vllm() -> None:
    """Raise a one-line error unless vLLM and Ray's LLM module can be imported here."""
    missing = [name for name in ("vllm", "aiohttp") if importlib.util.find_spec(name) is None]
    if missing:
        raise LitLensError(
            "--backend vllm runs the model inside Ray with vLLM (ray.data.llm), which is not installed here "
            f"({', '.join(missing)} missing): install the cluster extra on every node "
            "(pip install 'litlens[cluster]', Linux with NVIDIA GPUs), or serve the model with `vllm serve` "
            "and pass --backend openai --base-url URL --model M"
        )


def cluster_gpus() -> int:
    """GPUs in the Ray cluster this process is connected to."""
    import ray

    return int(ray.cluster_resources().get("GPU", 0))


def require_gpus() -> int:
    """The cluster's GPU count; a one-line error when it has none."""
    gpus = cluster_gpus()
    if gpus < 1:
        raise LitLensError(
            "--backend vllm needs GPUs in the Ray cluster, and this one has none: join a cluster with GPU "
            "nodes (--address HEAD:6379), or serve the model elsewhere and pass --backend openai --base-url URL --model M"
        )
    return gpus


def vllm_processor_options(
    model: str,
    *,
    gpus: int,
    max_model_len: int = DEFAULT_MAX_MODEL_LEN,
    batch_size: int = DEFAULT_ENGINE_BATCH,
    tensor_parallel_size: int = 1,
) -> dict[str, Any]:
    """Keyword arguments of ``ray.data.llm.vLLMEngineProcessorConfig`` for the protocol.

    One engine replica per ``tensor_parallel_size`` GPUs (all the cluster's GPUs in use);
    the chat template, tokenisation and detokenisation stages on; prefix caching on, since
    overlapping chunks of one chapter share their character list and instructions.
    """
    if not model:
        raise LitLensError("--backend vllm needs --model: a Hugging Face model id or a folder every GPU node can read")
    if tensor_parallel_size < 1 or gpus < tensor_parallel_size:
        raise LitLensError(f"tensor parallel size {tensor_parallel_size} does not fit the cluster's {gpus} GPU(s)")
    return {
        "model_source": model,
        "engine_kwargs": {
            "max_model_len": max_model_len,
            "tensor_parallel_size": tensor_parallel_size,
            "enable_prefix_caching": True,
            "enable_chunked_prefill": True,
        },
        "concurrency": max(1, gpus // tensor_parallel_size),
        "batch_size": batch_size,
        "chat_template_stage": {"enabled": True},
        "tokenize_stage": {"enabled": True},
        "detokenize_stage": {"enabled": True},
    }


class _Preprocess:
    """A row ``{"row", "messages"}`` as the processor's input: messages and sampling settings."""

    def __init__(self, max_new_tokens: int, temperature: float):
        self.sampling = {"max_tokens": int(max_new_tokens), "temperature": float(temperature)}

    def __call__(self, row: dict) -> dict:
        return {"row": row["row"], "messages": row["messages"], "sampling_params": dict(self.sampling)}


def _postprocess(row: dict) -> dict:
    return {
        "row": row["row"],
        "answer": row.get("generated_text") or "",
        "prompt_tokens": int(row.get("num_input_tokens") or 0),
        "generated_tokens": int(row.get("num_generated_tokens") or 0),
    }


class RayDataVLLMBackend:
    """An :class:`~litlens.llm.LLMBackend` whose ``chat`` is one ``ray.data.llm`` pass with vLLM.

    Token counts (for chunk planning) come from the model's own tokenizer through transformers,
    as vLLM's ``/tokenize`` gives them to the OpenAI-compatible backend. Needs a connected Ray
    with GPUs and the ``cluster`` extra (checked by :func:`require_vllm` / :func:`require_gpus`).
    """

    def __init__(self, model: str, *, gpus: int, max_model_len: int = DEFAULT_MAX_MODEL_LEN,
                 batch_size: int = DEFAULT_ENGINE_BATCH):
        from transformers import AutoTokenizer

        self.name = f"vllm:{model}"
        self.context_window = max_model_len
        self.options = vllm_processor_options(model, gpus=gpus, max_model_len=max_model_len, batch_size=batch_size)
        self.stats = GenerationStats()
        self._tokenizer = AutoTokenizer.from_pretrained(model)

    def count_tokens(self, text: str) -> int:
        return len(self._tokenizer.encode(text, add_special_tokens=False))

    def chat(self, conversations: list[list[dict[str, str]]], *, max_new_tokens: int = 256,
             temperature: float = 0.0) -> list[str]:
        if not conversations:
            return []
        import ray.data
        from ray.data.llm import build_processor, vLLMEngineProcessorConfig

        started = time.perf_counter()
        processor = build_processor(vLLMEngineProcessorConfig(**self.options),
                                    preprocess=_Preprocess(max_new_tokens, temperature), postprocess=_postprocess)
        rows = processor(ray.data.from_items([{"row": i, "messages": conv} for i, conv in enumerate(conversations)])).take_all()
        answers = {int(r["row"]): r["answer"] for r in rows}
        if len(answers) != len(conversations):
            raise LitLensError(f"vLLM answered {len(answers)} of {len(conversations)} requests; see the Ray logs")
        self.stats.calls += 1
        self.stats.requests += len(conversations)
        self.stats.prompt_tokens += sum(r["prompt_tokens"] for r in rows)
        self.stats.generated_tokens += sum(r["generated_tokens"] for r in rows)
        self.stats.seconds += time.perf_counter() - started
        return [answers[i] for i in range(len(conversations))]
