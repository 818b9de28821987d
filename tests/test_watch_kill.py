"""The acceptance test of ``assay watch`` (issue 37, "Done when"): 200 traces sent by the
official OpenTelemetry SDK and OTLP/HTTP exporter, the watcher killed with SIGKILL midway
through scoring and restarted on the same spool and store: 200 rows in the run, 200 distinct
trace ids, none scored twice."""

from __future__ import annotations

import importlib.util
import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from assay.store import open_store

ROOT = Path(__file__).resolve().parents[1]
CLIENT = ROOT / "tests" / "watch_otel_client.py"


def _otel_missing() -> str | None:
    for module in ("opentelemetry.sdk.trace", "opentelemetry.exporter.otlp.proto.http"):
        try:
            if importlib.util.find_spec(module) is None:
                return module
        except ModuleNotFoundError:
            return module
    return None


requires_otel = pytest.mark.skipif(
    _otel_missing() is not None,
    reason=f"needs the official OpenTelemetry client ({_otel_missing()}): pip install "
           "opentelemetry-sdk opentelemetry-exporter-otlp-proto-http (in the dev extra)")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start_watch(tmp: Path, port: int, *args: str, log: str = "watch.log") -> subprocess.Popen:
    """``assay watch`` as a subprocess on ``port`` (spool and store in ``tmp``), once its
    receiver answers."""
    env = {**os.environ, "PYTHONPATH": f"{ROOT / 'src'}{os.pathsep}"
           f"{os.environ.get('PYTHONPATH', '')}"}
    proc = subprocess.Popen(
        [sys.executable, "-m", "assay", "watch", "--listen", f"127.0.0.1:{port}",
         "--spool", str(tmp / "spool"), "--store", str(tmp / "runs.sqlite"), "--no-cache",
         "--grace", "0.2", "--idle", "3", "--status-every", "0", *args],
        stdout=subprocess.PIPE, stderr=(tmp / log).open("ab"), env=env, cwd=tmp)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise AssertionError(f"assay watch exited {proc.returncode}: "
                                 f"{(tmp / log).read_text()[-2000:]}")
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/v1/status", timeout=1)
            return proc
        except OSError:
            time.sleep(0.1)
    proc.kill()
    raise AssertionError("assay watch did not start")


def watch_rows(store_path: Path) -> tuple[str | None, list[dict[str, Any]]]:
    """The watch run's id and rows (none yet: ``(None, [])``)."""
    if not store_path.exists():
        return None, []
    with open_store(store_path) as store:
        runs = [r for r in store.runs() if r.kind == "watch"]
        if not runs:
            return None, []
        assert len(runs) == 1, [r.id for r in runs]
        return runs[0].id, store.rows(runs[0].id)


def wait_for(check: Any, timeout: float, what: str) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if (got := check()):
            return got
        time.sleep(0.1)
    raise AssertionError(f"timed out waiting for {what}")


@requires_otel
def test_200_traces_from_the_otel_sdk_survive_a_kill_9_and_are_each_scored_once(
        fake_judge_server: Any, tmp_path: Path) -> None:
    judge = fake_judge_server("--latency-ms", "200")
    port = free_port()
    args = ("--metrics", "fluency", "--judge", f"openai:m@{judge.base_url}",
            "--concurrency", "8")
    watch = start_watch(tmp_path, port, *args)
    sent = subprocess.run([sys.executable, str(CLIENT), f"http://127.0.0.1:{port}/v1/traces",
                           "200"], check=False, capture_output=True, text=True, timeout=120)
    assert sent.stdout.strip() == "flushed 200", sent.stderr[-2000:]
    store_path = tmp_path / "runs.sqlite"
    # kill -9 midway through scoring (8 rows at a time, 0.2 s each: 40 rows a second)
    wait_for(lambda: len(watch_rows(store_path)[1]) >= 30, 60, "30 rows stored")
    before = {r["id"]: r["watch"]["scored"] for r in watch_rows(store_path)[1]}
    watch.send_signal(signal.SIGKILL)
    watch.wait(timeout=10)
    run_id, rows = watch_rows(store_path)
    stored_at_kill = len(rows)
    assert 30 <= stored_at_kill < 200, stored_at_kill  # midway indeed
    requests_at_kill = len(judge.records())

    watch = start_watch(tmp_path, port, *args)
    wait_for(lambda: len(watch_rows(store_path)[1]) >= 200, 90, "200 rows stored")
    time.sleep(1.0)  # anything scored twice would show now
    watch.send_signal(signal.SIGTERM)
    watch.communicate(timeout=60)
    assert watch.returncode == 0, (tmp_path / "watch.log").read_text()[-3000:]

    again, rows = watch_rows(store_path)
    assert again == run_id  # the restart resumed the same run
    ids = [r["id"] for r in rows]
    assert len(rows) == 200 and len(set(ids)) == 200
    assert all(r["id"] == r["watch"]["trace_id"] and len(r["id"]) == 32 for r in rows)
    assert all(r["fluency"]["value"] is not None for r in rows)
    # none scored twice: every row stored before the kill kept its record, and after the
    # restart the judge was asked once for each row not stored at the kill. Before it: the
    # requests answered (logged) and at most 8 in flight (--concurrency; the judge logs a
    # request when it answers), whose rows were never stored and are asked again, once.
    assert {i: r["watch"]["scored"] for r in rows for i in [r["id"]] if i in before} == before
    requests = len(judge.records())
    assert 200 <= requests <= requests_at_kill + 8 + (200 - stored_at_kill), (
        requests, requests_at_kill, stored_at_kill)
    with open_store(store_path) as store:
        info = store.get(run_id)
    assert info.status == "complete" and info.kind == "watch"
    assert info.summary["rows"] == 200 and info.summary["watch"]["unfinished_traces"] == 0
    spool = tmp_path / "spool" / "spool.sqlite"
    import sqlite3
    with sqlite3.connect(spool) as db:
        assert dict(db.execute("SELECT state, count(*) FROM traces GROUP BY state")) == {
            "scored": 200}
    json.dumps(info.summary)  # stored as JSON


@requires_otel
def test_a_full_backlog_answers_429_and_the_otel_exporter_retries_until_all_arrive(
        fake_judge_server: Any, tmp_path: Path) -> None:
    judge = fake_judge_server("--latency-ms", "100")
    port = free_port()
    watch = start_watch(tmp_path, port, "--metrics", "fluency", "--judge",
                        f"openai:m@{judge.base_url}", "--concurrency", "4",
                        "--max-backlog", "40")
    sent = subprocess.run([sys.executable, str(CLIENT), f"http://127.0.0.1:{port}/v1/traces",
                           "100"], check=False, capture_output=True, text=True, timeout=120)
    assert sent.stdout.strip() == "flushed 100", sent.stderr[-2000:]
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/v1/status") as answer:
        status = json.loads(answer.read())
    assert status["rejected"] > 0  # some batches were told to come back
    wait_for(lambda: len(watch_rows(tmp_path / "runs.sqlite")[1]) >= 100, 60, "100 rows")
    watch.send_signal(signal.SIGTERM)
    watch.communicate(timeout=60)
    assert watch.returncode == 0
    rows = watch_rows(tmp_path / "runs.sqlite")[1]
    assert len(rows) == 100 and len({r["id"] for r in rows}) == 100
