"""Start-up and a run's fixed cost of the ``assay`` command, median of ``--runs`` runs each.

Times, as whole processes: ``assay --help``, ``assay run -h``, ``assay run`` of a missing file
(a usage error) and ``assay run`` of the bench's qa50 with ``--metrics groundedness`` against
the fake judge at 300 ms (``../shared/bench/fake_judge.py``, started as the judge-efficiency
benchmark starts it), whose own ``elapsed_s`` (from ``summary.json``: reading, judge set-up,
scoring) is printed too, and the same for the first row of qa50 alone: a one-row run's
``elapsed_s`` less one request's latency is the run's fixed cost (what does not grow with the
rows), and qa50's less the one-row run's is what its other 49 rows add (each row's injection
scan and request, in the interpreter). ``--src`` names the source tree to time (default: this checkout's);
give it more than once to compare trees in one sitting, e.g. the tree before a change, made with
``git worktree add /tmp/before REV``: their runs alternate (A B A B ...), so a machine that
slows down or speeds up during the call moves both alike.

The child processes run without ``PYTHONDONTWRITEBYTECODE`` (some machines set it), so the
uncounted first round writes each tree's bytecode and the counted rounds load it, as an
installed assay does; with it set, every run would compile ``src/assay`` from source (0.3 s).

    .venv/bin/python benchmarks/cli_start.py [--runs 5] [--src /tmp/before/src --src src]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _fake_server import BENCH, ROOT, FakeJudge

QA50 = BENCH / "qa50.jsonl"
CASES = {
    "assay --help": ["--help"],
    "assay run -h": ["run", "-h"],
    "assay run MISSING.jsonl (exit 2)": ["run", "no-such-file.jsonl"],
}
QA_CASE = "assay run qa50 --metrics groundedness"
ONE_CASE = "assay run of qa50's first row (its elapsed_s)"


def timed(src: Path, args: list[str], env: dict[str, str]) -> float:
    """Seconds from start to exit of ``python -m assay ARGS`` with ``src`` first on the path."""
    t0 = time.monotonic()
    subprocess.run([sys.executable, "-m", "assay", *args], env={**env, "PYTHONPATH": str(src)},
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    return time.monotonic() - t0


def qa_run(src: Path, base_url: str, out: Path, env: dict[str, str],
           data: Path = QA50) -> tuple[float, float]:
    """(process wall, the run's own elapsed_s) of one run of ``data`` (default: qa50)."""
    env = {**env, "OPENAI_BASE_URL": base_url, "OPENAI_API_KEY": "sk-bench"}
    wall = timed(src, ["run", str(data), "--metrics", "groundedness", "--judge",
                       "openai:gpt-4o-mini", "--out", str(out), "--no-cache", "--no-store",
                       "--no-progress", "--overwrite"], env)
    summary = json.loads((out / "summary.json").read_text())
    return wall, float(summary["elapsed_s"])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--latency-ms", default="300")
    ap.add_argument("--src", type=Path, action="append",
                    help="an assay source tree (repeatable; default: this checkout's src)")
    args = ap.parse_args()
    trees = [p.resolve() for p in (args.src or [ROOT / "src"])]
    tmp = Path(tempfile.mkdtemp(prefix="assay-start-"))
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTHONPATH", "PYTHONDONTWRITEBYTECODE")}
    figures: dict[tuple[str, int], list[float]] = {}
    qa1 = tmp / "qa1.jsonl"
    qa1.write_text(QA50.read_text().splitlines()[0] + "\n")
    with FakeJudge("--latency-ms", args.latency_ms, log=tmp / "judge.jsonl") as judge:
        for i in range(args.runs + 1):  # the first round warms the file cache, not counted
            for t, src in enumerate(trees):
                for name, case in CASES.items():
                    figures.setdefault((name, t), []).append(timed(src, case, env))
                wall, elapsed = qa_run(src, judge.base_url, tmp / f"out{t}", env)
                figures.setdefault((QA_CASE + " (process wall)", t), []).append(wall)
                figures.setdefault((QA_CASE + " (its elapsed_s)", t), []).append(elapsed)
                _, one = qa_run(src, judge.base_url, tmp / f"one{t}", env, data=qa1)
                figures.setdefault((ONE_CASE, t), []).append(one)
            if i == 0:
                figures.clear()
    print(f"median of {args.runs} runs, seconds; fake judge at {args.latency_ms} ms")
    print(f"{'':<52}" + "".join(f"{'tree ' + str(t + 1):>10}" for t in range(len(trees))))
    for name in [*CASES, QA_CASE + " (process wall)", QA_CASE + " (its elapsed_s)", ONE_CASE]:
        print(f"{name:<52}" + "".join(
            f"{statistics.median(figures[name, t]):>10.2f}" for t in range(len(trees))))
    latency = float(args.latency_ms) / 1000
    for name, figure in (
            ("fixed cost: one-row elapsed_s - one latency", lambda t: statistics.median(
                figures[ONE_CASE, t]) - latency),
            ("per further row (qa50 - one row) / 49, ms", lambda t: 1000 * (statistics.median(
                figures[QA_CASE + " (its elapsed_s)", t]) - statistics.median(
                figures[ONE_CASE, t])) / 49)):
        print(f"{name:<52}" + "".join(f"{figure(t):>10.2f}" for t in range(len(trees))))
    for t, src in enumerate(trees):
        print(f"tree {t + 1}: {src}")


if __name__ == "__main__":
    main()
