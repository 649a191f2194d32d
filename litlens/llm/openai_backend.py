"""Any OpenAI-compatible chat server (vLLM, llama.cpp server, Ollama, …) over HTTP.

Standard library only (urllib): timeouts, retries with exponential backoff on connection
errors, 429 and 5xx answers, and typed errors when the server is down or dies mid-run.

The API key goes only to the server it was given for: a redirect is followed only within
the same origin (scheme, host and port), anywhere else it is an error; plain ``http://`` to a
host that is not this machine gives a warning (the key and the book's text would travel
unencrypted); and no error message shows the key or credentials written into the URL.
"""

from __future__ import annotations

import http.client
import ipaddress
import json
import os
import socket
import time
import urllib.error
import urllib.parse
import urllib.request
import warnings
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from litlens.errors import LitLensWarning, LLMError, LLMServerError, LLMTimeoutError
from litlens.llm import GenerationStats

DEFAULT_CONTEXT_WINDOW = 4096

# Tokenizer endpoints of common servers: (path relative to the server root, body, reader).
_TOKENIZE_ENDPOINTS = (
    ("/extras/tokenize", lambda text, model: {"input": text, "model": model}),  # llama-cpp-python
    ("/tokenize", lambda text, model: {"content": text, "add_special": False}),  # llama.cpp server
    ("/tokenize", lambda text, model: {"prompt": text, "model": model, "add_special_tokens": False}),  # vLLM
)


class PlainHttpWarning(LitLensWarning):
    """The server is reached over plain http:// on another machine: the key and text travel unencrypted."""


def _origin(url: str) -> tuple[str, str, int | None]:
    parts = urllib.parse.urlsplit(url)
    scheme = parts.scheme.lower()
    return scheme, (parts.hostname or "").lower(), parts.port or {"http": 80, "https": 443}.get(scheme)


def _is_loopback(host: str) -> bool:
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def _without_credentials(url: str) -> str:
    """``url`` with any ``user:password@`` replaced by ``***@`` (for messages)."""
    try:
        parts = urllib.parse.urlsplit(url)
    except ValueError:
        return "<the URL given>"
    if "@" not in parts.netloc:
        return url
    return urllib.parse.urlunsplit(parts._replace(netloc="***@" + parts.netloc.rpartition("@")[2]))


class _SameOriginRedirects(urllib.request.HTTPRedirectHandler):
    """Follow a redirect only to the origin the request was sent to; refuse any other."""

    def redirect_request(self, req, fp, code, msg, headers, newurl):
        target = urllib.parse.urljoin(req.full_url, newurl)
        if _origin(target) != _origin(req.full_url):
            raise LLMServerError(
                f"{_without_credentials(req.full_url)}: the server redirects (HTTP {code}) to another address, "
                f"{_without_credentials(target)}; LitLens does not follow it, so that the API key goes to no other "
                "server. If that is the right server, give its address with --base-url"
            )
        return super().redirect_request(req, fp, code, msg, headers, newurl)


_OPENER = urllib.request.build_opener(_SameOriginRedirects())


class OpenAIBackend:
    """Chat completions from ``{base_url}/chat/completions``; ``base_url`` ends in ``/v1``."""

    def __init__(
        self,
        base_url: str,
        model: str | None = None,
        *,
        api_key_env: str | None = None,
        timeout: float = 120.0,
        retries: int = 3,
        backoff: float = 0.5,
        context_window: int | None = None,
        parallel: int = 2,
    ):
        base = base_url.rstrip("/")
        if not base.startswith(("http://", "https://")):
            raise LLMError(f"{_without_credentials(base_url)!r} is not an http(s) URL; give e.g. http://127.0.0.1:8000/v1")
        try:
            parts = urllib.parse.urlsplit(base)
            parts.port  # noqa: B018 - raises ValueError on a malformed port
        except ValueError as exc:
            raise LLMError(f"{_without_credentials(base_url)!r} is not a valid URL ({exc})") from None
        if "@" in parts.netloc:
            raise LLMError(
                f"{_without_credentials(base_url)!r} holds credentials (user:password@); LitLens does not send them. "
                "Put the key in an environment variable and name it with --api-key-env"
            )
        if parts.scheme == "http" and not _is_loopback(parts.hostname or ""):
            warnings.warn(
                f"{base_url} is plain http:// to another machine: the prompts, the book's text"
                + (" and the API key" if api_key_env else "")
                + " travel unencrypted. Use https:// unless the network is private",
                PlainHttpWarning,
                stacklevel=2,
            )
        if not base.endswith("/v1"):
            base += "/v1"
        self.base_url = base
        self.root_url = base[: -len("/v1")]
        self.timeout = float(timeout)
        self.retries = max(0, int(retries))
        self.backoff = float(backoff)
        self.parallel = max(1, int(parallel))
        self.stats = GenerationStats()
        self.api_key: str | None = None
        if api_key_env:
            key = os.environ.get(api_key_env)
            if not key:
                raise LLMError(
                    f"the API key variable {api_key_env} is not set; export it or leave --api-key-env out"
                )
            self.api_key = key
        info = self._models()
        ids = [m.get("id") for m in info if m.get("id")]
        if model is None:
            if not ids:
                raise LLMServerError(f"{self.base_url}: the server lists no models; pass --model NAME")
            model = ids[0]
        self.model = model
        # The name identifies the model, not the address: answers cached from one server
        # stay valid when the same model is served elsewhere (or restarted on a new port).
        self.name = f"openai:{model}"
        self.context_window = int(context_window or self._discover_context(info) or DEFAULT_CONTEXT_WINDOW)
        self.approximate_tokens = False
        self._tokenize: tuple[str, Any] | None = None
        self._tokenize_probed = False

    # ---- HTTP ------------------------------------------------------------------------

    def _request(self, method: str, url: str, body: dict | None = None, *, retries: int | None = None) -> Any:
        retries = self.retries if retries is None else retries
        data = json.dumps(body).encode("utf-8") if body is not None else None
        headers = {"Content-Type": "application/json"}
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        last: BaseException | None = None
        for attempt in range(retries + 1):
            if attempt:
                time.sleep(min(self.backoff * 2 ** (attempt - 1), 10.0))
            req = urllib.request.Request(url, data=data, headers=headers, method=method)
            try:
                with _OPENER.open(req, timeout=self.timeout) as resp:
                    return json.loads(resp.read().decode("utf-8"))
            except urllib.error.HTTPError as exc:
                detail = self._redact(exc.read().decode("utf-8", "replace")[:300])
                if exc.code in (429, 500, 502, 503, 504):
                    last = exc
                    continue
                if exc.code in (401, 403):
                    raise LLMServerError(
                        f"{url}: the server refused the API key (HTTP {exc.code}). Check --api-key-env"
                    ) from exc
                raise LLMServerError(f"{url}: HTTP {exc.code}: {detail}") from exc
            except (TimeoutError, socket.timeout) as exc:
                last = exc
            except urllib.error.URLError as exc:
                last = exc
                if isinstance(exc.reason, (TimeoutError, socket.timeout)):
                    last = TimeoutError(str(exc.reason))
            except (ConnectionError, http.client.HTTPException) as exc:
                last = exc
            except ValueError as exc:
                raise LLMServerError(f"{url}: the server's answer is not JSON ({exc})") from exc
        if isinstance(last, (TimeoutError, socket.timeout)):
            raise LLMTimeoutError(
                f"{url}: no answer within {self.timeout:g} s after {retries + 1} attempts. "
                "The server may be overloaded; raise the timeout or use a smaller chunk"
            )
        if isinstance(last, urllib.error.HTTPError):
            raise LLMServerError(
                f"{url}: the server kept failing (HTTP {last.code}) after {retries + 1} attempts"
            )
        reason = self._redact(str(getattr(last, "reason", last)))
        raise LLMServerError(
            f"{url}: cannot reach the LLM server ({reason}) after {retries + 1} attempts. "
            "Is it running at that address? Start it, or check --base-url"
        )

    def _redact(self, text: str) -> str:
        """``text`` (a server's answer, an error) without the API key, should the server echo it."""
        return text.replace(self.api_key, "***") if self.api_key else text

    def _models(self) -> list[dict]:
        answer = self._request("GET", self.base_url + "/models")
        return list(answer.get("data") or []) if isinstance(answer, dict) else []

    def _discover_context(self, info: list[dict]) -> int | None:
        for m in info:
            for key in ("max_model_len", "context_length", "context_window"):
                if isinstance(m.get(key), int):
                    return int(m[key])
            meta = m.get("meta") or {}
            if isinstance(meta.get("n_ctx"), int):
                return int(meta["n_ctx"])
            if isinstance(meta.get("n_ctx_train"), int):
                return int(meta["n_ctx_train"])
        try:
            props = self._request("GET", self.root_url + "/props", retries=0)
        except LLMError:
            return None
        n_ctx = (props.get("default_generation_settings") or {}).get("n_ctx") if isinstance(props, dict) else None
        return int(n_ctx) if isinstance(n_ctx, int) else None

    # ---- the interface ---------------------------------------------------------------

    def count_tokens(self, text: str) -> int:
        if not self._tokenize_probed:
            self._tokenize_probed = True
            for path, body in _TOKENIZE_ENDPOINTS:
                try:
                    answer = self._request("POST", self.root_url + path, body("probe", self.model), retries=0)
                except LLMError:
                    continue
                if isinstance(answer, dict) and ("tokens" in answer or "count" in answer):
                    self._tokenize = (path, body)
                    break
            self.approximate_tokens = self._tokenize is None
        if self._tokenize is None:
            # No tokenizer endpoint: a deliberately high estimate (3 characters per token)
            # keeps chunks inside the context window.
            return max(1, (len(text) + 2) // 3)
        path, body = self._tokenize
        answer = self._request("POST", self.root_url + path, body(text, self.model))
        if "count" in answer:
            return int(answer["count"])
        return len(answer["tokens"])

    def chat(
        self,
        conversations: list[list[dict[str, str]]],
        *,
        max_new_tokens: int = 256,
        temperature: float = 0.0,
    ) -> list[str]:
        if not conversations:
            return []
        if self.parallel == 1 or len(conversations) == 1:
            return [self._one(c, max_new_tokens, temperature) for c in conversations]
        with ThreadPoolExecutor(max_workers=min(self.parallel, len(conversations))) as pool:
            return list(pool.map(lambda c: self._one(c, max_new_tokens, temperature), conversations))

    def _one(self, conversation: list[dict[str, str]], max_new_tokens: int, temperature: float) -> str:
        body = {
            "model": self.model,
            "messages": conversation,
            "max_tokens": int(max_new_tokens),
            "temperature": float(temperature),
        }
        started = time.perf_counter()
        answer = self._request("POST", self.base_url + "/chat/completions", body)
        elapsed = time.perf_counter() - started
        try:
            text = answer["choices"][0]["message"].get("content") or ""
        except (KeyError, IndexError, TypeError, AttributeError) as exc:
            raise LLMServerError(
                f"{self.base_url}/chat/completions: unexpected answer shape {self._redact(str(answer)[:200])}"
            ) from exc
        usage = answer.get("usage") or {}
        self.stats.calls += 1
        self.stats.requests += 1
        self.stats.prompt_tokens += int(usage.get("prompt_tokens") or 0)
        self.stats.generated_tokens += int(usage.get("completion_tokens") or 0)
        self.stats.seconds += elapsed
        return text.strip()

