"""Does a CI verdict flap with a noisy judge? The interval verdict of ``assay compare --max-drop``
against the plain difference of two means, on the same runs.

A fake judge (``../shared/bench/fake_judge.py --score-noise 0.4``) moves each 1-5 score by one
point, up or down, in 40% of its answers, drawn afresh for every call. Each trial makes a fresh
baseline run of the bench's qa50 (50 rows, ``--metrics groundedness``, no cache) and two fresh
candidate runs:

- **unchanged**: the same rows again: any verdict but "pass" is the judge's noise;
- **worse**: the same rows with 30% of the answers made worse (the judge gives them 2
  instead of 4: ``--low-score-marker``).

Each candidate is compared with its baseline by ``assay compare BASE CAND --max-drop
groundedness=MARGIN`` (its exit code: 0 pass, 1 fail, 3 inconclusive), and by the mean-based
gate of earlier releases: fail when ``mean(candidate) - mean(baseline) < -MARGIN``. The table
counts each verdict over ``--trials`` trials; ``--repeat K`` gives every run ``--repeat K``.

    .venv/bin/python benchmarks/ci_flap.py [--trials 20] [--margin 0.1] [--repeat 1]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

from _fake_server import BENCH, ROOT, FakeJudge

QA50 = BENCH / "qa50.jsonl"
MARKER = "ZQX-WORSE"
VERDICTS = {0: "pass", 1: "fail", 3: "inconclusive"}


def worse_copy(path: Path, share: float) -> Path:
    """qa50 with the first ``share`` of every ten rows' answers marked (the judge scores them
    2 instead of 4)."""
    rows = [json.loads(line) for line in QA50.read_text().splitlines() if line.strip()]
    cut = round(share * 10)
    for i, row in enumerate(rows):
        if i % 10 < cut:
            row["answer"] = f"{row['answer']} {MARKER}"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def assay(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """``python -m assay ARGS`` with this checkout's source first on the path."""
    return subprocess.run([sys.executable, "-m", "assay", *args], env=env, text=True,
                          capture_output=True, check=False)


def run(data: Path, out: Path, repeat: int, env: dict[str, str]) -> Path:
    """One fresh run (no cache) of ``data`` into ``out``."""
    extra = ["--repeat", str(repeat)] if repeat > 1 else []
    done = assay("run", str(data), "--metrics", "groundedness", "--judge", "openai:gpt-4o-mini",
                 "--out", str(out), "--no-cache", "--no-store", "--no-progress", "--overwrite",
                 *extra, env=env)
    if done.returncode != 0:
        sys.exit(f"assay run failed ({done.returncode}):\n{done.stderr[-2000:]}")
    return out


def verdicts(base: Path, cand: Path, margin: float, env: dict[str, str]) -> tuple[str, str]:
    """(the interval verdict of ``assay compare``, the mean-based verdict) of one pair."""
    report = cand.parent / f"{cand.name}.compare.json"
    done = assay("compare", str(base), str(cand), "--max-drop", f"groundedness={margin}",
                 "--json", str(report), env=env)
    if done.returncode not in VERDICTS:
        sys.exit(f"assay compare failed ({done.returncode}):\n{done.stderr[-2000:]}")
    m = json.loads(report.read_text())["metrics"]["groundedness"]
    mean_based = "fail" if m["mean_b"] - m["mean_a"] < -margin else "pass"
    return VERDICTS[done.returncode], mean_based


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--trials", type=int, default=20)
    ap.add_argument("--margin", type=float, default=0.1)
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--noise", type=float, default=0.4)
    ap.add_argument("--worse-share", type=float, default=0.3)
    args = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="assay-flap-"))
    worse = worse_copy(tmp / "worse.jsonl", args.worse_share)
    counts: dict[str, Counter[str]] = {k: Counter() for k in
                                       ("unchanged verdict", "unchanged mean-based",
                                        "worse verdict", "worse mean-based")}
    with FakeJudge("--latency-ms", "0", "--score-noise", str(args.noise),
                   "--low-score-marker", MARKER, log=tmp / "judge.jsonl") as judge:
        env = {**{k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"},
               "PYTHONPATH": str(ROOT / "src"), "OPENAI_BASE_URL": judge.base_url,
               "OPENAI_API_KEY": "sk-bench", "ASSAY_STORE": str(tmp / "runs.sqlite")}
        for t in range(args.trials):
            base = run(QA50, tmp / f"base{t}", args.repeat, env)
            same = run(QA50, tmp / f"same{t}", args.repeat, env)
            bad = run(worse, tmp / f"worse{t}", args.repeat, env)
            v, m = verdicts(base, same, args.margin, env)
            counts["unchanged verdict"][v] += 1
            counts["unchanged mean-based"][m] += 1
            v, m = verdicts(base, bad, args.margin, env)
            counts["worse verdict"][v] += 1
            counts["worse mean-based"][m] += 1
            print(f"trial {t + 1}/{args.trials} done", file=sys.stderr)
    print(f"{args.trials} trials, qa50 (50 rows), judge noise {args.noise} (one point), margin "
          f"{args.margin}, repeat {args.repeat}, worse app: {args.worse_share:.0%} of rows 4 -> 2")
    print(f"{'':<24}{'pass':>8}{'fail':>8}{'inconclusive':>14}")
    for name, c in counts.items():
        print(f"{name:<24}{c['pass']:>8}{c['fail']:>8}{c['inconclusive']:>14}")


if __name__ == "__main__":
    main()
