"""Every call has a deadline: ``--timeout`` bounds the whole call (connect, wait and the body)
for judges, embedders, targets and tools; a plain-function target or tool that hangs is
abandoned at its deadline and never keeps the process alive; Ctrl-C ends a run whatever its
calls are doing (exit 130, finished rows kept, ``--resume`` finishes); ``--timeout`` must be a
positive finite number. Offline: a small OpenAI-compatible server on loopback that trickles
its answers a byte at a time or never answers at all. Every wait is bounded."""

from __future__ import annotations

import asyncio
import itertools
import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from assay.agents import make_agent
from assay.agents._tools import run_tool_call
from assay.calls import ManagedEmbedder
from assay.cli.main import app
from assay.embeddings import make_embedder
from assay.errors import CallTimeoutError, JudgeError
from assay.run import JudgeOptions, RunOptions, evaluate_async
from assay.targets import make_target
from support import LoopbackServer, completion_body

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "src"
#: The longest any test here waits for anything (a bound, not a timing assertion).
BOUND_S = 30.0
_names = itertools.count()


class FaultServer(LoopbackServer):
    """An OpenAI-compatible server on loopback that misbehaves: ``trickle`` answers 200 and
    sends the body a byte every ``gap`` seconds (each read is quick, the whole body takes about
    a minute); ``silent`` reads the request and never answers. ``requests`` counts the POSTs."""

    def __init__(self, mode: str, gap: float = 0.2) -> None:
        self.mode, self.gap, self.requests = mode, gap, 0
        self.stopping = threading.Event()
        super().__init__()

    def on_post(self, handler: BaseHTTPRequestHandler, body: bytes) -> None:
        self.requests += 1
        if self.mode == "silent":
            self.stopping.wait(BOUND_S * 2)
            return
        data = json.dumps(self.answer(handler.path)).encode()
        handler.send_response(200)
        handler.send_header("Content-Type", "application/json")
        handler.send_header("Content-Length", str(len(data)))
        handler.end_headers()
        try:
            for byte in data:
                handler.wfile.write(bytes([byte]))
                handler.wfile.flush()
                if self.stopping.wait(self.gap):
                    return
        except OSError:  # the client gave up on it: what a deadline does
            return

    @staticmethod
    def answer(path: str) -> dict[str, Any]:
        if path.endswith("/embeddings"):
            return {"object": "list", "model": "e", "usage": {"prompt_tokens": 1, "total_tokens": 1},
                    "data": [{"object": "embedding", "index": 0, "embedding": [0.1, 0.2]}]}
        if path.endswith("/chat/completions"):
            return completion_body('{"score": 4, "reason": "fine"}')
        return {"answer": "Paris is the capital of France."}

    def stop(self) -> None:
        self.stopping.set()
        super().stop()


@pytest.fixture
def fault_server() -> Iterator[Any]:
    """Factory: ``fault_server("trickle")`` starts one; all are stopped at the end."""
    servers: list[FaultServer] = []

    def start(mode: str) -> FaultServer:
        servers.append(FaultServer(mode))
        return servers[-1]

    yield start
    for s in servers:
        s.stop()


def _bounded(coroutine: Any) -> Any:
    """Run ``coroutine``; a call that ignores its deadline fails the test instead of hanging."""
    return asyncio.run(asyncio.wait_for(coroutine, BOUND_S))


def _qa(path: Path, n: int = 2) -> Path:
    path.write_text("".join(json.dumps({"id": f"r{i}", "question": "Capital of France?",
                                        "answer": f"Paris ({i})."}) + "\n" for i in range(n)))
    return path


def test_a_judge_that_trickles_its_body_is_cut_at_the_deadline_and_counts_as_failed(
        fault_server: Any, tmp_path: Path) -> None:
    server = fault_server("trickle")
    result = _bounded(evaluate_async(
        _qa(tmp_path / "d.jsonl"), metrics="coherence", judge=f"openai:m@{server.url}/v1",
        judging=JudgeOptions(timeout=0.5, cache=False), run=RunOptions(store=False)))
    for row in result.rows:
        assert row["coherence"]["value"] is None
        assert row["coherence"]["error"] == ("judge call failed: timed out after 0.5 s "
                                             "(gave up after 2 attempts)")
    assert result.summary["failures"]["by_metric"]["coherence"]["failed"] == 2
    assert server.requests == 4  # two tries per call, not --max-attempts of them


def test_the_cli_exits_3_when_the_judge_trickles(fault_server: Any, tmp_path: Path) -> None:
    server = fault_server("trickle")
    proc = subprocess.run(
        [sys.executable, "-m", "assay.cli", "run", str(_qa(tmp_path / "d.jsonl")), "--metrics",
         "coherence", "--judge", f"openai:m@{server.url}/v1", "--timeout", "0.5", "--no-cache",
         "--no-store", "--out", str(tmp_path / "out")],
        capture_output=True, text=True, timeout=BOUND_S * 2, check=False,
        env={**os.environ, "PYTHONPATH": str(SRC), "ASSAY_PROGRESS": "0"})
    assert proc.returncode == 3, proc.stderr
    assert "timed out after 0.5 s" in proc.stderr


def test_an_embedder_that_trickles_its_body_is_cut_at_the_deadline(
        fault_server: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    server = fault_server("trickle")
    monkeypatch.setenv("OPENAI_BASE_URL", f"{server.url}/v1")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-a-secret")

    async def embed() -> Any:
        embedder = ManagedEmbedder(make_embedder("openai:e", timeout=0.5), timeout=0.5)
        return await embedder.embed(["a"])

    with pytest.raises(JudgeError, match=r"timed out after 0\.5 s \(gave up after 2 attempts\)"):
        _bounded(embed())


def test_an_http_target_that_trickles_its_body_is_cut_at_the_deadline(
        fault_server: Any) -> None:
    server = fault_server("trickle")
    target = make_target(f"http:{server.url}/answer", timeout=0.5)
    with pytest.raises(CallTimeoutError, match=r"timed out after 0\.5 s"):
        _bounded(target.answer("Capital of France?", [], "en"))


HUNG = '''
import os, threading, pathlib
RELEASE = threading.Event()  # a test sets it at the end; a subprocess never does

def app(*args):
    pathlib.Path(os.environ.get("MARKER", os.devnull)).write_text("entered")
    RELEASE.wait()
    return "late"

def agent(messages, tools):
    if os.environ.get("HANG") and "hang" in messages[-1]["content"]:
        app()
    return [{"role": "assistant", "content": "done"}]

TOOLS = {"slow": app}
'''


@pytest.fixture
def hung_module(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """The name of an importable module whose ``app`` hangs until the test ends."""
    name = f"hung_under_test_{next(_names)}"
    (tmp_path / f"{name}.py").write_text(HUNG)
    monkeypatch.syspath_prepend(str(tmp_path))
    yield name
    module = sys.modules.pop(name, None)
    if module is not None:
        module.RELEASE.set()  # let the abandoned threads end


def test_a_hung_python_target_times_out_and_does_not_keep_the_process_alive(
        hung_module: str, tmp_path: Path) -> None:
    target = make_target(f"python:{hung_module}:app", timeout=0.5)
    with pytest.raises(CallTimeoutError, match=r"^timed out after 0\.5 s$"):
        _bounded(target.answer("q", [], "en"))
    # A call given up on (here by the caller) leaves nothing behind that the process waits for.
    script = (f"import asyncio\nfrom assay.targets import make_target\n"
              f"target = make_target('python:{hung_module}:app')\n"
              "async def main():\n    try:\n"
              "        await asyncio.wait_for(target.reply([]), 0.5)\n"
              "    except TimeoutError:\n        print('given up')\n"
              "asyncio.run(main())\n")
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=BOUND_S, check=False, cwd=tmp_path,
                          env={**os.environ, "PYTHONPATH": f"{SRC}{os.pathsep}{tmp_path}"})
    assert (proc.returncode, proc.stdout.strip()) == (0, "given up"), proc.stderr


def test_a_hung_agent_leaves_its_row_failed_with_the_reason(
        hung_module: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HANG", "1")
    rows = [{"id": "h", "messages": [{"role": "user", "content": "please hang"}],
             "reference_tool_calls": []}]
    agent = make_agent(f"python:{hung_module}:agent", timeout=0.3)
    result = _bounded(evaluate_async(rows, metrics="tool_call_accuracy", agent=agent,
                                     run=RunOptions(store=False)))
    assert result.rows[0]["agent"]["failure"] == ("target call failed: timed out after 0.3 s "
                                                  "(gave up after 2 attempts)")
    assert agent.stats.failed == 1


def test_a_hung_tool_answers_with_a_timeout_error(hung_module: str) -> None:
    tools = __import__(hung_module).TOOLS
    call = {"id": "c1", "function": {"name": "slow", "arguments": "{}"}}
    message = _bounded(run_tool_call(call, tools, timeout=0.3))
    assert message == {"role": "tool", "tool_call_id": "c1",
                       "content": "error: timed out after 0.3 s"}


def test_ctrl_c_ends_a_run_whose_target_hangs_and_resume_finishes_it(
        hung_module: str, tmp_path: Path) -> None:
    data = tmp_path / "d.jsonl"
    data.write_text("".join(json.dumps({"id": i, "messages": [{"role": "user", "content": text}],
                                        "reference_tool_calls": []}) + "\n"
                            for i, text in (("a", "hi"), ("b", "hello"), ("c", "hang"))))
    out, marker = tmp_path / "out", tmp_path / "entered"
    cmd = [sys.executable, "-m", "assay.cli", "run", str(data), "--target",
           f"python:{hung_module}:agent", "--metrics", "tool_call_accuracy", "--out", str(out),
           "--store", str(tmp_path / "runs.sqlite")]
    env = {**os.environ, "PYTHONPATH": f"{SRC}{os.pathsep}{tmp_path}", "ASSAY_PROGRESS": "0"}
    proc = subprocess.Popen(cmd, cwd=tmp_path, env={**env, "HANG": "1", "MARKER": str(marker)},
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        results = out / "results.jsonl"
        deadline = time.monotonic() + BOUND_S
        while time.monotonic() < deadline and proc.poll() is None:
            if marker.exists() and results.exists() and len(results.read_text().splitlines()) == 2:
                break
            time.sleep(0.05)
        assert marker.exists(), "the hung row was never asked"
        proc.send_signal(signal.SIGINT)
        _, stderr = proc.communicate(timeout=20)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert proc.returncode == 130, stderr
    assert "--resume" in stderr
    assert sorted(json.loads(x)["id"] for x in results.read_text().splitlines()) == ["a", "b"]
    done = subprocess.run(cmd + ["--resume"], cwd=tmp_path, env=env, capture_output=True,
                          text=True, timeout=BOUND_S * 2, check=False)
    assert done.returncode == 0, done.stderr
    assert sorted(json.loads(x)["id"] for x in results.read_text().splitlines()) == ["a", "b", "c"]


def _command(name: str, tmp_path: Path) -> list[str]:
    """A command line that would run (or fail for another reason than --timeout) without it."""
    target = "python:examples.apps:toy_app"
    return {
        "run": ["run", str(_qa(tmp_path / "d.jsonl")), "--metrics", "exact_match", "--no-store",
                "--out", str(tmp_path / "o")],
        "explain": ["explain", str(tmp_path / "o"), "r0"],
        "robustness": ["robustness", str(tmp_path / "rgb.json"), "--target",
                       target, "--no-store", "--out", str(tmp_path / "o")],
        "jailbreak": ["jailbreak", "--target", target, "--no-store", "--out", str(tmp_path / "o")],
        "simulate": ["simulate", "--target", target, "--out", str(tmp_path / "o.jsonl")],
    }[name]


@pytest.mark.parametrize("value", ["0", "-1", "nan", "inf"])
@pytest.mark.parametrize("command", ["run", "explain", "robustness", "jailbreak", "simulate"])
def test_timeout_must_be_a_positive_finite_number(command: str, value: str,
                                                  tmp_path: Path) -> None:
    result = CliRunner().invoke(app, [*_command(command, tmp_path), f"--timeout={value}"])
    assert result.exit_code == 2, result.output
    assert "--timeout" in result.output and "positive finite number" in result.output


def test_the_library_refuses_a_timeout_that_is_not_a_positive_finite_number() -> None:
    from assay.errors import ConfigError
    for bad in (0, -1.0, float("nan"), float("inf")):
        with pytest.raises(ConfigError, match="positive finite number"):
            JudgeOptions(timeout=bad)
        with pytest.raises(ConfigError, match="positive finite number"):
            make_target("python:examples.apps:toy_app", timeout=bad)
