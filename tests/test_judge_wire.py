"""The ``openai:`` judge over a real socket, as ``--judge openai:MODEL@URL`` builds it (assay's
own HTTP client, no ``openai`` SDK): what each failure of a server on loopback means.

A rate limit with ``retry-after-ms``, a refused key, a server that hangs past the judge's
timeout, an endpoint that refuses log-probabilities, a body that is not JSON, nothing listening.
"""

from __future__ import annotations

import asyncio
import json
import socket
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler
from typing import Any

import pytest

from assay.errors import CallTimeoutError, JudgeError, JudgeUnavailableError, RetryableJudgeError
from assay.judges import JudgeRequest, JudgeResponse, make_judge
from support import LoopbackServer, completion_body

KEY = "wire-test-key-9f8e7d"
REQUEST = JudgeRequest(messages=[{"role": "user", "content": "Rate it."}], schema_name="rating",
                       json_schema={"type": "object"})


class ScriptedServer(LoopbackServer):
    """Answers each chat completion with ``answer(body)``: ``(status, headers, payload)``,
    a payload of bytes sent as is; ``"hang"`` holds the request until the test ends."""

    def __init__(self, answer: Any) -> None:
        self.answer = answer
        self.bodies: list[dict[str, Any]] = []
        self.auth: list[str | None] = []
        self.release = threading.Event()
        super().__init__()

    def on_post(self, handler: BaseHTTPRequestHandler, body: bytes) -> None:
        self.bodies.append(json.loads(body))
        self.auth.append(handler.headers.get("Authorization"))
        answer = self.answer(self.bodies[-1])
        if answer == "hang":
            self.release.wait(10)
            return
        status, headers, payload = answer
        data = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
        handler.send_response(status)
        for name, value in {"Content-Type": "application/json", **headers}.items():
            handler.send_header(name, value)
        handler.send_header("Content-Length", str(len(data)))
        handler.end_headers()
        handler.wfile.write(data)

    def stop(self) -> None:
        self.release.set()
        super().stop()


@pytest.fixture
def serve(monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    """``serve(answer)`` starts a :class:`ScriptedServer`; ``OPENAI_API_KEY`` is :data:`KEY`."""
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    started: list[ScriptedServer] = []

    def start(answer: Any) -> ScriptedServer:
        started.append(ScriptedServer(answer))
        return started[-1]

    yield start
    for server in started:
        server.stop()


def _ask(spec: str, timeout: float = 10.0) -> tuple[Any, JudgeResponse | BaseException]:
    """The judge ``spec`` makes, and what one request got: its answer or its error."""
    judge = make_judge(spec, timeout=timeout)

    async def go() -> JudgeResponse | BaseException:
        try:
            return await judge.complete(REQUEST)
        except JudgeError as e:
            return e
        finally:
            await judge.aclose()

    return judge, asyncio.run(go())


def _error(message: str) -> dict[str, Any]:
    return {"error": {"message": message, "type": "error", "code": None}}


def test_a_rate_limit_is_retryable_with_the_servers_wait_and_its_headers(serve: Any) -> None:
    server = serve(lambda body: (429, {"retry-after-ms": "1500", "retry-after": "9",
                                       "x-ratelimit-remaining-requests": "0",
                                       "x-ratelimit-limit-requests": "500"},
                                 _error("Rate limit reached for gpt-4o-mini")))
    judge, got = _ask(f"openai:m@{server.base_url}")
    assert isinstance(got, RetryableJudgeError) and got.rate_limited and got.status == 429
    assert got.retry_after == 1.5
    assert str(got) == "rate limited (429): Rate limit reached for gpt-4o-mini"
    assert judge.rate_limits == {"remaining_requests": 0.0, "limit_requests": 500.0}
    assert server.auth == [f"Bearer {KEY}"] and len(server.bodies) == 1  # sent once


def test_a_refused_key_stops_the_judge_with_the_endpoint_and_the_key_masked(serve: Any) -> None:
    server = serve(lambda body: (401, {}, _error(f"Incorrect API key provided: {KEY}.")))
    _, got = _ask(f"openai:m@{server.base_url}")
    assert isinstance(got, JudgeUnavailableError) and got.kind == "auth" and got.status == 401
    assert got.endpoint == f"{server.base_url}/chat/completions"
    assert str(got) == "HTTP 401: Incorrect API key provided: ***."
    assert "OPENAI_API_KEY" in got.fix and KEY not in got.describe()


def test_a_server_that_hangs_past_the_timeout_is_a_call_timeout(serve: Any) -> None:
    server = serve(lambda body: "hang")
    started = time.monotonic()
    _, got = _ask(f"openai:m@{server.base_url}", timeout=0.3)
    assert isinstance(got, CallTimeoutError), got
    assert time.monotonic() - started < 3


def test_an_endpoint_that_refuses_logprobs_is_asked_again_without_them(serve: Any) -> None:
    def answer(body: dict[str, Any]) -> tuple[int, dict[str, str], Any]:
        if body.get("logprobs"):
            return 400, {}, _error("This model does not support 'logprobs'.")
        return 200, {}, completion_body('{"score": 4}', body["model"])

    server = serve(answer)
    judge, got = _ask(f"openai:gpt-4o-mini@{server.base_url}")
    assert isinstance(got, JudgeResponse) and got.text == '{"score": 4}'
    assert [b.get("logprobs") for b in server.bodies] == [True, None]
    assert server.bodies[0]["response_format"]["type"] == "json_schema"
    assert judge.capabilities.token_logprobs is False


def test_a_200_that_is_not_json_is_retryable(serve: Any) -> None:
    server = serve(lambda body: (200, {"Content-Type": "text/html"}, b"<html>proxy</html>"))
    _, got = _ask(f"openai:m@{server.base_url}")
    assert isinstance(got, RetryableJudgeError) and not got.rate_limited
    assert "not the JSON" in str(got) and "<html>proxy" in str(got)


def test_nothing_listening_is_retried_then_unavailable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    with socket.socket() as s:  # a port that was free a moment ago: nothing listens there
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    _, got = _ask(f"openai:m@http://127.0.0.1:{port}/v1")
    assert isinstance(got, RetryableJudgeError) and got.unreachable is not None
    assert got.unreachable.kind == "connection"
    assert got.unreachable.endpoint == f"http://127.0.0.1:{port}/v1/chat/completions"

