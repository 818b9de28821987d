"""``assay watch`` throughput: traces per second received and scored, and the time from a
trace's end to its stored score.

Starts the bench's fake judge (``--latency-ms``, default 300) and ``assay watch`` (``--metrics
fluency``, no cache, default ``--grace 1`` and ``--idle 10``), then sends N traces (default 300)
with the official OpenTelemetry SDK (``tests/watch_otel_client.py``: a root span around a GenAI
chat span, OTLP/HTTP protobuf through a ``BatchSpanProcessor``). Prints:

- received: traces/s from the first span spooled to the last (``GET /v1/status``, polled);
- scored: traces/s from the first trace received to the last row stored;
- end to stored score: p50 / p95 / max over the rows of the trace's end (its root span's end
  time, as the SDK stamped it) to when its row was scored (the rows' ``"watch"`` keys; the
  row is committed to the store within 0.5 s after that).

    .venv/bin/python benchmarks/watch_throughput.py                # 300 traces, 300 ms judge
    .venv/bin/python benchmarks/watch_throughput.py --n 100 --latency-ms 50
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from datetime import datetime
from pathlib import Path
from typing import Any

from _fake_server import FakeJudge

from assay.store import open_store

ROOT = Path(__file__).resolve().parents[1]
CLIENT = ROOT / "tests" / "watch_otel_client.py"


def seconds(iso: str) -> float:
    return datetime.fromisoformat(iso).timestamp()


def status(port: int) -> dict[str, Any]:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/v1/status", timeout=5) as answer:
        return json.loads(answer.read())  # type: ignore[no-any-return]


def rows_of(store_path: Path) -> list[dict[str, Any]]:
    with open_store(store_path) as store:
        runs = [r for r in store.runs() if r.kind == "watch"]
        return store.rows(runs[0].id) if runs else []


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=300, help="traces to send")
    parser.add_argument("--latency-ms", type=int, default=300, help="the fake judge's latency")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder, FakeJudge(
            "--latency-ms", str(args.latency_ms), log=Path(folder) / "judge.jsonl") as judge:
        tmp = Path(folder)
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        env = {**os.environ, "OPENAI_API_KEY": "sk-bench-not-a-secret",
               "PYTHONPATH": f"{ROOT / 'src'}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"}
        watch = subprocess.Popen(
            [sys.executable, "-m", "assay", "watch", "--listen", f"127.0.0.1:{port}",
             "--metrics", "fluency", "--judge", f"openai:m@{judge.base_url}", "--no-cache",
             "--spool", str(tmp / "spool"), "--store", str(tmp / "runs.sqlite"),
             "--status-every", "0"], env=env, cwd=tmp, stdout=subprocess.DEVNULL,
            stderr=(tmp / "watch.log").open("wb"))
        for _ in range(600):
            try:
                status(port)
                break
            except OSError:
                time.sleep(0.1)
        client = subprocess.Popen([sys.executable, str(CLIENT),
                                   f"http://127.0.0.1:{port}/v1/traces", str(args.n)],
                                  stdout=subprocess.PIPE, text=True)
        first = last = None
        while True:  # received: two spans a trace
            spans = status(port)["spans"]
            now = time.monotonic()
            if spans and first is None:
                first = now
            if spans >= 2 * args.n:
                last = now
                break
            time.sleep(0.02)
        out, _ = client.communicate(timeout=120)
        assert out.strip() == f"flushed {args.n}", out
        while len(rows := rows_of(tmp / "runs.sqlite")) < args.n:
            time.sleep(0.2)
        watch.send_signal(signal.SIGTERM)
        watch.wait(timeout=120)
    assert first is not None and last is not None
    received = [seconds(r["watch"]["received"]) for r in rows]
    scored = [seconds(r["watch"]["scored"]) for r in rows]
    lags = [seconds(r["watch"]["scored"]) - seconds(r["watch"]["ended"]) for r in rows]
    print(f"traces: {args.n}, judge latency {args.latency_ms} ms, metrics fluency "
          f"(1 judge request per trace), rows stored {len(rows)}, distinct "
          f"{len({r['id'] for r in rows})}")
    print(f"received: {args.n / max(last - first, 1e-9):.1f} traces/s "
          f"({last - first:.2f} s for all spans)")
    print(f"scored: {args.n / (max(scored) - min(received)):.1f} traces/s "
          f"({max(scored) - min(received):.2f} s from the first trace received to the last "
          "scored)")
    print(f"trace end -> scored: p50 {statistics.median(lags):.2f} s, p95 "
          f"{percentile(lags, 0.95):.2f} s, max {max(lags):.2f} s (plus at most 0.5 s to "
          "the store's commit)")


if __name__ == "__main__":
    main()
