"""Lexical metrics at size: rows/s and peak RSS of ``assay run`` on 10k, 100k and 1M rows.

Each size is a fresh JSONL file (qa50's rows repeated with unique ids) scored by a child
``assay run --metrics f1_score,exact_match --no-store`` process; peak RSS is that process's own
(``os.wait4``). The issue's target is a peak RSS that does not grow with the row count.

    .venv/bin/python benchmarks/streaming.py                 # 10k, 100k, 1M
    .venv/bin/python benchmarks/streaming.py --sizes 10000,100000
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
QA50 = ROOT.parent / "shared" / "bench" / "qa50.jsonl"


def write_rows(path: Path, n: int) -> None:
    """``n`` rows: qa50's, repeated, each with a unique id."""
    base = [json.loads(x) for x in QA50.read_text().splitlines() if x.strip()]
    with path.open("w", encoding="utf-8") as f:
        for i in range(n):
            f.write(json.dumps({**base[i % len(base)], "id": f"r{i}"}) + "\n")


def measure(path: Path, out: Path) -> tuple[float, float, int]:
    """(wall seconds, peak RSS in MiB, exit status) of one child run."""
    cmd = [sys.executable, "-m", "assay.cli", "run", str(path), "--metrics",
           "f1_score,exact_match", "--no-store", "--no-progress", "--overwrite",
           "--out", str(out)]
    started = time.monotonic()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.monotonic() - started
    return wall, usage.ru_maxrss / 1024, os.waitstatus_to_exitcode(status)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sizes", default="10000,100000,1000000")
    args = ap.parse_args()
    sizes = [int(x) for x in args.sizes.split(",") if x.strip()]
    print(f"{'rows':>9} {'rows/s':>9} {'wall s':>8} {'peak RSS MiB':>13}  exit")
    with tempfile.TemporaryDirectory() as tmp:
        for n in sizes:
            data = Path(tmp) / f"rows-{n}.jsonl"
            write_rows(data, n)
            wall, rss, code = measure(data, Path(tmp) / f"out-{n}")
            print(f"{n:>9} {n / wall:>9.0f} {wall:>8.1f} {rss:>13.0f}  {code}", flush=True)
            data.unlink()


if __name__ == "__main__":
    main()
