"""The OpenAI-compatible backend keeps the API key with its server (real HTTP servers on 127.0.0.1)."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from litlens.errors import LLMError, LLMServerError
from litlens.llm.openai_backend import OpenAIBackend, PlainHttpWarning

KEY = "sk-test-1234567890-secret"


class _Server:
    """A tiny server on 127.0.0.1: records each request's path and Authorization header and
    answers with ``reply(path)`` -> (status, headers, body)."""

    def __init__(self, reply):
        self.seen: list[tuple[str, str | None]] = []
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def _answer(self):
                length = int(self.headers.get("Content-Length") or 0)
                if length:
                    self.rfile.read(length)
                outer.seen.append((self.path, self.headers.get("Authorization")))
                status, headers, body = reply(self.path)
                self.send_response(status)
                for k, v in headers.items():
                    self.send_header(k, v)
                data = json.dumps(body).encode()
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            do_GET = do_POST = _answer

            def log_message(self, *args):
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.httpd.server_address[1]
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.httpd.shutdown()
        self.httpd.server_close()


def _models(path):
    if path.endswith("/models"):
        return 200, {}, {"data": [{"id": "m", "context_length": 2048}]}
    return 200, {}, {"choices": [{"message": {"content": "ok"}}], "usage": {}}


@pytest.fixture
def key(monkeypatch):
    monkeypatch.setenv("LITLENS_TEST_KEY", KEY)
    return "LITLENS_TEST_KEY"


def test_openai_key_redirect_to_another_port_is_refused_and_the_key_not_sent(key):
    with _Server(_models) as other:
        target = f"http://127.0.0.1:{other.port}"
        with _Server(lambda path: (302, {"Location": target + path}, {})) as first:
            with pytest.raises(LLMServerError, match="redirects \\(HTTP 302\\) to another address") as err:
                OpenAIBackend(f"http://127.0.0.1:{first.port}/v1", api_key_env=key, retries=0)
            assert first.seen == [("/v1/models", f"Bearer {KEY}")]
    assert other.seen == []  # nothing reached the other origin, so neither did the key
    assert KEY not in str(err.value)


@pytest.mark.parametrize("code", [301, 307, 308])
def test_openai_key_redirect_of_a_chat_request_elsewhere_is_refused(key, code):
    with _Server(_models) as other:
        def reply(path):
            if path.endswith("/chat/completions"):
                return code, {"Location": f"http://127.0.0.1:{other.port}{path}"}, {}
            return _models(path)

        with _Server(reply) as first:
            backend = OpenAIBackend(f"http://127.0.0.1:{first.port}/v1", api_key_env=key, retries=0)
            with pytest.raises(LLMServerError, match="another address"):
                backend.chat([[{"role": "user", "content": "hi"}]])
    assert other.seen == []


def test_openai_key_redirect_within_the_same_server_is_followed_with_the_key(key):
    def reply(path):
        if path == "/v1/models":
            return 307, {"Location": "/v2/models"}, {}
        return _models(path)

    with _Server(reply) as server:
        backend = OpenAIBackend(f"http://127.0.0.1:{server.port}/v1", api_key_env=key, retries=0)
    assert backend.model == "m"
    assert ("/v2/models", f"Bearer {KEY}") in server.seen


def test_openai_key_echoed_by_the_server_is_not_in_the_error(key):
    def reply(path):
        return 400, {}, {"error": f"bad request with Authorization: Bearer {KEY}"}

    with _Server(reply) as server:
        with pytest.raises(LLMServerError, match="HTTP 400") as err:
            OpenAIBackend(f"http://127.0.0.1:{server.port}/v1", api_key_env=key, retries=0)
    assert KEY not in str(err.value) and "***" in str(err.value)


@pytest.mark.parametrize(
    "url",
    ["http://alice:hunter2@127.0.0.1:9/v1", "https://alice:hunter2@llm.example.org/v1", "ftp://alice:hunter2@host/v1"],
)
def test_openai_key_credentials_in_the_url_are_refused_and_never_shown(url):
    with pytest.raises(LLMError) as err:
        OpenAIBackend(url, retries=0)
    assert "hunter2" not in str(err.value) and "alice" not in str(err.value)


def test_openai_key_plain_http_to_another_machine_warns(key, monkeypatch):
    monkeypatch.setattr(OpenAIBackend, "_models", lambda self: [{"id": "m"}])
    with pytest.warns(PlainHttpWarning, match="travel unencrypted"):
        OpenAIBackend("http://192.0.2.10:8000/v1", api_key_env=key, context_window=2048)


@pytest.mark.parametrize("url", ["http://127.0.0.1:8000/v1", "http://localhost:8000/v1", "http://[::1]:8000/v1",
                                 "https://192.0.2.10/v1"])
def test_openai_key_loopback_or_https_does_not_warn(key, monkeypatch, url):
    import warnings

    monkeypatch.setattr(OpenAIBackend, "_models", lambda self: [{"id": "m"}])
    with warnings.catch_warnings():
        warnings.simplefilter("error", PlainHttpWarning)
        OpenAIBackend(url, api_key_env=key, context_window=2048)
