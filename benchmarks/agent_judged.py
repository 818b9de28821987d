"""How well the judged agent metrics tell failed agent runs from correct ones, and their cost.

Scores ``examples/agent.jsonl`` (conversations labelled ``correct`` or ``failed``, with the
kind of failure: wrong tool, wrong or invalid arguments, a loop, an answer that ignores the
tool result, no tool call, an incomplete task) with each judged agent metric, no cache, and
prints per metric: AUROC of the score between correct (positive) and failed conversations with
its 95% bootstrap interval, rows scored, judge requests and seconds per row, and the mean
score per failure kind.

    .venv/bin/python benchmarks/agent_judged.py                    # the embedded judge
    .venv/bin/python benchmarks/agent_judged.py --judge openai:gpt-4o-mini
    .venv/bin/python benchmarks/agent_judged.py --metrics task_completion,step_efficiency
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _stats import auroc_ci

import assay
from assay import JudgeOptions

ROOT = Path(__file__).resolve().parents[1]
JUDGED = ("task_completion", "intent_resolution", "task_adherence", "tool_selection",
          "tool_output_groundedness", "step_efficiency")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", default=str(ROOT / "examples" / "agent.jsonl"))
    ap.add_argument("--judge", default="local")
    ap.add_argument("--metrics", default=",".join(JUDGED))
    args = ap.parse_args()
    records = [json.loads(x) for x in Path(args.data).read_text().splitlines() if x.strip()]
    names = [m for m in args.metrics.split(",") if m]
    judge = assay.make_judge(args.judge)
    print(f"{len(records)} conversations of {args.data} ({sum(r['label'] == 'correct' for r in records)}"
          f" correct), judge {judge.id}, no cache")
    print(f"{'metric':26} {'AUROC [95% CI]':>22} {'scored':>7} {'req/row':>8} {'s/row':>6}")
    by_kind: dict[str, dict[str, list[float]]] = {}
    for name in names:
        started = time.monotonic()
        result = assay.evaluate(records, metrics=[name], judge=judge,
                                judging=JudgeOptions(cache=False))
        seconds = time.monotonic() - started
        labels, scores = [], []
        kinds: dict[str, list[float]] = defaultdict(list)
        for rec, row in zip(records, result.rows, strict=True):
            value = row[name].get("weighted") or row[name].get("value")
            if value is None:
                continue
            labels.append(int(rec["label"] == "correct"))
            scores.append(float(value))
            kinds[rec["failure"] or "correct"].append(float(value))
        by_kind[name] = kinds
        stats: dict[str, Any] = result.summary.get("judge") or {}
        requests = stats.get("requests", 0) / len(records)
        if len(set(labels)) == 2:
            auc, lo, hi = auroc_ci(labels, scores)
            shown = f"{auc:.3f} [{lo:.3f}-{hi:.3f}]"
        else:
            shown = "n/a"
        print(f"{name:26} {shown:>22} {len(scores):4d}/{len(records):<2d} {requests:8.2f} "
              f"{seconds / len(records):6.1f}")
    kinds_all = sorted({k for v in by_kind.values() for k in v})
    print("\nmean score by failure kind (n)")
    print(f"{'kind':22}" + "".join(f"{n[:12]:>13}" for n in names))
    for kind in kinds_all:
        cells = []
        for name in names:
            vals = by_kind[name].get(kind, [])
            cells.append(f"{statistics.fmean(vals):8.2f} ({len(vals)})" if vals else f"{'-':>13}")
        print(f"{kind:22}" + "".join(f"{c:>13}" for c in cells))


if __name__ == "__main__":
    main()
