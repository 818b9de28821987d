"""The offline embedder's speed, and how well ``semantic_similarity`` ranks right above wrong.

1. Throughput: short sentences per second of the local MiniLM int8 embedder (after loading),
   batched as the runner batches them.
2. Agreement on TruthfulQA (``../shared/data/truthfulqa``), ground truth = the "Best Answer":
   a. reference lists: each question's listed correct answers (other than the best one) against
      its listed incorrect answers;
   b. human-judged answers: truthful and informative answers against untruthful ones.
   For each: AUROC over all pairs, and the within-question ranking accuracy (share of
   (right, wrong) pairs of the same question where the right one is more similar).

    .venv/bin/python benchmarks/embeddings.py [--questions 200] [--embeddings openai:MODEL]
"""

from __future__ import annotations

import argparse
import csv
import json
import tempfile
import time
from collections import defaultdict
from pathlib import Path

import assay
from assay import JudgeOptions
from assay.embeddings import LocalEmbedder

DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "truthfulqa"


def throughput(n: int = 2000) -> tuple[float, float]:
    questions = [r["Question"] for r in csv.DictReader((DATA / "TruthfulQA_shared.csv").open())]
    texts = (questions * (n // len(questions) + 1))[:n]  # short sentences, ~12 tokens each
    embedder = LocalEmbedder()
    t0 = time.monotonic()
    embedder.embed_sync(["warm up"])
    load = time.monotonic() - t0
    t0 = time.monotonic()
    for start in range(0, n, 64):
        embedder.embed_sync(texts[start:start + 64])
    return n / (time.monotonic() - t0), load


def auroc(pos: list[float], neg: list[float]) -> float:
    wins = sum((p > q) + 0.5 * (p == q) for p in pos for q in neg)
    return wins / (len(pos) * len(neg)) if pos and neg else float("nan")


def rank_accuracy(groups: dict[str, tuple[list[float], list[float]]]) -> tuple[float, int]:
    wins = total = 0.0
    for pos, neg in groups.values():
        for p in pos:
            for q in neg:
                wins += (p > q) + 0.5 * (p == q)
                total += 1
    return (wins / total if total else float("nan")), int(total)


def score(rows: list[dict], embeddings: str, cache: str) -> dict[str, float]:
    res = assay.evaluate(rows, metrics="semantic_similarity", embeddings=embeddings,
                         judging=JudgeOptions(cache=cache))
    return {r["id"]: r["semantic_similarity"]["value"] for r in res.rows}


def report(name: str, rows: list[dict], labels: dict[str, tuple[str, int]], values: dict) -> None:
    groups: dict[str, tuple[list[float], list[float]]] = defaultdict(lambda: ([], []))
    for rid, (qid, label) in labels.items():
        if values.get(rid) is not None:
            groups[qid][0 if label else 1].append(values[rid])
    pos = [v for p, _ in groups.values() for v in p]
    neg = [v for _, n in groups.values() for v in n]
    acc, pairs = rank_accuracy(groups)
    print(f"{name}: {len(pos)} right / {len(neg)} wrong answers, {len(groups)} questions; "
          f"AUROC {auroc(pos, neg):.3f}; within-question ranking accuracy {acc:.3f} "
          f"({pairs} pairs)")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--questions", type=int, default=200)
    ap.add_argument("--embeddings", default="local")
    ap.add_argument("--skip-speed", action="store_true")
    args = ap.parse_args()
    if not args.skip_speed:
        rate, load = throughput()
        print(f"local embedder: {rate:.0f} short sentences/s on this machine "
              f"(load {load:.2f} s)")
    cache = str(Path(tempfile.mkdtemp()) / "cache.sqlite")
    qa = list(csv.DictReader((DATA / "TruthfulQA_shared.csv").open()))[:args.questions]
    best = {q["question_id"]: q["Best Answer"] for q in qa}
    rows, labels = [], {}
    for q in qa:
        correct = [a.strip() for a in q["Correct Answers"].split(";") if a.strip()]
        wrong = [a.strip() for a in q["Incorrect Answers"].split(";") if a.strip()]
        for label, answers in ((1, correct), (0, wrong)):
            for i, a in enumerate(answers):
                if a == q["Best Answer"]:
                    continue
                rid = f"{q['question_id']}-{label}-{i}"
                rows.append({"id": rid, "answer": a, "ground_truth": q["Best Answer"]})
                labels[rid] = (q["question_id"], label)
    report("reference lists", rows, labels, score(rows, args.embeddings, cache))
    rows, labels = [], {}
    for i, line in enumerate((DATA / "judged_answers_shared.jsonl").read_text().splitlines()):
        r = json.loads(line)
        qid = str(r["question_id"])
        if qid not in best or r["truthful"] is None:
            continue
        if r["truthful"] and not r.get("informative"):
            continue  # "I have no comment" is truthful but says nothing to compare
        rid = f"j{i}"
        rows.append({"id": rid, "answer": r["answer"], "ground_truth": best[qid]})
        labels[rid] = (qid, int(bool(r["truthful"])))
    report("human-judged answers", rows, labels, score(rows, args.embeddings, cache))


if __name__ == "__main__":
    main()
