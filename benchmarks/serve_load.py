"""``assay serve`` under load: latency of run pages and row pages of a 10,000-row run.

Builds a 10,000-row run (qa50's rows repeated with unique ids, three metrics, one with judge-style
reasons and details, inputs stored) in a temporary store, starts ``assay serve`` on a free
127.0.0.1 port in a child process, times the first (cold) run page, then sends a bounded number
of requests (half run pages at random offsets, half row pages of random rows) from 50 and then
200 concurrent clients (httpx.AsyncClient). It prints p50 / p95 / max latency, requests/s, the
server's CPU time per request and its peak RSS (VmHWM). Goal: p95 under 1 s at 50 clients.

Two servers are measured: ``assay serve`` as users start it (rendered pages of finished runs
kept in its page cache, so a page is rendered once), and the same app under uvicorn with the
page cache off (``create_app(page_cache_bytes=0)``: every request reads its page of rows from
the store and renders it), the cost of pages nobody has opened yet.

The clients run on the same machine as the server and share its cores.

    .venv/bin/python benchmarks/serve_load.py
    .venv/bin/python benchmarks/serve_load.py --rows 10000 --requests 1000 --clients 50,200
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any
from urllib.parse import quote

import httpx

from assay.store import open_store

ROOT = Path(__file__).resolve().parents[1]
QA50 = ROOT.parent / "shared" / "bench" / "qa50.jsonl"
FALLBACK = [{"question": f"Question {i}?", "context": f"Context {i}. " * 20,
             "answer": f"Answer {i}.", "ground_truth": f"Truth {i}."} for i in range(50)]


def build_store(path: Path, n: int) -> str:
    """A store at ``path`` holding one finished run of ``n`` rows; returns its id."""
    base = ([json.loads(x) for x in QA50.read_text(encoding="utf-8").splitlines() if x.strip()]
            if QA50.is_file() else FALLBACK)
    rng = random.Random(7)
    with open_store(path) as store:
        run_id = store.create_run(name="load", dataset="/not/here.jsonl", judge="fake:bench")
        batch: list[dict[str, Any]] = []
        inputs: dict[str, dict[str, Any]] = {}
        for i in range(n):
            row_id = f"r{i:05d}"
            src = base[i % len(base)]
            inputs[row_id] = {k: src[k] for k in ("question", "context", "answer",
                                                  "ground_truth") if src.get(k)}
            g = rng.choice([1.0, 2.0, 3.0, 4.0, 5.0, None])
            batch.append({
                "id": row_id,
                "f1_score": {"value": round(rng.random(), 3), "reason": None, "error": None},
                "exact_match": {"value": float(rng.random() < 0.3), "reason": None,
                                "error": None},
                "groundedness": {
                    "value": g, "weighted": None if g is None else g + 0.1,
                    "reason": "2 of 3 statements supported" if g else None,
                    "error": None if g else "judge output was not valid JSON",
                    "details": {"ungrounded": [{"statement": "It is red.",
                                                "verdict": "contradicted",
                                                "reason": "the context says green"}],
                                "prompt_sha256": "ab" * 32}},
            })
            if len(batch) == 1000:
                store.add_rows(run_id, batch, inputs=inputs)
                batch, inputs = [], {}
        if batch:
            store.add_rows(run_id, batch, inputs=inputs)
        store.finish_run(run_id, complete=True, summary={
            "rows": n, "rows_done": n, "complete": True, "metrics": {
                "f1_score": {"mean": 0.5}, "exact_match": {"mean": 0.3},
                "groundedness": {"mean": 3.0}}})
    return run_id


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def proc_figures(pid: int) -> tuple[float, float]:
    """(CPU seconds used so far, peak RSS in MiB) of process ``pid``, from /proc."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    cpu = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    hwm = next(line for line in Path(f"/proc/{pid}/status").read_text().splitlines()
               if line.startswith("VmHWM:"))
    return cpu, int(hwm.split()[1]) / 1024


async def load(base: str, urls: list[str], clients: int) -> tuple[list[float], float, int]:
    """(latencies in s, wall s, non-200 answers) of ``urls`` fetched by ``clients`` workers."""
    queue: asyncio.Queue[str] = asyncio.Queue()
    for u in urls:
        queue.put_nowait(u)
    latencies: list[float] = []
    bad = 0
    failures.clear()
    limits = httpx.Limits(max_connections=clients, max_keepalive_connections=clients)
    async with httpx.AsyncClient(base_url=base, limits=limits, timeout=300) as client:
        async def worker() -> None:
            nonlocal bad
            while True:
                try:
                    url = queue.get_nowait()
                except asyncio.QueueEmpty:
                    return
                started = time.perf_counter()
                try:
                    r = await client.get(url)
                    bad += r.status_code != 200
                except httpx.HTTPError as e:  # counted, with its kind, not fatal
                    bad += 1
                    failures[type(e).__name__] = failures.get(type(e).__name__, 0) + 1
                latencies.append(time.perf_counter() - started)
        started = time.perf_counter()
        await asyncio.gather(*(worker() for _ in range(clients)))
        return latencies, time.perf_counter() - started, bad


#: Requests that got no answer in the last ``load``, by exception type.
failures: dict[str, int] = {}


def pct(values: list[float], q: float) -> float:
    return statistics.quantiles(values, n=100, method="inclusive")[int(q) - 1]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rows", type=int, default=10_000)
    ap.add_argument("--requests", type=int, default=1000, help="requests per level")
    ap.add_argument("--clients", default="50,200")
    ap.add_argument("--servers", default="serve,uncached",
                    help="serve (assay serve), uncached (uvicorn, page cache off)")
    args = ap.parse_args()
    levels = [int(x) for x in args.clients.split(",") if x.strip()]
    rng = random.Random(11)
    with tempfile.TemporaryDirectory() as tmp:
        store = Path(tmp) / "runs.sqlite"
        t0 = time.perf_counter()
        run_id = build_store(store, args.rows)
        print(f"built a {args.rows:,}-row run in {time.perf_counter() - t0:.1f} s")
        for kind in [x.strip() for x in args.servers.split(",") if x.strip()]:
            measure(kind, store, run_id, args, levels, rng)


def start(kind: str, store: Path, port: int, log: Path) -> subprocess.Popen[bytes]:
    """The server ``kind`` on ``port``, in a child process writing its stderr to ``log``."""
    if kind == "serve":
        cmd = [sys.executable, "-m", "assay.cli", "serve", "--store", str(store),
               "--port", str(port)]
    elif kind == "uncached":
        cmd = [sys.executable, "-c", UNCACHED, str(store), str(port)]
    else:
        raise SystemExit(f"Got server {kind!r}. Must be serve or uncached.")
    with log.open("wb") as err:
        return subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=err)


UNCACHED = ("import sys, uvicorn; from assay.serve import create_app; "
            "uvicorn.run(create_app(sys.argv[1], page_cache_bytes=0), host='127.0.0.1', "
            "port=int(sys.argv[2]), log_level='warning')")


def measure(kind: str, store: Path, run_id: str, args: argparse.Namespace, levels: list[int],
            rng: random.Random) -> None:
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    log = store.parent / f"{kind}.log"
    server = start(kind, store, port, log)
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                if httpx.get(base + "/", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if server.poll() is not None or time.monotonic() > deadline:
                raise SystemExit(f"{kind} did not start: {log.read_text()[-2000:]}")
            time.sleep(0.1)
        print(f"\n{kind}: " + ("assay serve (page cache on)" if kind == "serve"
                                else "uvicorn on create_app(page_cache_bytes=0)"))
        started = time.perf_counter()
        cold = httpx.get(f"{base}/runs/{run_id}", timeout=300)
        cold_s = time.perf_counter() - started
        print(f"cold run page (whole-run statistics computed once): {cold_s * 1000:.0f} ms, "
              f"{len(cold.content) / 1024:.0f} KiB, status {cold.status_code}")
        print(f"{'clients':>7} {'requests':>8} {'p50 ms':>8} {'p95 ms':>8} {'max ms':>8} "
              f"{'req/s':>7} {'CPU ms/req':>10} {'peak RSS MiB':>12} {'failed':>7}")
        last = args.rows - 1
        for clients in levels:
            urls = []
            for k in range(args.requests):
                if k % 2:
                    urls.append(f"/runs/{run_id}/rows/{quote(f'r{rng.randint(0, last):05d}')}")
                else:
                    urls.append(f"/runs/{run_id}?offset={rng.randint(0, last // 100) * 100}")
            cpu0, _ = proc_figures(server.pid)
            lat, wall, bad = asyncio.run(load(base, urls, clients))
            cpu1, rss = proc_figures(server.pid)
            print(f"{clients:>7} {len(lat):>8} {pct(lat, 50) * 1000:>8.0f} "
                  f"{pct(lat, 95) * 1000:>8.0f} {max(lat) * 1000:>8.0f} "
                  f"{len(lat) / wall:>7.1f} {(cpu1 - cpu0) / len(lat) * 1000:>10.1f} "
                  f"{rss:>12.0f} {bad:>7}" + (f"  {failures}" if failures else ""), flush=True)
    finally:
        server.terminate()
        server.wait(timeout=30)
        errors = log.read_text(errors="replace")
        if errors.strip():
            print(f"{kind} stderr (last 3000 characters):\n{errors[-3000:]}")


if __name__ == "__main__":
    main()
