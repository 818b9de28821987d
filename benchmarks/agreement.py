"""Agreement of a judge's groundedness with gold labels on HaluEval QA (``../shared/data``).

Each HaluEval seed gives two rows with the same knowledge and question: the right answer
(grounded) and a hallucinated one (not grounded). The judge rates groundedness 1-5; a row is
predicted grounded when the score is at least ``--threshold`` (default 4). Prints balanced
accuracy, the AUROC of the probability-weighted score, n, unscored rows and seconds per row.

    .venv/bin/python benchmarks/agreement.py                 # embedded judge, 30 seeds = 60 rows
    .venv/bin/python benchmarks/agreement.py --style rating  # the 1-5 rating rubric instead
    .venv/bin/python benchmarks/agreement.py --judge openai:gpt-4o-mini --seeds 100
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

import assay

DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "halueval" / "qa_shared.jsonl"


def halueval_rows(n_seeds: int) -> tuple[list[dict], dict[str, int]]:
    rows, labels = [], {}
    for line in DATA.read_text().splitlines()[:n_seeds]:
        seed = json.loads(line)
        for kind, answer, label in (("right", seed["right_answer"], 1),
                                    ("halluc", seed["hallucinated_answer_one_turn"], 0)):
            rid = f"{seed['id']}-{kind}"
            rows.append({"id": rid, "question": seed["question"], "context": seed["knowledge"],
                         "answer": answer})
            labels[rid] = label
    return rows, labels


def balanced_accuracy(y: list[int], pred: list[int]) -> float:
    pos = [p for t, p in zip(y, pred) if t == 1]
    neg = [p for t, p in zip(y, pred) if t == 0]
    tpr = sum(pos) / len(pos) if pos else 0.0
    tnr = sum(1 - p for p in neg) / len(neg) if neg else 0.0
    return (tpr + tnr) / 2


def auroc(y: list[int], scores: list[float]) -> float:
    pos = [s for t, s in zip(y, scores) if t == 1]
    neg = [s for t, s in zip(y, scores) if t == 0]
    wins = sum((p > n) + 0.5 * (p == n) for p in pos for n in neg)
    return wins / (len(pos) * len(neg)) if pos and neg else float("nan")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--judge", default="local")
    ap.add_argument("--seeds", type=int, default=30)
    ap.add_argument("--metric", default="groundedness",
                    choices=["groundedness", "groundedness_claims", "faithfulness"])
    ap.add_argument("--threshold", type=float, default=None,
                    help="predicted grounded at or above this (default 4 on 1-5, 0.5 on 0-1)")
    ap.add_argument("--style", default="auto", choices=["auto", "rating", "verdict"])
    ap.add_argument("--cache", default=None, help="judge cache (default: a fresh temp file)")
    args = ap.parse_args()
    rows, labels = halueval_rows(args.seeds)
    metric = args.metric
    threshold = args.threshold if args.threshold is not None else (
        0.5 if metric == "faithfulness" else 4.0)
    cache = args.cache or str(Path(tempfile.mkdtemp()) / "cache.sqlite")
    t0 = time.monotonic()
    result = assay.evaluate(rows, metrics=metric, judge=args.judge, cache=cache,
                            concurrency=8, style=args.style)
    elapsed = time.monotonic() - t0
    y, pred, weighted, values = [], [], [], []
    unscored = 0
    for rec in result.rows:
        g = rec[metric]
        if g["value"] is None:
            unscored += 1
            continue
        y.append(labels[rec["id"]])
        pred.append(int(g["value"] >= threshold))
        values.append(g["value"])
        weighted.append(g["weighted"] if g["weighted"] is not None else g["value"])
    styles = {r[metric]["details"].get("style", "rating") for r in result.rows}
    if metric != "groundedness":
        styles = {"statements"}
    print(f"HaluEval QA {metric}, judge {result.summary['judge']['id']}, "
          f"style {'/'.join(sorted(styles))}: "
          f"n={len(y)} scored ({unscored} unscored) of {len(rows)} rows "
          f"({sum(y)} grounded / {len(y) - sum(y)} hallucinated)")
    print(f"balanced accuracy (score >= {threshold:g} = grounded): "
          f"{balanced_accuracy(y, pred):.3f}")
    print(f"AUROC of the probability-weighted score: {auroc(y, weighted):.3f}")
    print(f"AUROC of the value: {auroc(y, values):.3f}; "
          f"time {elapsed:.0f} s, {elapsed / len(rows):.1f} s/row")


if __name__ == "__main__":
    main()
