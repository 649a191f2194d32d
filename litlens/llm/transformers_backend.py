"""Hugging Face ``transformers`` backend: any causal LM id, folder or GGUF file.

Loaded models are kept per process (loading the packaged GGUF de-quantises it, which takes
seconds). The packaged SmolLM2 is also saved once as a plain Hugging Face folder under the
user's model cache so later processes load it quickly.
"""

from __future__ import annotations

import json
import os
import threading
import time
from pathlib import Path
from typing import Any

from litlens.errors import (
    LLMError,
    LLMModelNotFoundError,
    LLMNotCausalError,
    LLMOutOfMemoryError,
)
from litlens.llm import PACKAGED_GGUF_NAME, GenerationStats, default_model, packaged_model_path

_LOADED: dict[tuple[str, str, str | None], tuple[Any, Any]] = {}
_LOCK = threading.Lock()


def model_cache_dir() -> Path:
    """Where converted models are kept: $LITLENS_MODEL_CACHE, else the user's cache folder.

    Not under $LITLENS_HOME: a model copy is a cache shared by every project and test run.
    """
    base = os.environ.get("LITLENS_MODEL_CACHE")
    if base:
        return Path(base)
    xdg = os.environ.get("XDG_CACHE_HOME")
    return (Path(xdg) if xdg else Path.home() / ".cache") / "litlens" / "models"


def pick_device(device: str = "auto") -> str:
    import torch

    if device != "auto":
        return device
    if torch.cuda.is_available():
        return "cuda"
    mps = getattr(torch.backends, "mps", None)
    if mps is not None and mps.is_available():
        return "mps"
    return "cpu"


def _is_oom(error: BaseException) -> bool:
    import torch

    oom = getattr(torch, "OutOfMemoryError", None) or getattr(torch.cuda, "OutOfMemoryError", None)
    if oom is not None and isinstance(error, oom):
        return True
    return isinstance(error, RuntimeError) and "out of memory" in str(error).lower()


def _check_causal_folder(folder: Path) -> None:
    config = folder / "config.json"
    if not config.is_file():
        raise LLMNotCausalError(
            f"{folder}: no config.json, so this folder is not a Hugging Face model. "
            "Point --model at a causal LM folder, a .gguf file or a model id"
        )
    try:
        data = json.loads(config.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise LLMNotCausalError(f"{config}: unreadable model config ({exc})") from exc
    archs = data.get("architectures") or []
    if archs and not any(a.endswith(("ForCausalLM", "LMHeadModel", "ForConditionalGeneration")) for a in archs):
        raise LLMNotCausalError(
            f"{folder}: the model is a {', '.join(archs)} ({data.get('model_type', '?')}), not a "
            "text-generating causal language model. Choose an instruct model such as "
            "SmolLM2-135M-Instruct or Llama-3-8B-Instruct"
        )


class TransformersBackend:
    """Batched chat generation with a local transformers model (greedy by default)."""

    def __init__(self, model: Any, tokenizer: Any, *, name: str, device: str, batch_size: int = 4):
        self.model = model
        self.tokenizer = tokenizer
        self.name = name
        self.device = device
        self.batch_size = max(1, int(batch_size))
        self.stats = GenerationStats()
        config = model.config
        window = getattr(config, "max_position_embeddings", None) or 2048
        self.context_window = int(window)

    # ---- loading ---------------------------------------------------------------------

    @classmethod
    def load(
        cls,
        model: str | None = None,
        *,
        device: str = "auto",
        quantization: str | None = None,
        batch_size: int = 4,
        cache_dir: str | os.PathLike[str] | None = None,
    ) -> TransformersBackend:
        model_ref = model or default_model("transformers")
        device = pick_device(device)
        if quantization not in (None, "8bit", "4bit"):
            raise LLMError(f"unknown quantization {quantization!r}; use 8bit, 4bit or none")
        key = (model_ref, device, quantization)
        with _LOCK:
            if key not in _LOADED:
                _LOADED[key] = _load(model_ref, device, quantization, cache_dir)
            hf_model, tokenizer = _LOADED[key]
        return cls(hf_model, tokenizer, name=f"transformers:{model_ref}", device=device, batch_size=batch_size)

    # ---- the interface ---------------------------------------------------------------

    def count_tokens(self, text: str) -> int:
        return len(self.tokenizer.encode(text, add_special_tokens=False))

    def chat(
        self,
        conversations: list[list[dict[str, str]]],
        *,
        max_new_tokens: int = 256,
        temperature: float = 0.0,
    ) -> list[str]:
        if not conversations:
            return []
        prompts = [self._render(c) for c in conversations]
        answers: list[str] = []
        batch = self.batch_size
        start = 0
        while start < len(prompts):
            chunk = prompts[start : start + batch]
            try:
                answers.extend(self._generate(chunk, max_new_tokens, temperature))
            except Exception as exc:  # noqa: BLE001 - only OOM is handled, the rest re-raised
                if not _is_oom(exc):
                    raise
                self._free_memory()
                if batch > 1:
                    batch = max(1, batch // 2)
                    self.batch_size = batch
                    continue
                raise LLMOutOfMemoryError(
                    f"{self.name}: out of memory on {self.device} even with one request at a time "
                    f"({self.count_tokens(chunk[0])} prompt tokens). Use a smaller chunk size, "
                    "--quantization 4bit (CUDA with bitsandbytes), a smaller model, or --device cpu"
                ) from exc
            start += len(chunk)
        return answers

    # ---- internals -------------------------------------------------------------------

    def _render(self, conversation: list[dict[str, str]]) -> str:
        tok = self.tokenizer
        if getattr(tok, "chat_template", None):
            return tok.apply_chat_template(conversation, tokenize=False, add_generation_prompt=True)
        # A model without a chat template: plain role-prefixed text.
        lines = [f"{m['role'].capitalize()}: {m['content']}" for m in conversation]
        return "\n\n".join(lines) + "\n\nAssistant:"

    def _generate(self, prompts: list[str], max_new_tokens: int, temperature: float) -> list[str]:
        import torch

        tok = self.tokenizer
        enc = tok(prompts, return_tensors="pt", padding=True, add_special_tokens=False)
        enc = {k: v.to(self.model.device) for k, v in enc.items()}
        kwargs: dict[str, Any] = {
            "max_new_tokens": int(max_new_tokens),
            "pad_token_id": tok.pad_token_id,
        }
        if temperature and temperature > 0:
            kwargs.update(do_sample=True, temperature=float(temperature))
        else:
            kwargs.update(do_sample=False, temperature=None, top_p=None, top_k=None)
        started = time.perf_counter()
        with torch.inference_mode():
            out = self.model.generate(**enc, **kwargs)
        elapsed = time.perf_counter() - started
        width = enc["input_ids"].shape[1]
        new = out[:, width:]
        texts = tok.batch_decode(new, skip_special_tokens=True)
        generated = 0
        eos = {tok.eos_token_id, tok.pad_token_id} - {None}
        for row in new.tolist():
            generated += sum(1 for t in row if t not in eos) or 1
        self.stats.calls += 1
        self.stats.requests += len(prompts)
        self.stats.prompt_tokens += int(enc["attention_mask"].sum())
        self.stats.generated_tokens += generated
        self.stats.seconds += elapsed
        return [t.strip() for t in texts]

    def _free_memory(self) -> None:
        import gc

        import torch

        gc.collect()
        if torch.cuda.is_available():
            torch.cuda.empty_cache()


def _packaged_copy_dir(cache_dir: str | os.PathLike[str] | None) -> Path:
    base = Path(cache_dir) if cache_dir else model_cache_dir()
    return base / "SmolLM2-135M-Instruct-hf"


def _load(model_ref: str, device: str, quantization: str | None, cache_dir: Any) -> tuple[Any, Any]:
    from transformers import AutoModelForCausalLM, AutoTokenizer
    from transformers.utils import logging as hf_logging

    hf_logging.set_verbosity_error()
    hf_logging.disable_progress_bar()

    kwargs: dict[str, Any] = {}
    if quantization:
        if device != "cuda":
            raise LLMError(
                f"{quantization} quantization needs a CUDA GPU with bitsandbytes; this machine uses "
                f"{device}. Leave --quantization out on CPU"
            )
        try:
            from transformers import BitsAndBytesConfig
            import bitsandbytes  # noqa: F401
        except ImportError as exc:
            raise LLMError(
                f"{quantization} quantization needs bitsandbytes: `pip install bitsandbytes`"
            ) from exc
        kwargs["quantization_config"] = BitsAndBytesConfig(
            load_in_8bit=quantization == "8bit", load_in_4bit=quantization == "4bit"
        )
        kwargs["device_map"] = "auto"

    path = Path(model_ref).expanduser()
    packaged = path.name == PACKAGED_GGUF_NAME and path.is_file() and path == packaged_model_path()
    try:
        if packaged:
            copy = _packaged_copy_dir(cache_dir)
            if (copy / "config.json").is_file() and (copy / "model.safetensors").is_file():
                tokenizer = AutoTokenizer.from_pretrained(copy)
                model = AutoModelForCausalLM.from_pretrained(copy, **kwargs)
            else:
                tokenizer = AutoTokenizer.from_pretrained(path.parent, gguf_file=path.name)
                model = AutoModelForCausalLM.from_pretrained(path.parent, gguf_file=path.name, **kwargs)
                _save_plain_copy(model, tokenizer, copy)
        elif path.suffix == ".gguf":
            if not path.is_file():
                raise LLMModelNotFoundError(f"{path}: no such GGUF file. Check the --model path")
            tokenizer = AutoTokenizer.from_pretrained(path.parent, gguf_file=path.name)
            model = AutoModelForCausalLM.from_pretrained(path.parent, gguf_file=path.name, **kwargs)
        elif path.exists() or model_ref.startswith((".", "/", "~")):
            if not path.exists():
                raise LLMModelNotFoundError(f"{path}: no such model folder. Check the --model path")
            if path.is_file():
                raise LLMNotCausalError(
                    f"{path}: a single file that is not .gguf; point --model at a model folder or a .gguf file"
                )
            _check_causal_folder(path)
            tokenizer = AutoTokenizer.from_pretrained(path)
            model = AutoModelForCausalLM.from_pretrained(path, **kwargs)
        else:
            # A hub id: works when it is in the local Hugging Face cache or the hub is reachable.
            tokenizer = AutoTokenizer.from_pretrained(model_ref)
            model = AutoModelForCausalLM.from_pretrained(model_ref, **kwargs)
    except (LLMError, KeyboardInterrupt):
        raise
    except ValueError as exc:
        if "Unrecognized configuration class" in str(exc) or "AutoModelForCausalLM" in str(exc):
            raise LLMNotCausalError(
                f"{model_ref}: not a causal (text-generating) language model ({str(exc).splitlines()[0]})"
            ) from exc
        raise LLMError(f"{model_ref}: cannot load the model ({str(exc).splitlines()[0]})") from exc
    except OSError as exc:
        raise LLMModelNotFoundError(
            f"{model_ref}: model not found locally and it cannot be downloaded here "
            f"({str(exc).splitlines()[0]}). Give a local folder or .gguf file, or the packaged default"
        ) from exc
    except Exception as exc:  # noqa: BLE001
        if _is_oom(exc):
            raise LLMOutOfMemoryError(
                f"{model_ref}: out of memory while loading the model on {device}. Try "
                "--quantization 4bit, a smaller model, or --device cpu"
            ) from exc
        raise

    if tokenizer.pad_token is None:
        tokenizer.pad_token = tokenizer.eos_token
    tokenizer.padding_side = "left"
    if not quantization:
        try:
            model.to(device)
        except Exception as exc:  # noqa: BLE001
            if _is_oom(exc):
                raise LLMOutOfMemoryError(
                    f"{model_ref}: the model does not fit in {device} memory. Try --quantization "
                    "4bit (CUDA with bitsandbytes), a smaller model, or --device cpu"
                ) from exc
            raise
    model.eval()
    return model, tokenizer


def _save_plain_copy(model: Any, tokenizer: Any, folder: Path) -> None:
    """Keep a de-quantised copy of the packaged GGUF so later loads skip the conversion."""
    tmp = folder.with_name(folder.name + f".tmp{os.getpid()}")
    try:
        model.hf_quantizer = None
        if hasattr(model.config, "quantization_config"):
            del model.config.quantization_config
        model.save_pretrained(tmp)
        tokenizer.save_pretrained(tmp)
        if not folder.exists():
            tmp.rename(folder)
    except OSError:
        pass  # a read-only cache only costs speed
    finally:
        if tmp.exists():
            import shutil

            shutil.rmtree(tmp, ignore_errors=True)
