"""``assay run`` when its judge fails, end to end over real HTTP: the CLI in a subprocess against
the bench's fake judge (``shared/bench/fake_judge.py``) or a small scripted server in this file.

- A judge that cannot answer at all (401, 403, 404, a closed port, an unknown host) stops the
  run early with exit 3, the endpoint, the status, the provider's message and the fix; the
  finished rows are kept and ``--resume`` against a working judge sends only what is missing.
- What is transient (5xx, a 200 whose body is HTML or empty, a 429 whose Retry-After cannot be
  read) is retried: every row is scored and the run exits 0.
- Calls that fail for good leave rows unscored; over ``--max-failed-share`` of a metric's rows,
  exit 3 with the causes and their counts on the terminal.
- The API key never reaches the terminal or any file in ``--out``; no traceback anywhere.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any

import pytest

from assay.calls import ManagedJudge
from assay.calls._pace import ADAPTIVE_START
from conftest import QA50, FakeJudgeServer
from support import LoopbackServer

#: The CLI as a subprocess, with this interpreter (whatever environment runs the tests).
ASSAY = [sys.executable, "-m", "assay.cli"]
KEY = "sk-secret-abcdef123456"
ROWS = 30
#: Seconds within which a judge that cannot answer must stop the run (issue 15).
HARD_FAILURE_LIMIT_S = 30.0
#: The message the bench's fake judge gives with an injected error of that status.
INJECTED = "injected error {status}"


# ---------------------------------------------------------------------------- helpers


@dataclass
class Run:
    """One finished ``assay run`` subprocess."""

    code: int
    stdout: str
    stderr: str
    seconds: float
    out: Path

    @property
    def summary(self) -> dict[str, Any]:
        return json.loads((self.out / "summary.json").read_text(encoding="utf-8"))

    def results(self) -> list[dict[str, Any]]:
        path = self.out / "results.jsonl"
        if not path.exists():
            return []
        return [json.loads(line) for line in path.read_text(encoding="utf-8").split("\n")
                if line.strip()]

    def said(self, text: str) -> bool:
        """Whether stderr holds ``text`` (whitespace runs, line wraps included, read as one)."""
        return " ".join(text.split()) in " ".join(self.stderr.split())


def _dataset(path: Path, n: int = ROWS) -> Path:
    lines = [line for line in QA50.read_text(encoding="utf-8").split("\n") if line.strip()][:n]
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return path


def _assay_run(data: Path, out: Path, base_url: str, *extra: str,
               timeout: float = 60.0, metrics: str = "groundedness,f1_score") -> Run:
    """``assay run DATA --metrics groundedness,f1_score --judge openai:m`` against ``base_url``,
    checked for what must hold after any run: no traceback, the key nowhere."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("OPENAI_", "AZURE_OPENAI_", "ASSAY_PROGRESS"))}
    env.update(OPENAI_BASE_URL=base_url, OPENAI_API_KEY=KEY, NO_COLOR="1",
               XDG_CACHE_HOME=str(out.parent / "xdg-cache"),
               XDG_DATA_HOME=str(out.parent / "xdg-data"))
    cmd = [*ASSAY, "run", str(data), "--metrics", metrics,
           "--judge", "openai:m", "--out", str(out), "--no-store", "--no-cache", *extra]
    start = time.monotonic()
    proc = subprocess.run(cmd, check=False, env=env, capture_output=True, text=True,
                          timeout=timeout, stdin=subprocess.DEVNULL)
    run = Run(proc.returncode, proc.stdout, proc.stderr, time.monotonic() - start, out)
    assert "Traceback" not in run.stdout + run.stderr, run.stderr
    assert "internal error" not in (run.stdout + run.stderr).lower(), run.stderr
    assert KEY not in run.stdout + run.stderr
    assert KEY[3:] not in run.stdout + run.stderr  # not even without its prefix
    for f in out.rglob("*") if out.exists() else ():
        if f.is_file():
            assert KEY.encode() not in f.read_bytes(), f"the API key is in {f}"
    return run


def _scored(run: Run, metric: str = "groundedness") -> set[str]:
    return {r["id"] for r in run.results() if r[metric]["value"] is not None}


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])  # closed on leaving: nothing listens there


# ---------------------------------------------------------------------------- fixtures


@pytest.fixture(scope="module")
def fake_judge(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """Factory: ``fake_judge("--fail-rate", "1")`` is the bench's fake judge started with those
    arguments (5 ms latency), one process per configuration for the whole module, each stopped
    at teardown."""
    root = tmp_path_factory.mktemp("judges")
    servers: dict[tuple[str, ...], FakeJudgeServer] = {}

    def start(*args: str) -> FakeJudgeServer:
        if args not in servers:
            servers[args] = FakeJudgeServer(root, "--latency-ms", "5", *args)
        return servers[args]

    yield start
    for server in servers.values():
        server.stop()


@pytest.fixture
def data(tmp_path: Path) -> Path:
    return _dataset(tmp_path / "qa30.jsonl")


class ScriptedJudge(LoopbackServer):
    """A tiny OpenAI-compatible server on loopback: the first chat requests get the answers of
    ``script`` in order, every later one ``then``; ``"proxy"`` forwards the request to a working
    judge (the bench's) and returns its answer unchanged.

    Answers: ``html`` (200 text/html), ``empty`` (200 application/json, no body), ``429soon``
    (429 with ``Retry-After: soon``), ``401`` (OpenAI's invalid-key error), ``proxy``.
    """

    def __init__(self, upstream: str, script: list[str], then: str = "proxy") -> None:
        self.upstream = upstream.rstrip("/")
        self.script = list(script)
        self.then = then
        self.served: list[str] = []
        self.times: list[float] = []  # time.monotonic() of each chat request, in order
        self._lock = threading.Lock()
        super().__init__()

    def on_post(self, handler: BaseHTTPRequestHandler, body: bytes) -> None:
        with self._lock:
            n = len(self.served)
            action = self.script[n] if n < len(self.script) else self.then
            self.served.append(action)
            self.times.append(time.monotonic())
        self.answer(handler, action, body)

    def answer(self, h: BaseHTTPRequestHandler, action: str, body: bytes) -> None:
        headers: dict[str, str] = {}
        if action == "proxy":
            req = urllib.request.Request(self.upstream + h.path.removeprefix("/v1"), data=body,
                                         headers={"Content-Type": "application/json"})
            with urllib.request.urlopen(req, timeout=10) as resp:
                status, ctype, payload = resp.status, resp.headers["Content-Type"], resp.read()
        elif action == "html":
            status, ctype = 200, "text/html; charset=utf-8"
            payload = b"<html><body><h1>502 Bad Gateway</h1>nginx</body></html>"
        elif action == "empty":
            status, ctype, payload = 200, "application/json", b""
        elif action == "429soon":
            status, ctype, headers = 429, "application/json", {"Retry-After": "soon"}
            payload = json.dumps({"error": {"message": "Rate limit reached, retry soon",
                                            "type": "rate_limit_exceeded"}}).encode()
        elif action == "401":
            status, ctype = 401, "application/json"
            payload = json.dumps({"error": {"message": "Incorrect API key provided",
                                            "type": "invalid_request_error",
                                            "code": "invalid_api_key"}}).encode()
        else:
            raise AssertionError(f"unknown action {action!r}")
        h.send_response(status)
        h.send_header("Content-Type", ctype)
        h.send_header("Content-Length", str(len(payload)))
        for k, v in headers.items():
            h.send_header(k, v)
        h.end_headers()
        try:
            h.wfile.write(payload)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up on this call (a stopped or cancelled run)


@pytest.fixture
def scripted(fake_judge: Any) -> Iterator[Any]:
    """Factory: ``scripted(["html", "empty"])`` starts a :class:`ScriptedJudge` in front of a
    working fake judge; stopped after the test."""
    healthy = fake_judge()
    started: list[ScriptedJudge] = []

    def start(script: list[str], then: str = "proxy") -> ScriptedJudge:
        judge = ScriptedJudge(healthy.base_url, script, then)
        started.append(judge)
        return judge

    yield start
    for judge in started:
        judge.stop()


# ---------------------------------------------------------------------------- hard failures


def _assert_stopped(run: Run, *, endpoint: str, status: str, fix: list[str]) -> None:
    assert run.code == 3, run.stderr
    assert run.seconds < HARD_FAILURE_LIMIT_S
    assert run.said("the run stopped early")
    assert run.said(f"endpoint: {endpoint}"), run.stderr
    assert run.said(f"HTTP status: {status}"), run.stderr
    for piece in fix:
        assert run.said(piece), (piece, run.stderr)
    assert run.said("--resume")


@pytest.mark.parametrize(("status", "fix"), [
    (401, ["likely fix:", "OPENAI_API_KEY"]),
    (403, ["likely fix:", "permissions", "model name"]),
    (404, ["likely fix:", "--judge openai:MODEL", "OPENAI_BASE_URL"]),
])
def test_a_judge_refusing_every_call_stops_the_run_with_exit_3_and_the_fix(
        fake_judge: Any, tmp_path: Path, status: int, fix: list[str]) -> None:
    judge = fake_judge("--fail-rate", "1", "--fail-status", str(status))
    rows = ADAPTIVE_START + 30  # more than the first wave of requests (adaptive)
    run = _assay_run(_dataset(tmp_path / "many.jsonl", rows), tmp_path / "out", judge.base_url)
    _assert_stopped(run, endpoint=f"{judge.base_url}/chat/completions", status=str(status),
                    fix=fix)
    assert run.said(INJECTED.format(status=status))  # the provider's own message
    # Stopped early: only a few rows were attempted, each a few times at most.
    assert len(run.results()) < rows
    assert run.summary["judge"]["requests"] < rows
    assert run.summary["complete"] is False


def test_after_a_401_the_kept_rows_stay_and_resume_scores_every_row(
        fake_judge: Any, data: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    refused = _assay_run(data, out, fake_judge("--fail-rate", "1", "--fail-status", "401").base_url)
    assert refused.code == 3
    kept = refused.results()
    assert kept, "the rows finished before the stop are kept in results.jsonl"
    assert all(r["f1_score"]["value"] is not None for r in kept)
    assert all(r["groundedness"]["error"].startswith("judge call failed: HTTP 401")
               for r in kept)
    scored_before = {r["id"] for r in kept if r["groundedness"]["value"] is not None}

    healthy = fake_judge()
    before = len(healthy.records())
    resumed = _assay_run(data, out, healthy.base_url, "--resume")
    assert resumed.code == 0, resumed.stderr
    assert _scored(resumed) == {str(i) for i in range(1, ROWS + 1)} == _scored(resumed, "f1_score")
    assert [r["id"] for r in resumed.results()] == [str(i) for i in range(1, ROWS + 1)]
    assert resumed.summary["metrics"]["groundedness"]["scored"] == ROWS
    # Only what was not scored yet is sent: here every row (the 401s scored none).
    assert resumed.summary["judge"]["requests"] == ROWS - len(scored_before) == ROWS
    assert len(healthy.records()) - before == ROWS


@dataclass
class _Revoked:
    judge: ScriptedJudge
    first: Run
    scored_first: set[str]
    resumed: Run


@pytest.fixture(scope="module")
def revoked(fake_judge: Any, tmp_path_factory: pytest.TempPathFactory) -> Iterator[_Revoked]:
    """One call at a time; five calls succeed, then the key is refused (401) for good. Then a
    resume against a working judge."""
    tmp = tmp_path_factory.mktemp("revoked")
    data, out = _dataset(tmp / "qa30.jsonl"), tmp / "out"
    healthy = fake_judge()
    judge = ScriptedJudge(healthy.base_url, ["proxy"] * 5, then="401")
    try:
        first = _assay_run(data, out, judge.base_url, "--concurrency", "1")
        scored_first = _scored(first)
        resumed = _assay_run(data, out, healthy.base_url, "--resume")
    finally:
        judge.stop()
    yield _Revoked(judge, first, scored_first, resumed)


def test_resume_after_a_key_revoked_mid_run_sends_only_the_unscored_rows(
        revoked: _Revoked) -> None:
    """The run stops with the five rows scored; a resume sends one request per row not scored
    yet, and nothing for the five."""
    first, resumed = revoked.first, revoked.resumed
    _assert_stopped(first, endpoint=f"{revoked.judge.base_url}/chat/completions", status="401",
                    fix=["OPENAI_API_KEY"])
    assert first.said("Incorrect API key provided")  # the provider's message
    assert revoked.scored_first == {"1", "2", "3", "4", "5"}
    assert resumed.code == 0, resumed.stderr
    assert len(_scored(resumed)) == ROWS
    assert resumed.summary["judge"]["requests"] == ROWS - 5


def test_no_call_is_sent_after_the_judge_stopped(revoked: _Revoked) -> None:
    assert revoked.first.code == 3
    assert revoked.judge.served.count("401") == ManagedJudge.STOP_AFTER == 3


@pytest.mark.parametrize("where", ["closed port", "unknown host"])
def test_nothing_answering_at_the_url_stops_the_run_with_exit_3(
        data: Path, tmp_path: Path, where: str) -> None:
    base = (f"http://127.0.0.1:{_closed_port()}/v1" if where == "closed port"
            else "http://no-such-host.invalid/v1")
    run = _assay_run(data, tmp_path / "out", base)
    _assert_stopped(run, endpoint=f"{base}/chat/completions", status="none (no connection)",
                    fix=["likely fix:", "OPENAI_BASE_URL"])
    assert run.said("cannot connect")


# ---------------------------------------------------------------------------- transient failures


def test_http_500s_on_a_third_of_calls_are_retried_and_every_row_scored(
        fake_judge: Any, data: Path, tmp_path: Path) -> None:
    # --seed 0: the fault draws are fixed; 4 of the first 30 calls fail, so the run is quick.
    judge = fake_judge("--fail-rate", "0.3", "--seed", "0")
    run = _assay_run(data, tmp_path / "out", judge.base_url)
    assert run.code == 0, run.stderr
    assert run.summary["metrics"]["groundedness"]["scored"] == ROWS
    assert run.summary["judge"]["retries"] > 0
    assert run.summary["judge"]["requests"] == ROWS + run.summary["judge"]["retries"]
    assert "judge calls failed" not in run.stderr


@dataclass
class _AllFailed:
    default: Run
    allowed: Run


@pytest.fixture(scope="module")
def all_500(fake_judge: Any, tmp_path_factory: pytest.TempPathFactory) -> _AllFailed:
    """Every call answered 500, two tries each: once with the default --max-failed-share,
    once with --max-failed-share 1."""
    judge = fake_judge("--fail-rate", "1", "--fail-status", "500")
    tmp = tmp_path_factory.mktemp("all500")
    data = _dataset(tmp / "qa30.jsonl")
    args = ("--max-attempts", "2", "--concurrency", "16")
    return _AllFailed(_assay_run(data, tmp / "default", judge.base_url, *args),
                      _assay_run(data, tmp / "allowed", judge.base_url, *args,
                                 "--max-failed-share", "1"))


def test_rows_lost_to_failed_calls_over_max_failed_share_exit_3_with_the_causes(
        all_500: _AllFailed) -> None:
    run = all_500.default
    assert run.code == 3, run.stderr
    assert run.summary["metrics"]["groundedness"]["unscored"] == ROWS
    assert run.summary["metrics"]["f1_score"]["scored"] == ROWS  # nothing else lost
    assert run.summary["failures"]["causes"] == {"judge call failed: server error (500)": ROWS}
    assert run.summary["judge"]["requests"] == 2 * ROWS  # --max-attempts 2
    assert run.said("judge calls failed:")
    assert run.said(f"{ROWS} results: judge call failed: server error (500)")
    assert run.said("judge failed: groundedness lost more than 5.0%")
    assert run.said("--resume")


def test_the_failed_share_message_names_the_option_that_sets_the_bar(
        all_500: _AllFailed) -> None:
    assert all_500.default.code == 3
    assert all_500.default.said("--max-failed-share")


def test_max_failed_share_1_accepts_the_same_failures_with_exit_0(all_500: _AllFailed) -> None:
    run = all_500.allowed
    assert run.code == 0, run.stderr
    assert run.summary["metrics"]["groundedness"]["unscored"] == ROWS
    # The causes are still on the terminal: accepted, not hidden.
    assert run.said(f"{ROWS} results: judge call failed: server error (500)")
    assert not run.said("judge failed:")


def test_a_200_whose_body_is_html_or_empty_is_retried_and_scored(
        scripted: Any, tmp_path: Path) -> None:
    data = _dataset(tmp_path / "qa10.jsonl", 10)
    judge = scripted(["html", "empty", "html", "empty"])
    run = _assay_run(data, tmp_path / "out", judge.base_url)
    assert run.code == 0, run.stderr
    assert judge.served[:4] == ["html", "empty", "html", "empty"]
    assert run.summary["metrics"]["groundedness"]["scored"] == 10
    assert run.summary["judge"]["retries"] == 4
    assert run.summary["judge"]["requests"] == 10 + 4 == len(judge.served)
    results = (run.out / "results.jsonl").read_text(encoding="utf-8")
    assert "internal error" not in results.lower()
    assert all(r["groundedness"]["error"] is None for r in run.results())


def test_a_429_with_an_unreadable_retry_after_backs_off_and_scores(
        scripted: Any, tmp_path: Path) -> None:
    data = _dataset(tmp_path / "qa10.jsonl", 10)
    judge = scripted(["429soon", "429soon", "429soon"])
    run = _assay_run(data, tmp_path / "out", judge.base_url, "--max-attempts", "1")
    # --max-attempts 1: a 429 does not use up tries, so these rows are still scored.
    assert run.code == 0, run.stderr
    assert run.summary["metrics"]["groundedness"]["scored"] == 10
    assert run.summary["judge"]["rate_limited"] == 3
    assert run.summary["judge"]["requests"] == 10 + 3 == len(judge.served)
    assert all(r["groundedness"]["error"] is None for r in run.results())
    # "soon" gives no wait, so the backoff does (at least 0.5 s on a first retry), not 0 s.
    assert min(judge.times[10:]) - max(judge.times[:3]) >= 0.45


# ---------------------------------------------------------------------------- progress


def test_progress_is_plain_lines_when_stderr_is_not_a_terminal_and_quiet_silences_it(
        fake_judge: Any, data: Path, tmp_path: Path) -> None:
    judge = fake_judge()
    loud = _assay_run(data, tmp_path / "loud", judge.base_url)
    assert loud.code == 0, loud.stderr
    lines = [x for x in loud.stderr.splitlines() if x.startswith("scoring: ")]
    assert lines, loud.stderr
    assert lines[-1].startswith(f"scoring: {ROWS}/{ROWS} rows (100.0%)")
    assert all(" rows (" in x and "\r" not in x and "\x1b" not in x for x in lines)
    quiet = _assay_run(data, tmp_path / "quiet", judge.base_url, "--quiet")
    assert quiet.code == 0, quiet.stderr
    assert "scoring:" not in quiet.stderr
    assert quiet.summary["metrics"]["groundedness"]["scored"] == ROWS


def test_conversations_whose_every_turn_failed_count_as_failed_calls_and_exit_3(
        fake_judge: Any, tmp_path: Path) -> None:
    """A conversation metric whose every turn's call failed is a failed call (counted, exit
    3, retried by --resume), not an unscored row that looks like a finished one."""
    judge = fake_judge("--fail-rate", "1", "--fail-status", "500")
    data = tmp_path / "chats.jsonl"
    data.write_text("".join(json.dumps({"id": f"c{i}", "messages": [
        {"role": "user", "content": f"Question {i}?"},
        {"role": "assistant", "content": f"Answer {i}."},
        {"role": "user", "content": "And then?"},
        {"role": "assistant", "content": "Then nothing."}]}) + "\n" for i in range(4)),
        encoding="utf-8")
    run = _assay_run(data, tmp_path / "out", judge.base_url, "--max-attempts", "1",
                     metrics="coherence")
    assert run.code == 3, run.stderr
    assert run.summary["failures"]["causes"] == {"judge call failed: server error (500)": 4}
    assert all(r["coherence"]["error"].startswith("assistant turn 1 could not be scored: "
                                                  "judge call failed") for r in run.results())
    assert run.said("judge failed: coherence lost more than 5.0%")
