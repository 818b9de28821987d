"""Waits on rate limits (429) against a real HTTP server on loopback: a Retry-After of 0,
negative, missing or not a number still waits the exponential backoff (no spinning), and a
Retry-After past ``max_wait`` fails the call at once with a message naming the asked wait and
the option, instead of waiting in silence."""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from http.server import BaseHTTPRequestHandler
from typing import Any

import pytest

from assay.calls import ManagedJudge, RetryPolicy
from assay.errors import JudgeError
from assay.judges import JudgeRequest, make_judge
from support import LoopbackServer, send_json


class Always429(LoopbackServer):
    """Answers every chat request 429 with ``Retry-After: retry_after`` (None: no header)."""

    def __init__(self, retry_after: str | None) -> None:
        self.retry_after = retry_after
        self.times: list[float] = []
        self._lock = threading.Lock()
        super().__init__()

    def on_post(self, handler: BaseHTTPRequestHandler, body: bytes) -> None:
        with self._lock:
            self.times.append(time.monotonic())
        data = b'{"error": {"message": "Rate limit reached", "type": "rate_limit_exceeded"}}'
        handler.send_response(429)
        handler.send_header("Content-Type", "application/json")
        if self.retry_after is not None:
            handler.send_header("Retry-After", self.retry_after)
        handler.send_header("Content-Length", str(len(data)))
        handler.end_headers()
        handler.wfile.write(data)


class OkServer(LoopbackServer):
    def on_post(self, handler: BaseHTTPRequestHandler, body: bytes) -> None:
        send_json(handler, 200, {"id": "c", "object": "chat.completion", "created": 0,
                                 "model": "m", "choices": [{"index": 0, "finish_reason": "stop",
                                 "message": {"role": "assistant", "content": "ok"}}]})


def _request() -> JudgeRequest:
    return JudgeRequest(messages=[{"role": "user", "content": "Rate this."}], schema_name="x")


async def _call_for(server: LoopbackServer, seconds: float, **policy: Any) -> JudgeError | None:
    """One judge call against ``server`` for at most ``seconds``; the error it ended with."""
    backend = make_judge(f"openai:m@{server.base_url}", timeout=5)
    judge = ManagedJudge(backend, concurrency=1, retry=RetryPolicy(**policy))
    try:
        await asyncio.wait_for(judge.complete(_request()), seconds)
    except JudgeError as e:
        return e
    except TimeoutError:
        return None
    finally:
        await backend.aclose()
    return None


@pytest.fixture(autouse=True)
def _key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-waits")


@pytest.mark.parametrize("retry_after", ["0", "-5", "soon", None])
async def test_a_retry_after_that_asks_no_wait_still_backs_off(retry_after: str | None) -> None:
    """Before: Retry-After 0 or -5 was retried after 0-0.25 s, about 8 requests a second for
    one call (16 in 2 s); now the backoff (0.5-1 s, then 1-2 s, ...) allows 3 at most."""
    server = Always429(retry_after)
    try:
        await _call_for(server, 2.0)
    finally:
        server.stop()
    assert 1 <= len(server.times) <= 3, (retry_after, len(server.times))
    gaps = [b - a for a, b in zip(server.times, server.times[1:], strict=False)]
    assert all(gap >= 0.45 for gap in gaps), gaps


async def test_a_retry_after_past_max_wait_fails_at_once_naming_it(
        caplog: pytest.LogCaptureFixture) -> None:
    """Before: Retry-After 10000 was waited 60 s at a time until max_wait was spent (545 s and
    more, nothing said); now the call fails on the first 429, saying why and the fix."""
    server = Always429("10000")
    started = time.monotonic()
    try:
        with caplog.at_level(logging.WARNING, logger="assay.calls"):
            error = await _call_for(server, 10.0, max_wait=600.0)
    finally:
        server.stop()
    assert time.monotonic() - started < 5.0
    assert len(server.times) == 1
    assert error is not None
    message = str(error)
    assert "asks to wait 10000 s" in message and "max_wait" in message, message
    logged = [r.getMessage() for r in caplog.records if r.name == "assay.calls"]
    assert len(logged) == 1 and "10000 s" in logged[0] and "max_wait" in logged[0]


async def test_a_retry_after_within_max_wait_is_waited_as_asked() -> None:
    """A server that asks 2 s gets 2 s (not the shorter backoff), and the call goes on."""
    limited = Always429("2")
    ok = OkServer()
    policy = RetryPolicy()
    calls: list[float] = []

    async def attempt() -> str:
        calls.append(time.monotonic())
        if len(calls) == 1:
            backend = make_judge(f"openai:m@{limited.base_url}", timeout=5)
        else:
            backend = make_judge(f"openai:m@{ok.base_url}", timeout=5)
        try:
            return (await backend.complete(_request())).text
        finally:
            await backend.aclose()

    try:
        assert await policy.call(attempt) == "ok"
    finally:
        limited.stop()
        ok.stop()
    assert 2.0 <= calls[1] - calls[0] < 3.0


# --- every command that calls a model takes --max-wait, from one definition -----------------

MODEL_COMMANDS = ("run", "generate", "simulate", "jailbreak", "robustness", "watch", "explain",
                  "calibrate", "align")


def _cli(args: list[str], **env: str) -> Any:
    from typer.testing import CliRunner

    from assay.cli.main import app
    result = CliRunner().invoke(app, args, env={"COLUMNS": "200", "NO_COLOR": "1", **env})
    assert "Traceback" not in result.output, result.output
    return result


@pytest.mark.parametrize("command", MODEL_COMMANDS)
def test_every_model_command_offers_max_wait_and_refuses_a_bad_one(command: str) -> None:
    shown = " ".join(_cli([command, "--help"]).output.split())
    assert "--max-wait" in shown and "Retry-After" in shown
    for bad in ("-1", "nan", "inf"):
        result = _cli([command, "--max-wait", bad])
        assert result.exit_code == 2, (bad, result.output)
        assert "--max-wait" in result.output


@pytest.mark.parametrize("command", ["run", "simulate", "jailbreak"])
def test_the_long_text_options_are_the_same_everywhere(command: str) -> None:
    shown = " ".join(_cli([command, "--help"]).output.split())
    assert "--max-field-chars" in shown and "--long-fields" in shown
    result = _cli([command, "--long-fields", "cut"])
    assert result.exit_code == 2 and "Must be one of: refuse, truncate" in result.output


def _doc(tmp_path: Any) -> str:
    path = tmp_path / "doc.txt"
    path.write_text("Tents are waterproof shelters. A red tent weighs two kilograms and sleeps "
                    "two people.\n\nThe blue tent sleeps four and weighs five kilograms.\n")
    return str(path)


def _scenario(tmp_path: Any) -> str:
    path = tmp_path / "scenarios.jsonl"
    path.write_text('{"id": "s1", "goal": "Find out whether order A1 shipped."}\n')
    return str(path)


@pytest.mark.parametrize("command", ["generate", "simulate", "jailbreak", "run", "calibrate"])
def test_max_wait_reaches_the_calls_of_every_command(command: str, tmp_path: Any) -> None:
    """A server asking for 30 s against --max-wait 5: each command's model calls fail on the
    first 429, quickly, with the asked wait and the flag in what the command prints."""
    server = Always429("30")
    spec = f"openai:m@{server.base_url}"
    out = tmp_path / "out"
    args = {
        "generate": ["generate", _doc(tmp_path), "--out", str(out) + ".jsonl", "--n", "1",
                     "--max-candidates", "1", "--judge", spec, "--embeddings", "none",
                     "--no-cache", "--no-progress"],
        "simulate": ["simulate", "--scenarios", _scenario(tmp_path), "--target",
                     "python:examples.apps:toy_app", "--user-model", spec, "--out",
                     str(out) + ".jsonl", "--no-cache"],
        "jailbreak": ["jailbreak", "--target", "python:examples.apps:toy_app", "--n", "1",
                      "--judge", spec, "--no-refusal", "--out", str(out), "--no-store",
                      "--cache", str(tmp_path / "c.sqlite")],
        "run": ["run", "examples/qa.jsonl", "--metrics", "groundedness", "--judge", spec,
                "--out", str(out), "--no-store", "--no-cache", "--no-progress"],
        "calibrate": ["calibrate", "examples/rated.jsonl", "--metric-file",
                      "examples/metrics/helpfulness.md",
                      "--judge", spec, "--out", str(out), "--no-store", "--no-cache"],
    }[command]
    started = time.monotonic()
    try:
        result = _cli([*args, "--max-wait", "5"], OPENAI_API_KEY="sk-test-waits")
    finally:
        server.stop()
    assert time.monotonic() - started < 30
    assert result.exit_code == 3, result.output
    text = " ".join(result.output.split())
    if command == "run":  # its summary groups causes by their head; each row has it whole
        text = (out / "results.jsonl").read_text()
    if command == "calibrate":  # the judge's results are kept under its own folder
        text = "".join(p.read_text() for p in out.rglob("results.jsonl"))
    assert "asks to wait 30 s" in text and "--max-wait 5" in text, text
