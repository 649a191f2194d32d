"""Per-token log-probabilities of a text under a model, from any backend that can give them.

For a text tokenised with the model's own tokenizer (no special tokens) into t_0 … t_n, the
score of token i (i ≥ 1) is ln p(t_i | t_0 … t_{i-1}); t_0 has no score. Where the backend
exposes the whole next-token distribution (transformers, llama.cpp) each position also gets
the mean μ and standard deviation σ of ln p(z) for z drawn from that distribution, which
Min-K%++ (Zhang et al. 2024) needs. Texts longer than ``window`` tokens are scored in
consecutive windows; the first token of each window has no score. llama.cpp scores a float32
copy of a quantised GGUF (:mod:`litlens.audit.dequantise`), so both backends give the numbers of
a plain transformers computation on the same file.
"""

from __future__ import annotations

import math
import threading
from dataclasses import dataclass
from typing import Any

from litlens.errors import LLMError, LLMServerError, LLMTimeoutError

DEFAULT_WINDOW = 512
_GGML_F32 = 0  # ggml_type of float32, for llama.cpp's key/value cache
_MAX_CHARS_PER_TOKEN = 8
_LLAMAS: dict[tuple[str, int], Any] = {}
_LOCK = threading.Lock()


class NoLogprobsError(LLMError):
    """The backend cannot give the log-probabilities of a prompt's tokens."""


class TextTooShortError(LLMError):
    """A text has fewer than two tokens, so no token can be scored."""


@dataclass(frozen=True)
class TokenScores:
    logprobs: list[float]  # ln p(token | tokens before), one per scored token
    means: list[float] | None  # E[ln p(z)] of the next-token distribution; None if unknown
    stds: list[float] | None  # its standard deviation; None if unknown

    def __len__(self) -> int:
        return len(self.logprobs)

    def extend(self, other: TokenScores) -> TokenScores:
        both = self.means is not None and other.means is not None
        return TokenScores(
            self.logprobs + other.logprobs,
            (self.means or []) + (other.means or []) if both else None,
            (self.stds or []) + (other.stds or []) if both else None,
        )


EMPTY = TokenScores([], [], [])


def token_scores(backend: Any, text: str, *, window: int = DEFAULT_WINDOW, max_tokens: int | None = None) -> TokenScores:
    """Scores of ``text``'s tokens under ``backend`` (see the module docstring).

    ``max_tokens`` keeps only the first tokens of a long text. Raises
    :class:`NoLogprobsError` for a backend that cannot give them and
    :class:`TextTooShortError` for a text of fewer than two tokens.
    """
    from litlens.llm.gguf_backend import GGUFBackend
    from litlens.llm.openai_backend import OpenAIBackend
    from litlens.llm.transformers_backend import TransformersBackend

    window = max(2, int(window))
    if isinstance(backend, TransformersBackend):
        ids = backend.tokenizer.encode(text, add_special_tokens=False)
        scorer = lambda chunk: _transformers_scores(backend, chunk)  # noqa: E731
    elif isinstance(backend, GGUFBackend):
        from litlens.audit.dequantise import dequantised_gguf

        llama = _llama_with_all_logits(str(dequantised_gguf(backend.llama.model_path)), window)
        ids = llama.tokenize(text.encode("utf-8"), add_bos=False, special=False)
        scorer = lambda chunk: _llama_scores(llama, chunk)  # noqa: E731
    elif isinstance(backend, OpenAIBackend):
        if max_tokens is None:
            return _openai_scores(backend, text)
        # The server's tokenizer is out of reach: send enough characters (a token is rarely longer
        # than 8) and keep the first tokens of its answer.
        scores = _openai_scores(backend, text[: max(2, int(max_tokens)) * _MAX_CHARS_PER_TOKEN])
        return TokenScores(scores.logprobs[: max(0, int(max_tokens) - 1)], None, None)
    else:
        raise NoLogprobsError(
            f"{getattr(backend, 'name', type(backend).__name__)}: this backend gives no token "
            "log-probabilities; use --backend transformers or gguf"
        )
    if max_tokens is not None:
        ids = ids[: max(0, int(max_tokens))]
    if len(ids) < 2:
        raise TextTooShortError(
            f"the text has {len(ids)} token(s); Min-K% needs at least two. Give a longer text"
        )
    scores = EMPTY
    for start in range(0, len(ids), window):
        chunk = ids[start : start + window]
        if len(chunk) >= 2:
            scores = scores.extend(scorer(chunk))
    return scores


def _transformers_scores(backend: Any, ids: list[int]) -> TokenScores:
    import torch

    model = backend.model
    with torch.inference_mode():
        logits = model(input_ids=torch.tensor([ids], device=model.device)).logits[0, :-1].float()
        logp = torch.log_softmax(logits, dim=-1)
        target = torch.tensor(ids[1:], device=logp.device).unsqueeze(1)
        chosen = logp.gather(1, target).squeeze(1)
        probs = logp.exp()
        mean = (probs * logp).sum(-1)
        var = (probs * logp * logp).sum(-1) - mean * mean
        std = var.clamp_min(1e-12).sqrt()
    return TokenScores(chosen.tolist(), mean.tolist(), std.tolist())


def _llama_with_all_logits(path: str, n_ctx: int) -> Any:
    """A llama.cpp model that keeps the logits of every position (the chat backend keeps only the last).

    Its key/value cache is float32 (llama.cpp's default float16 moves log-probabilities by up to 0.01).
    """
    key = (path, int(n_ctx))
    with _LOCK:
        if key not in _LLAMAS:
            from llama_cpp import Llama

            try:
                _LLAMAS[key] = Llama(model_path=path, n_ctx=int(n_ctx), n_batch=int(n_ctx), logits_all=True,
                                     type_k=_GGML_F32, type_v=_GGML_F32, verbose=False)
            except (ValueError, RuntimeError) as exc:
                raise LLMError(f"{path}: llama.cpp cannot load this model for scoring ({exc})") from exc
        return _LLAMAS[key]


def _llama_scores(llama: Any, ids: list[int]) -> TokenScores:
    import numpy as np

    with _LOCK:
        llama.reset()
        llama.eval(ids)
        logits = np.array(llama.scores[: len(ids) - 1], dtype=np.float64)
    top = logits.max(axis=1, keepdims=True)
    logp = logits - (top + np.log(np.exp(logits - top).sum(axis=1, keepdims=True)))
    chosen = logp[np.arange(len(ids) - 1), np.array(ids[1:])]
    probs = np.exp(logp)
    mean = (probs * logp).sum(axis=1)
    var = (probs * logp * logp).sum(axis=1) - mean * mean
    std = np.sqrt(np.maximum(var, 1e-12))
    return TokenScores(chosen.tolist(), mean.tolist(), std.tolist())


def _openai_scores(backend: Any, text: str) -> TokenScores:
    """Prompt log-probabilities from ``/completions`` with ``echo`` (no distribution: no Min-K%++)."""
    url = backend.base_url + "/completions"
    body = {"model": backend.model, "prompt": text, "max_tokens": 1, "temperature": 0.0, "echo": True, "logprobs": 1}
    how = (
        "Min-K% needs them: serve the model with prompt log-probabilities enabled (llama.cpp's "
        "`python -m llama_cpp.server --logits_all True`, vLLM), or use --backend transformers or gguf"
    )
    try:
        answer = backend._request("POST", url, body, retries=0)
    except LLMTimeoutError:
        raise  # a slow server is not one without log-probabilities: its own message says what to do
    except LLMServerError as exc:
        raise NoLogprobsError(f"{url}: the server did not return the prompt's log-probabilities ({exc}). {how}") from exc
    try:
        info = answer["choices"][0]["logprobs"] or {}
        values = list(info.get("token_logprobs") or [])
        tokens = list(info.get("tokens") or [])
        offsets = list(info.get("text_offset") or [])
        tops = list(info.get("top_logprobs") or [])
    except (KeyError, IndexError, TypeError, AttributeError):
        values, tokens, offsets, tops = [], [], [], []
    if len(tops) != len(values):
        tops = []
    if offsets and len(offsets) == len(values):
        # echo returns the prompt's tokens and then the one generated token: keep the prompt's.
        keep = [i for i, off in enumerate(offsets) if off < len(text)]
        values = [values[i] for i in keep]
        tokens = [tokens[i] for i in keep] if len(tokens) == len(offsets) else tokens
        tops = [tops[i] for i in keep] if tops else tops
    if tokens and len(tokens) == len(values) and (tokens[0] == "" or (tokens[0].startswith("<") and tokens[0].endswith(">"))):
        values, tokens, tops = values[1:], tokens[1:], tops[1:]  # a BOS token the server added
    if one_token_late(tokens, tops):
        raise NoLogprobsError(
            f"{url}: the server's prompt log-probabilities are one token late (the distribution it reports at "
            "each token is the one after it, as llama-cpp-python's server does without a BOS token), so Min-K% "
            "through it would be wrong. Score the same model with --backend gguf (its GGUF file) or transformers"
        )
    scored = [float(v) for v in values[1:] if v is not None and math.isfinite(float(v))]
    if not scored:
        raise NoLogprobsError(f"{url}: the server returned no prompt log-probabilities. {how}")
    return TokenScores(scored, None, None)


def one_token_late(tokens: list[str], tops: list[Any], *, evidence: int = 3) -> bool:
    """Whether a server's echoed prompt distributions sit one token late.

    At token i a server should report the distribution that predicted token i; its most likely
    entry is then often token i itself (a language model's top guess is right a good part of
    the time) and rarely token i + 1. A server that reports the distribution *after* token i
    shows the opposite: its top entry is often token i + 1. Judged only on at least
    ``evidence`` hits, so short texts pass.
    """
    own = late = 0
    for i in range(1, len(tokens) - 1):
        entry = tops[i] if i < len(tops) else None
        if not isinstance(entry, dict) or not entry:
            continue
        best = max(entry, key=lambda key: entry[key] if entry[key] is not None else -math.inf)
        own += best == tokens[i]
        late += best == tokens[i + 1]
    return late >= evidence and late > 2 * own
