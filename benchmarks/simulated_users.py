"""Simulated users with the embedded model as the user and as the judge: the conversations
``assay simulate --scenarios`` has with an app, how they ended, and what the four conversation
metrics make of them, with the seconds per conversation.

Two apps: ``examples/agent_app.py`` (rule-based, with its tools) and the embedded model itself
(``--target local``, no tools). Each step is an assay command, run as a user would run it;
everything lands in ``OUT/<app>/`` (``conversations.jsonl``, its ``.summary.json``, and the
``assay run`` output in ``scored/``), and the script prints one table per app.

Usage:
    .venv/bin/python benchmarks/simulated_users.py --out runs/simulated_users --max-turns 3
    .venv/bin/python benchmarks/simulated_users.py --judge openai:MODEL   # a stronger model
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
ASSAY = [sys.executable, "-m", "assay"]
METRICS = "goal_completion,knowledge_retention,role_adherence,turn_relevance"
APPS = {"agent_app": ["--target", "python:examples.agent_app:agent",
                      "--tools", "python:examples.agent_app:TOOLS"],
        "local": ["--target", "local"]}


def run(cmd: list[str]) -> float:
    """Run an assay command from the repository root; its seconds (exit 3, some rows failed,
    is kept: the tables say which)."""
    started = time.monotonic()
    done = subprocess.run(cmd, cwd=ROOT, text=True, capture_output=True, check=False)
    if done.returncode not in (0, 3):
        sys.exit(f"{' '.join(cmd)} exited {done.returncode}:\n{done.stderr[-2000:]}")
    return time.monotonic() - started


def table(app: str, rows: list[dict[str, Any]], scored: list[dict[str, Any]],
          seconds: float) -> None:
    stops = Counter(str(r.get("stop_reason")) for r in rows)
    print(f"\n### {app}: {len(rows)} conversations, {seconds / max(1, len(rows)):.0f} s per "
          f"conversation (simulation only); stop reasons: "
          + ", ".join(f"{k} {v}" for k, v in sorted(stops.items())))
    print("\n| scenario | user turns | stop | " + " | ".join(METRICS.split(",")) + " |")
    print("|---|---|---|" + "---|" * len(METRICS.split(",")))
    by_id = {str(r["id"]): r for r in scored}
    for row in rows:
        got = by_id.get(str(row["id"]), {})
        cells = []
        for name in METRICS.split(","):
            result = got.get(name) or {}
            value = result.get("value")
            cells.append("-" if value is None else f"{value:g}")
        turns = (row.get("simulation") or {}).get("user_turns")
        print(f"| {row['id']} | {turns} | {row.get('stop_reason')} | " + " | ".join(cells) + " |")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", type=Path, default=Path("runs/simulated_users"))
    ap.add_argument("--judge", default="local")
    ap.add_argument("--max-turns", type=int, default=3)
    ap.add_argument("--apps", default="agent_app,local")
    ap.add_argument("--scenarios", default="examples/scenarios.jsonl")
    args = ap.parse_args()
    for app in args.apps.split(","):
        folder = (args.out / app).resolve()
        folder.mkdir(parents=True, exist_ok=True)
        conversations = folder / "conversations.jsonl"
        resume = ["--resume"] if conversations.exists() else []
        seconds = run([*ASSAY, "simulate", "--scenarios", args.scenarios, *APPS[app],
                       "--judge", args.judge, "--max-turns", str(args.max_turns),
                       "--out", str(conversations), "--parallel", "1", *resume])
        scored_dir = folder / "scored"
        rating = run([*ASSAY, "run", str(conversations), "--metrics", METRICS, "--judge",
                      args.judge, "--out", str(scored_dir), "--no-store",
                      *(["--resume"] if scored_dir.exists() else [])])
        rows = [json.loads(line) for line in conversations.read_text().splitlines()]
        scored = [json.loads(line) for line in
                  (scored_dir / "results.jsonl").read_text().splitlines()]
        table(app, rows, scored, seconds)
        print(f"\nscoring the {len(rows)} conversations took {rating:.0f} s "
              f"({rating / max(1, len(rows)):.0f} s per conversation)")


if __name__ == "__main__":
    main()
