"""Agreement of the groundedness metrics with human or gold labels in ``../shared/data``.

Datasets (``--dataset``), each read as (context, answer[, question]) rows with a binary label,
grounded (1) or not (0):

- ``halueval``: HaluEval QA; each seed gives its right answer (1) and a hallucinated one (0).
- ``faithbench``: FaithBench summaries by 10 LLMs; 1 when the worst annotator label is
  Consistent or Benign, 0 when it is Questionable or Unwanted.
- ``qags``: QAGS CNN/DM and XSum summaries; 1 when every sentence was judged consistent
  (``scores.consistency == 1``), else 0. The 0-1 consistency also gives a Spearman figure.
- ``begin``: BEGIN knowledge-grounded dialogue responses; 1 when "Fully attributable", 0 when
  "Not fully attributable" (Generic responses are left out); the previous turn is the question.

The sample takes ``--n`` rows, half of each label, in file order. For each metric it prints the
balanced accuracy at ``--threshold`` (default 4 on 1-5, 0.5 on 0-1), the AUROC of the
probability-weighted score, and the pairwise agreement: over pairs of rows with the same
source (question, article or passage) and different labels, the share where the grounded one
scores higher (ties count half). That pairwise figure is how Ragas reported faithfulness on
WikiEval (0.95 with a GPT-3.5 judge).

    .venv/bin/python benchmarks/agreement.py                                # HaluEval, 60 rows
    .venv/bin/python benchmarks/agreement.py --dataset faithbench --n 40 --metric faithfulness
    .venv/bin/python benchmarks/agreement.py --dataset qags --metric groundedness,faithfulness
    .venv/bin/python benchmarks/agreement.py --style rating   # the 1-5 rating rubric
    .venv/bin/python benchmarks/agreement.py --judge openai:gpt-4o-mini --n 200
"""

from __future__ import annotations

import argparse
import csv
import json
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable, Iterator
from pathlib import Path

from scipy.stats import spearmanr
from sklearn.metrics import balanced_accuracy_score, roc_auc_score

import assay

DATA = Path(__file__).resolve().parents[2] / "shared" / "data"

#: (row for assay, label, group for pairwise agreement, continuous gold or None)
Item = tuple[dict, int, str, float | None]


def halueval_items() -> Iterator[Item]:
    for line in (DATA / "halueval" / "qa_shared.jsonl").read_text().splitlines():
        seed = json.loads(line)
        for kind, answer, label in (("right", seed["right_answer"], 1),
                                    ("halluc", seed["hallucinated_answer_one_turn"], 0)):
            yield ({"id": f"{seed['id']}-{kind}", "question": seed["question"],
                    "context": seed["knowledge"], "answer": answer}, label, str(seed["id"]), None)


def faithbench_items() -> Iterator[Item]:
    for line in (DATA / "faithbench" / "faithbench_shared.jsonl").read_text().splitlines():
        r = json.loads(line)
        label = int(r["worst_label"] in ("Consistent", "Benign"))
        yield ({"id": f"fb-{r['id']}", "context": r["source"], "answer": r["summary"]},
               label, str(r["source_id"]), None)


def qags_items() -> Iterator[Item]:
    files = [(DATA / "qags" / f"qags_{name}_shared.jsonl").read_text().splitlines()
             for name in ("cnndm", "xsum")]
    for pair in zip(*files):  # alternate the two sources
        for name, line in zip(("cnndm", "xsum"), pair):
            r = json.loads(line)
            gold = float(r["scores"]["consistency"])
            yield ({"id": f"qags-{name}-{r['doc_id']}-{r['system_id']}", "context": r["source"],
                    "answer": r["system_output"]}, int(gold == 1.0), f"{name}-{r['doc_id']}", gold)


def begin_items() -> Iterator[Item]:
    for name in ("begin_dev_wow_shared", "begin_dev_tc", "begin_dev_cmu"):
        with (DATA / "begin" / f"{name}.tsv").open(newline="") as f:
            for i, r in enumerate(csv.DictReader(f, delimiter="\t")):
                if r["begin_label"] == "Generic":
                    continue
                yield ({"id": f"{name}-{i}", "question": r["message"],
                        "context": r["knowledge"], "answer": r["response"]},
                       int(r["begin_label"] == "Fully attributable"), r["knowledge"], None)


DATASETS: dict[str, Callable[[], Iterator[Item]]] = {
    "halueval": halueval_items, "faithbench": faithbench_items, "qags": qags_items,
    "begin": begin_items}


def balanced_sample(items: Iterator[Item], n: int) -> list[Item]:
    """The first ``n // 2`` items of each label, in file order."""
    want = {0: n // 2, 1: n - n // 2}
    out: list[Item] = []
    for item in items:
        if want[item[1]] > 0:
            want[item[1]] -= 1
            out.append(item)
        if not any(want.values()):
            break
    return out


def pairwise_agreement(labels: list[int], scores: list[float], groups: list[str]) -> tuple[
        float | None, int]:
    """Share of same-group (grounded, not grounded) pairs ranked right; ties count half."""
    by_group: dict[str, list[tuple[int, float]]] = defaultdict(list)
    for y, s, g in zip(labels, scores, groups):
        by_group[g].append((y, s))
    wins, pairs = 0.0, 0
    for members in by_group.values():
        for y1, s1 in members:
            for y0, s0 in members:
                if y1 == 1 and y0 == 0:
                    pairs += 1
                    wins += 1.0 if s1 > s0 else 0.5 if s1 == s0 else 0.0
    return (wins / pairs if pairs else None), pairs


def report(name: str, metric: str, result: assay.EvalResult, items: list[Item],
           threshold: float | None) -> None:
    by_id = {item[0]["id"]: item for item in items}
    y, pred, weighted, groups, gold = [], [], [], [], []
    unscored = 0
    is_unit = metric == "faithfulness"
    cut = threshold if threshold is not None else (0.5 if is_unit else 4.0)
    for rec in result.rows:
        g = rec[metric]
        if g["value"] is None:
            unscored += 1
            continue
        _row, label, group, cont = by_id[rec["id"]]
        y.append(label)
        pred.append(int(g["value"] >= cut))
        weighted.append(g["weighted"] if g["weighted"] is not None else g["value"])
        groups.append(group)
        gold.append(cont)
    styles = {(r[metric]["details"] or {}).get("style", "rating") for r in result.rows}
    style = "statements" if metric != "groundedness" else "/".join(sorted(styles))
    print(f"{name} {metric} ({style}), judge {result.summary['judge']['id']}: "
          f"n={len(y)} scored, {unscored} unscored ({sum(y)} grounded / "
          f"{len(y) - sum(y)} not)")
    if len(set(y)) < 2:
        print("  both labels are needed for the figures")
        return
    pair, n_pairs = pairwise_agreement(y, weighted, groups)
    line = (f"  balanced accuracy (>= {cut:g}) {balanced_accuracy_score(y, pred):.3f}; "
            f"AUROC {roc_auc_score(y, weighted):.3f}")
    if pair is not None:
        line += f"; pairwise agreement {pair:.3f} over {n_pairs} pairs"
    if all(c is not None for c in gold):
        rho = spearmanr(gold, weighted).statistic
        line += f"; Spearman with the 0-1 consistency {rho:.3f}"
    print(line)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--dataset", default="halueval", choices=sorted(DATASETS))
    ap.add_argument("--n", type=int, default=60, help="rows, half of each label")
    ap.add_argument("--judge", default="local")
    ap.add_argument("--metric", default="groundedness",
                    help="comma-separated: groundedness, groundedness_claims, faithfulness")
    ap.add_argument("--threshold", type=float, default=None,
                    help="predicted grounded at or above this (default 4 on 1-5, 0.5 on 0-1)")
    ap.add_argument("--style", default="auto", choices=["auto", "rating", "verdict"])
    ap.add_argument("--cache", default=None, help="judge cache (default: a fresh temp file)")
    args = ap.parse_args()
    metrics = [m.strip() for m in args.metric.split(",") if m.strip()]
    unknown = set(metrics) - {"groundedness", "groundedness_claims", "faithfulness"}
    if unknown:
        ap.error(f"unknown --metric {sorted(unknown)}")
    items = balanced_sample(DATASETS[args.dataset](), args.n)
    cache = args.cache or str(Path(tempfile.mkdtemp()) / "cache.sqlite")
    t0 = time.monotonic()
    result = assay.evaluate([item[0] for item in items], metrics=",".join(metrics),
                            judge=args.judge, cache=cache, concurrency=8, style=args.style)
    elapsed = time.monotonic() - t0
    for metric in metrics:
        report(args.dataset, metric, result, items, args.threshold)
    print(f"time {elapsed:.0f} s, {elapsed / len(items):.1f} s/row "
          f"({result.summary['judge']['requests']} judge requests)")


if __name__ == "__main__":
    main()

