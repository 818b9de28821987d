"""Reading a large OpenTelemetry Collector file-exporter ``.jsonl`` (one OTLP export per line,
the spans of a trace spread over two lines, a batch of traces per line): peak memory and time
of ``read_records`` over the whole file, in a fresh process each.

    .venv/bin/python benchmarks/otlp_read.py                      # ~80 MB, the 1.37 attributes
    .venv/bin/python benchmarks/otlp_read.py --mb 50 --mixed      # the five conventions in turn
    .venv/bin/python benchmarks/otlp_read.py --before /tmp/old/src  # the same with another assay
    .venv/bin/python benchmarks/otlp_read.py --with-row           # a row among the exports
    .venv/bin/python benchmarks/otlp_read.py --gzip               # the file gzipped

Each trace is an agent turn (root span, model call with a tool call, tool span, model call with
the answer) carrying the usual non-content attributes (model, token counts, server address).
The figures: the file's size, traces read, seconds, and the peak resident memory while reading
above the process's resident memory once assay is imported (Linux: ``VmHWM`` after resetting
it through ``/proc/self/clear_refs``), so the reader's own share; with ``--tracemalloc`` also
the peak of Python allocations.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
PER_LINE = 25  # traces per export line
WORDS = ("the", "of", "city", "weather", "forecast", "rain", "sun", "wind", "degrees", "today")


def _attrs(pairs: dict[str, Any]) -> list[dict[str, Any]]:
    out = []
    for k, v in pairs.items():
        val = ({"intValue": str(v)} if isinstance(v, int) else
               {"stringValue": v if isinstance(v, str) else json.dumps(v)})
        out.append({"key": k, "value": val})
    return out


def trace(i: int, convention: str, rng: random.Random) -> list[dict[str, Any]]:
    """The spans of one agent turn, written in ``convention`` (see tests/test_otlp_conventions)."""
    import test_otlp_conventions as conv  # the five writers of one conversation

    filler = " ".join(rng.choice(WORDS) for _ in range(60))
    tid = f"{i:032x}"
    spans = [conv.root(), *conv.CONVENTIONS[convention]()]
    for s in spans:
        s["traceId"] = tid
        s["attributes"] += _attrs({
            "gen_ai.request.model": "gpt-4o-mini", "gen_ai.usage.input_tokens": 182 + i % 50,
            "gen_ai.usage.output_tokens": 24, "server.address": "api.openai.com",
            "server.port": 443, "gen_ai.response.id": f"chatcmpl-{i:x}",
            "app.note": filler})
    return spans


def write(path: Path, megabytes: float, mixed: bool, row: bool = False) -> int:
    """Write the file; return how many traces it holds. ``row``: end it with an ordinary row
    (then the file is not indexed: its traces are all held until the end)."""
    rng = random.Random(7)
    names = ["semconv_137", "span_events", "openllmetry", "openinference", "old_json"]
    n = 0
    with path.open("w", encoding="utf-8") as f:
        while f.tell() < megabytes * 2**20:
            batch = [trace(n + k, names[(n + k) % 5] if mixed else names[0], rng)
                     for k in range(PER_LINE)]
            n += PER_LINE
            for half in (slice(0, 2), slice(2, None)):  # a trace's spans over two lines
                spans = [s for t in batch for s in t[half]]
                f.write(json.dumps({"resourceSpans": [{"resource": {"attributes": _attrs(
                    {"service.name": "travel"})}, "scopeSpans": [{"scope": {"name": "bench"},
                                                                   "spans": spans}]}]}) + "\n")
        if row:
            f.write(json.dumps({"id": "plain", "question": "Q?", "answer": "A."}) + "\n")
    return n


MEASURE = """
import sys, time, tracemalloc
from pathlib import Path
from assay.data import read_records

def status(key):
    for line in open("/proc/self/status"):
        if line.startswith(key):
            return int(line.split()[1]) / 1024
base = status("VmRSS")
with open("/proc/self/clear_refs", "w") as f:
    f.write("5")  # the high-water mark starts again from here
if sys.argv[2] == "1":
    tracemalloc.start()
t0 = time.perf_counter()
problems = []
n = sum(1 for _ in read_records(Path(sys.argv[1]), problems))
wall = time.perf_counter() - t0
traced = tracemalloc.get_traced_memory()[1] / 2**20 if sys.argv[2] == "1" else 0.0
print(n, len(problems), wall, status("VmHWM") - base, base, traced)
"""


def measure(path: Path, src: Path, traced: bool) -> tuple[int, int, float, float, float, float]:
    """(records, problems, seconds, peak RSS over the start, RSS at the start, peak traced
    Python allocations), in MiB, of reading ``path`` with the assay of ``src``."""
    env = {**os.environ, "PYTHONPATH": str(src)}
    out = subprocess.run([sys.executable, "-c", MEASURE, str(path), "1" if traced else "0"],
                         env=env, check=True, capture_output=True, text=True).stdout.split()
    return (int(out[0]), int(out[1]), float(out[2]), float(out[3]), float(out[4]),
            float(out[5]))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=float, default=80.0, help="file size, in MiB")
    parser.add_argument("--mixed", action="store_true", help="the five conventions in turn")
    parser.add_argument("--before", type=Path, help="another assay src/ to measure too")
    parser.add_argument("--with-row", action="store_true",
                        help="end the file with an ordinary row (no first pass: every trace "
                             "is held to the end)")
    parser.add_argument("--gzip", action="store_true", help="read the file gzipped")
    parser.add_argument("--tracemalloc", action="store_true",
                        help="also the peak of Python allocations (slower)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "otel.jsonl"
        traces = write(path, args.mb, args.mixed, args.with_row)
        mib = path.stat().st_size / 2**20
        if args.gzip:
            zipped = path.with_name("otel.jsonl.gz")
            with path.open("rb") as f, gzip.open(zipped, "wb", compresslevel=1) as g:
                shutil.copyfileobj(f, g)
            path.unlink()
            path = zipped
        print(f"file: {mib:.1f} MiB{' (gzipped)' if args.gzip else ''}, {traces:,} traces, {PER_LINE} per export line, "
              f"{'five conventions' if args.mixed else 'GenAI semconv 1.37'}")
        for label, src in [("this", ROOT / "src"),
                           *([("before", args.before)] if args.before else [])]:
            started = time.perf_counter()
            rows, problems, wall, peak, base, traced = measure(path, src, args.tracemalloc)
            extra = f"  tracemalloc peak {traced:7.1f} MiB" if args.tracemalloc else ""
            print(f"{label:7} {rows:>7,} records  {problems:>6,} problems  {wall:6.1f} s  "
                  f"peak RSS +{peak:7.1f} MiB over {base:.0f} MiB after import{extra}  "
                  f"({time.perf_counter() - started:.1f} s with start-up)")


if __name__ == "__main__":
    main()
