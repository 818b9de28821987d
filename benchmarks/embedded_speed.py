"""The embedded judge's speed with and without reasons on demand, and the guard on quality.

For each ``--reasons`` setting (``always``, today's behaviour before reasons on demand, and
``auto``, the default), scores a dataset on the embedded judge with no cache and prints wall
time, judge requests, generated tokens and prompt tokens processed (llama.cpp's own counts: the
tokens not served from the KV cache), then checks that every score is the same under both
settings (the score comes first in every answer, so reasons must not change it).

    .venv/bin/python benchmarks/embedded_speed.py                        # the demo rows, auto metrics
    .venv/bin/python benchmarks/embedded_speed.py --metrics groundedness --halueval 20

``--halueval N`` scores N HaluEval QA items (right and hallucinated answer each: 2N rows) and
prints groundedness AUROC for both settings, with its 95% bootstrap interval.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
from sklearn.metrics import roc_auc_score

sys.path.insert(0, str(Path(__file__).resolve().parent))
from embedded_throughput import TimedJudge

import assay
from assay import JudgeOptions, ScoringOptions

ROOT = Path(__file__).resolve().parents[1]
HALUEVAL = ROOT.parent / "shared" / "data" / "halueval" / "qa_shared.jsonl"


def halueval_rows(n: int) -> tuple[list[dict[str, Any]], list[int]]:
    """2n rows (each item's right answer, label 1, and hallucinated one, label 0)."""
    rows, labels = [], []
    for line in HALUEVAL.read_text().splitlines()[:n]:
        item = json.loads(line)
        for answer, label in ((item["right_answer"], 1),
                              (item["hallucinated_answer_one_turn"], 0)):
            rows.append({"id": f"{item['id']}-{label}", "question": item["question"],
                         "context": item["knowledge"], "answer": answer})
            labels.append(label)
    return rows, labels


def auroc_ci(labels: list[int], scores: list[float], seed: int = 0) -> tuple[float, float, float]:
    """AUROC and its 95% bootstrap interval (2000 resamples of the rows)."""
    y, s = np.array(labels), np.array(scores)
    rng = np.random.default_rng(seed)
    draws = []
    for _ in range(2000):
        i = rng.integers(0, len(y), len(y))
        if len(set(y[i])) == 2:
            draws.append(roc_auc_score(y[i], s[i]))
    return float(roc_auc_score(y, s)), float(np.percentile(draws, 2.5)), float(
        np.percentile(draws, 97.5))


def run(rows: list[dict[str, Any]], metrics: str, reasons: str) -> dict[str, Any]:
    judge = TimedJudge()
    judge._load()  # the model load is the same for both settings: not timed
    started = time.monotonic()
    result = assay.evaluate(rows, metrics=metrics, judge=judge,
                            scoring=ScoringOptions(reasons=reasons),
                            judging=JudgeOptions(cache=False))
    wall = time.monotonic() - started
    t = judge.timings
    return {"wall": wall, "requests": len(t), "generated": sum(x["predicted_n"] for x in t),
            "processed": sum(x["prompt_n"] for x in t), "rows": result.rows,
            "explained": sum(1 for r in result.rows for k, v in r.items()
                             if isinstance(v, dict) and v.get("reason"))}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", default=str(ROOT / "examples" / "qa.jsonl"))
    ap.add_argument("--metrics", default="auto")
    ap.add_argument("--halueval", type=int, default=0, help="HaluEval items (2 rows each)")
    args = ap.parse_args()
    labels: list[int] = []
    if args.halueval:
        rows, labels = halueval_rows(args.halueval)
        source = f"{len(rows)} HaluEval QA rows"
    else:
        rows = [json.loads(x) for x in Path(args.data).read_text().splitlines() if x.strip()]
        source = f"{len(rows)} rows of {args.data}"
    print(f"{source}, metrics {args.metrics}, embedded judge, no cache")
    runs = {mode: run(rows, args.metrics, mode) for mode in ("always", "auto")}
    print(f"{'reasons':8} {'wall s':>8} {'requests':>9} {'generated':>10} {'processed':>10} "
          f"{'explained':>10}")
    for mode, r in runs.items():
        print(f"{mode:8} {r['wall']:8.1f} {r['requests']:9d} {r['generated']:10d} "
              f"{r['processed']:10d} {r['explained']:10d}")
    a, b = runs["always"], runs["auto"]
    print(f"generated tokens {a['generated'] / max(b['generated'], 1):.2f}x fewer, wall "
          f"{a['wall'] / b['wall']:.2f}x faster with auto")
    same = total = 0
    for ra, rb in zip(a["rows"], b["rows"]):
        for name, va in ra.items():
            if isinstance(va, dict) and "value" in va:
                total += 1
                same += va.get("value") == rb[name].get("value")
    print(f"scores identical under both settings: {same}/{total}")
    if labels:
        for mode, r in runs.items():
            scores = [row["groundedness"].get("weighted") or row["groundedness"]["value"]
                      for row in r["rows"]]
            auc, lo, hi = auroc_ci(labels, scores)
            print(f"groundedness AUROC ({mode}): {auc:.3f} [95% CI {lo:.3f}-{hi:.3f}], "
                  f"n={len(labels)}")


if __name__ == "__main__":
    main()
