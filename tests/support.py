"""Test doubles shared by several test files (importable as ``support``: pytest puts tests/ on
the path): a bare metric to subclass, an OpenAI judge over a mock transport, an HTTP server on
loopback to subclass, a local Ray for the Ray engine's tests, and Ctrl-C for a command once it
has written some rows."""

from __future__ import annotations

import json
import logging
import os
import signal
import subprocess
import threading
import time
from collections.abc import Awaitable, Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from types import ModuleType
from typing import Any

import httpx
import openai
import pytest

from assay.data import Row
from assay.judges import OpenAIJudge


class BareMetric:
    """A metric that scores every row with an answer, to subclass with a ``score`` of its own.

    ``aggregate`` adds nothing; a subclass may override it."""

    name, version = "bare", "1"
    required = frozenset({"answer"})
    conversation = needs_citations = uses_judge = False
    higher_is_better = True
    value_range = (0.0, 1.0)

    def applies(self, row: Row) -> str | None:
        return None if row.answer is not None else "row has no answer"

    def aggregate(self, results: Any) -> dict[str, Any]:
        return {}


def chat_completion(content: str, model: str = "gpt-4o-mini",
                    headers: dict[str, str] | None = None) -> httpx.Response:
    """An OpenAI chat-completion answer with ``content``."""
    return httpx.Response(200, headers=headers, json=completion_body(content, model))


class LoopbackServer:
    """An HTTP server on 127.0.0.1 (a free port), served by daemon threads, for the tests
    that need a real socket (deadlines, headers, a subprocess as the client). A subclass
    answers each POST in :meth:`on_post`; ``url`` is the server's root, ``base_url`` its
    OpenAI-style ``/v1``.

    Example:
        >>> class Hello(LoopbackServer):
        ...     def on_post(self, handler, body):
        ...         send_json(handler, 200, {"answer": "hello"})
        >>> import httpx
        >>> server = Hello()
        >>> httpx.post(server.url + "/x", json={}).json()
        {'answer': 'hello'}
        >>> server.stop()
    """

    def __init__(self) -> None:
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                server.on_post(self, self.rfile.read(int(self.headers.get("Content-Length") or 0)))

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.port = self.httpd.server_address[1]
        self.url = f"http://127.0.0.1:{self.port}"
        self.base_url = f"{self.url}/v1"
        threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.05},
                         daemon=True).start()

    def on_post(self, handler: BaseHTTPRequestHandler, body: bytes) -> None:
        """Answer one POST (``handler.path``, ``handler.headers``; ``body`` as read)."""
        raise NotImplementedError

    def stop(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


def send_json(handler: BaseHTTPRequestHandler, status: int, payload: Any) -> None:
    """Answer a request with ``payload`` as JSON."""
    data = json.dumps(payload).encode()
    handler.send_response(status)
    handler.send_header("Content-Type", "application/json")
    handler.send_header("Content-Length", str(len(data)))
    handler.end_headers()
    handler.wfile.write(data)


def completion_body(content: str | None, model: str = "m") -> dict[str, Any]:
    """The JSON of an OpenAI chat completion whose message is ``content`` (``None``: null)."""
    return {"id": "c", "object": "chat.completion", "created": 0, "model": model,
            "choices": [{"index": 0, "finish_reason": "stop", "logprobs": None,
                         "message": {"role": "assistant", "content": content}}],
            "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}}


def mock_openai_judge(handler: Callable[[httpx.Request],
                                       httpx.Response | Awaitable[httpx.Response]],
                      model: str = "gpt-4o-mini", *, path: str = "http",
                      **kwargs: Any) -> OpenAIJudge:
    """An OpenAIJudge whose HTTP calls go to ``handler`` (no network): over assay's own HTTP
    client (``path="http"``, what ``openai:`` specs build) or through an ``openai`` SDK client
    passed in (``path="sdk"``)."""
    transport = httpx.MockTransport(handler)
    if path == "http":
        return OpenAIJudge(model, base_url="http://judge.invalid/v1", api_key="sk-mock",
                           transport=transport, **kwargs)
    client = openai.AsyncOpenAI(api_key="sk-mock", base_url="http://judge.invalid/v1",
                                max_retries=0, http_client=httpx.AsyncClient(transport=transport))
    return OpenAIJudge(model, client=client, **kwargs)


def local_ray(*by_value: ModuleType) -> Iterator[Any]:
    """A local Ray for a test module, as a generator for a fixture to yield from: skipped when
    ray is missing (failed under ``ASSAY_REQUIRE_RAY``). ``by_value`` are the modules its
    workers cannot import (tests/ is not a package): they are sent by value. A Ray already
    running is reused and left running."""
    try:
        import ray
    except ImportError:
        if os.environ.get("ASSAY_REQUIRE_RAY"):
            pytest.fail("ASSAY_REQUIRE_RAY is set but ray is not installed")
        pytest.skip("ray is not installed (pip install 'assay[ray]')")
    for module in by_value:
        ray.cloudpickle.register_pickle_by_value(module)
    started = not ray.is_initialized()
    if started:
        ray.init(num_cpus=4, include_dashboard=False, log_to_driver=False,
                 logging_level=logging.WARNING)
    yield ray
    for module in by_value:
        ray.cloudpickle.unregister_pickle_by_value(module)
    if started:
        ray.shutdown()


def without_usage(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Records without each result's ``details.usage`` (what its judge calls used, which a
    run answered from the cache does not repeat)."""
    return [{k: ({**v, "details": {d: x for d, x in v["details"].items() if d != "usage"}}
                 if isinstance(v, dict) and isinstance(v.get("details"), dict) else v)
             for k, v in row.items()} for row in rows]
def timeless(records: Any) -> list[dict[str, Any]]:
    """``records`` without their ``row_latency`` (the judge's and app's seconds on each row,
    which differ from run to run): for comparing the results of two runs.

    Example:
        >>> timeless([{"id": "a", "row_latency": {"judge_s": 0.2}}])
        [{'id': 'a'}]
    """
    return [{k: v for k, v in r.items() if k != "row_latency"} for r in records]


def interrupt_after_rows(cmd: list[str], results: Path, rows: int, *, wait_s: float = 30
                         ) -> tuple[int, str]:
    """Start ``cmd``, send it Ctrl-C (SIGINT) once ``results`` holds ``rows`` lines (or after
    ``wait_s``), and return its exit code and stderr."""
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + wait_s
    while time.monotonic() < deadline:
        if results.exists() and len(results.read_text().splitlines()) >= rows:
            break
        time.sleep(0.05)
    proc.send_signal(signal.SIGINT)
    _, stderr = proc.communicate(timeout=wait_s)
    return proc.returncode, stderr
