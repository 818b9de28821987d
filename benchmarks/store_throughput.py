"""Run store throughput: rows/s written to SQLite, and the store's share of a whole run.

Part 1 writes rows straight to a fresh SQLite store (``Store.add_rows``): one row per call
(one transaction each, what the recorder did before it batched), then batches of 100, 500
and 2,000, with and without each row's input fields (masked for secrets, as stored).
Part 2 writes through ``RunRecorder`` (the path ``assay run`` takes: batches of 500 rows or
0.5 s, heartbeat thread) with inputs. Part 3 times whole child ``assay run --metrics f1_score``
processes on the same N-row file with ``--no-store`` and with ``--store``, and prints each
one's wall time, rows/s and peak RSS (``os.wait4``), so the store's share is the difference.

    .venv/bin/python benchmarks/store_throughput.py                # 100,000 rows
    .venv/bin/python benchmarks/store_throughput.py --rows 20000 --runs 1
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
from typing import Any

from assay.data import Row, row_inputs
from assay.records._recording import RunRecorder
from assay.store import open_store

ROOT = Path(__file__).resolve().parents[1]
QA50 = ROOT.parent / "shared" / "bench" / "qa50.jsonl"


def base_rows() -> list[dict[str, Any]]:
    return [json.loads(x) for x in QA50.read_text(encoding="utf-8").splitlines() if x.strip()]


def record(i: int) -> dict[str, Any]:
    """A results.jsonl line of an ``f1_score`` run."""
    return {"id": f"r{i}", "f1_score": {"value": 0.5, "weighted": None, "reason": None,
                                        "error": None, "details": {}, "prompt_tokens": 0,
                                        "completion_tokens": 0}}


def inputs_of(base: list[dict[str, Any]], i: int) -> dict[str, Any]:
    row = base[i % len(base)]
    return row_inputs(Row(id=f"r{i}", line=i + 1, question=row.get("question"),
                          context=row.get("context"), answer=row.get("answer"),
                          ground_truth=row.get("ground_truth")))


def add_rows_rate(tmp: Path, n: int, batch: int, with_inputs: bool,
                  base: list[dict[str, Any]]) -> float:
    """Rows/s of ``Store.add_rows`` in batches of ``batch`` into a fresh store."""
    inputs = [inputs_of(base, i) for i in range(n)] if with_inputs else None
    records = [record(i) for i in range(n)]
    path = tmp / f"add-{batch}-{with_inputs}.sqlite"
    with open_store(path) as store:
        run_id = store.create_run()
        started = time.perf_counter()
        for s in range(0, n, batch):
            chunk = records[s:s + batch]
            store.add_rows(run_id, chunk, inputs={r["id"]: inputs[s + k] for k, r in
                                                  enumerate(chunk)} if inputs else None)
        rate = n / (time.perf_counter() - started)
        assert store.row_count(run_id) == n
    return rate


def recorder_rate(tmp: Path, n: int, base: list[dict[str, Any]]) -> float:
    """Rows/s through ``RunRecorder.add`` (with inputs) up to ``finish``."""
    inputs = [inputs_of(base, i) for i in range(n)]
    with open_store(tmp / "recorder.sqlite") as store:
        rec = RunRecorder.start(store, kind="run", name="bench", tags=[], dataset=None,
                                metrics={"f1_score": "1"}, judge=None, settings={})
        started = time.perf_counter()
        for i in range(n):
            rec.add(record(i), inputs[i])
        rec.finish({"metrics": {}}, complete=True)
        rate = n / (time.perf_counter() - started)
        assert store.row_count(rec.run_id) == n
    return rate


def child_run(data: Path, out: Path, store: Path | None) -> tuple[float, float, int]:
    """(wall seconds, peak RSS MiB, exit status) of one ``assay run`` child process."""
    cmd = [sys.executable, "-m", "assay.cli", "run", str(data), "--metrics", "f1_score",
           "--no-progress", "--out", str(out),
           *(["--store", str(store)] if store else ["--no-store"])]
    started = time.monotonic()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(proc.pid, 0)
    return time.monotonic() - started, usage.ru_maxrss / 1024, os.waitstatus_to_exitcode(status)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rows", type=int, default=100_000, help="rows per measurement")
    ap.add_argument("--runs", type=int, default=1, help="whole runs per mode (part 3)")
    args = ap.parse_args()
    n, base = args.rows, base_rows()
    with tempfile.TemporaryDirectory() as tmpdir:
        tmp = Path(tmpdir)
        print(f"Store.add_rows on SQLite, {n:,} rows (per-row: {min(n, 2000):,} rows)")
        print(f"{'rows per call':>14} {'inputs':>7} {'rows/s':>10}")
        for batch in (1, 100, 500, 2000):
            for with_inputs in (False, True):
                count = min(n, 2000) if batch == 1 else n
                rate = add_rows_rate(tmp, count, batch, with_inputs, base)
                print(f"{batch:>14} {'yes' if with_inputs else 'no':>7} {rate:>10,.0f}",
                      flush=True)
        print(f"\nRunRecorder.add + finish, with inputs: {recorder_rate(tmp, n, base):,.0f} "
              "rows/s\n")
        data = tmp / "rows.jsonl"
        with data.open("w", encoding="utf-8") as f:
            for i in range(n):
                f.write(json.dumps({**base[i % len(base)], "id": f"r{i}"}) + "\n")
        print(f"assay run --metrics f1_score on {n:,} rows")
        print(f"{'mode':>10} {'wall s':>8} {'rows/s':>9} {'peak RSS MiB':>13}  exit")
        for k in range(args.runs):
            for mode in ("no store", "store"):
                store = tmp / f"runs-{k}.sqlite" if mode == "store" else None
                wall, rss, code = child_run(data, tmp / f"out-{mode}-{k}".replace(" ", "-"),
                                            store)
                print(f"{mode:>10} {wall:>8.1f} {n / wall:>9,.0f} {rss:>13.0f}  {code}",
                      flush=True)
                if store is not None:
                    with open_store(store) as opened:
                        info = opened.get("latest")
                        assert (info.status, info.rows) == ("complete", n), (info.status,
                                                                             info.rows)


if __name__ == "__main__":
    main()
