"""``assay watch``'s receiver under N parallel large bodies: the watch process's peak memory,
and what the clients were answered.

Starts ``assay watch`` (``--judge fake``, its own spool and store in a temporary folder) from
the source tree given (default: this checkout's ``src``), then N clients each send a body of
M MiB at the same time (half of every body first, then the rest, so that all are in flight
together; the bodies are not JSON, so a body read whole is answered 400). Prints, per source
tree: the watch process's peak resident memory over its memory before (``VmHWM`` -
``VmRSS``, Linux), the answers by status code, the wall time, and the receiver's own counters
(``GET /v1/status`` ``receiver``: peak bodies and bytes held at once, 503s), when it has them.

    .venv/bin/python benchmarks/watch_receiver_limits.py                    # 40 x 60 MiB
    .venv/bin/python benchmarks/watch_receiver_limits.py --n 16 --mib 16 --before ../main/src
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def memory_kib(pid: int, field: str) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    raise RuntimeError(f"no {field} in /proc/{pid}/status")


def status(port: int) -> dict[str, Any]:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/v1/status", timeout=30) as answer:
        return json.loads(answer.read())  # type: ignore[no-any-return]


def start_watch(src: Path, folder: Path, port: int) -> subprocess.Popen[bytes]:
    env = {**os.environ, "PYTHONPATH": str(src)}
    proc = subprocess.Popen(
        [sys.executable, "-m", "assay", "watch", "--metrics", "fluency", "--judge", "fake",
         "--listen", f"127.0.0.1:{port}", "--spool", str(folder / "spool"), "--store",
         str(folder / "runs.sqlite"), "--no-cache", "--status-every", "0"],
        stdout=subprocess.DEVNULL, stderr=(folder / "watch.log").open("wb"), env=env,
        cwd=folder)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            status(port)
            return proc
        except OSError:
            time.sleep(0.1)
    proc.kill()
    raise RuntimeError(f"assay watch did not start: {(folder / 'watch.log').read_text()}")


def send_all(port: int, n: int, body: bytes) -> list[int]:
    """N clients send ``body`` at once; their status codes (0: the connection failed)."""
    barrier = threading.Barrier(n)
    codes: list[int] = []
    head = (b"POST /v1/traces HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json"
            b"\r\nContent-Length: %d\r\n\r\n" % len(body))
    half = len(body) // 2
    view = memoryview(body)

    def client() -> None:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=120) as sock:
                sock.sendall(head)
                sock.sendall(view[:half])
                barrier.wait(120)
                sock.sendall(view[half:])
                got = b""
                while b"\r\n" not in got:
                    got += sock.recv(4096)
                codes.append(int(got.split(b" ")[1]))
        except (OSError, threading.BrokenBarrierError):
            codes.append(0)

    threads = [threading.Thread(target=client) for _ in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return codes


def measure(src: Path, n: int, mib: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        port = free_port()
        watch = start_watch(src, Path(tmp), port)
        try:
            before = memory_kib(watch.pid, "VmRSS")
            start = time.perf_counter()
            codes = send_all(port, n, b"x" * (mib << 20))
            wall = time.perf_counter() - start
            peak = memory_kib(watch.pid, "VmHWM")
            receiver = status(port).get("receiver")
        finally:
            watch.terminate()
            watch.wait(60)
    print(f"{src}: {n} x {mib} MiB bodies at once")
    print(f"  watch peak memory: +{(peak - before) / 1024:,.0f} MiB over "
          f"{before / 1024:,.0f} MiB ({wall:.1f} s)")
    print(f"  answers: {dict(sorted(Counter(codes).items()))}")
    if receiver:
        print(f"  receiver: peak {receiver['peak_bodies']} bodies, "
              f"{receiver['peak_buffered_bytes'] / (1 << 20):,.0f} MiB held at once; "
              f"{receiver['busy_refusals']} answered 503 + Retry-After")
    else:
        print("  receiver: no counters (no bound on bodies held at once)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=40, help="bodies sent at once")
    parser.add_argument("--mib", type=int, default=60, help="size of each body (MiB)")
    parser.add_argument("--src", type=Path, default=ROOT / "src", help="assay's source tree")
    parser.add_argument("--before", type=Path, help="another source tree to measure first "
                                                    "(e.g. a checkout without the bound)")
    args = parser.parse_args()
    for src in ([args.before] if args.before else []) + [args.src]:
        measure(src.resolve(), args.n, args.mib)


if __name__ == "__main__":
    main()
