"""CPU seconds of a process's first injection scan (a qa50 row) and of the next 49 rows' scans,
median of ``--runs`` fresh processes each, with the patterns' store (``injection/
_stored_patterns.py``) cold (an empty cache folder: the patterns are compiled, then stored) and
warm (stored by an earlier process). CPU time (``time.thread_time``) rather than wall, so a
machine loaded by other work moves the figures less. ``--src`` names the source tree to time
(repeatable, e.g. the tree before a change made with ``git archive REV src | tar -x -C
/tmp/before``); the trees' runs alternate.

    .venv/bin/python benchmarks/injection_first_scan.py [--runs 7] [--src /tmp/before/src --src src]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
QA50 = ROOT.parent / "shared" / "bench" / "qa50.jsonl"

CHILD = """
import json, sys, time
import numpy  # a run has it by then (the language model's preload imports it)
from assay.data import rows_from_records
from assay.run._injection import injection_of
rows = rows_from_records([json.loads(line) for line in open(sys.argv[1])])
clock = time.thread_time
start = clock(); injection_of(rows[0]); first = clock()
for row in rows[1:]:
    injection_of(row)
print(json.dumps([first - start, clock() - first]))
"""


def scan_times(src: Path, cache: Path) -> tuple[float, float]:
    """(first row's scan, the other rows' scans) in CPU seconds, in a new process."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env.update(PYTHONPATH=str(src), XDG_CACHE_HOME=str(cache))
    out = subprocess.run([sys.executable, "-c", CHILD, str(QA50)], env=env, check=True,
                         capture_output=True, text=True).stdout
    first, rest = json.loads(out)
    return float(first), float(rest)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--src", type=Path, action="append",
                    help="an assay source tree (repeatable; default: this checkout's src)")
    args = ap.parse_args()
    trees = [p.resolve() for p in (args.src or [ROOT / "src"])]
    tmp = Path(tempfile.mkdtemp(prefix="assay-first-scan-"))
    figures: dict[tuple[str, int], list[float]] = {}
    for i in range(args.runs + 1):  # the first round warms the file cache, not counted
        for t, src in enumerate(trees):
            cold = scan_times(src, tmp / f"cold-{t}-{i}")
            warm = scan_times(src, tmp / f"warm-{t}")
            if i:
                for name, value in (("first scan, store cold", cold[0]),
                                    ("first scan, store warm", warm[0]),
                                    ("rows 2-50, store warm", warm[1])):
                    figures.setdefault((name, t), []).append(value)
    print(f"CPU seconds, median of {args.runs} processes each")
    print(f"{'':<28}" + "".join(f"{'tree ' + str(t + 1):>10}" for t in range(len(trees))))
    for name in ("first scan, store cold", "first scan, store warm", "rows 2-50, store warm"):
        print(f"{name:<28}" + "".join(f"{statistics.median(figures[name, t]):>10.3f}"
                                      for t in range(len(trees))))
    for t, src in enumerate(trees):
        print(f"tree {t + 1}: {src}")


if __name__ == "__main__":
    main()
