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

Judge calibration datasets (issue "judges you can trust"), run through ``assay.calibrate``
with the shipped pairwise template ``examples/metrics/preference.md`` (both orders):

- ``llmbar_natural`` and ``llmbar_adversarial`` (all four adversarial subsets, interleaved):
  which of two outputs follows the instruction; no ties in the gold labels.
- ``pandalm``: three annotators' majority (response 1, response 2 or tie).

They print the accuracy (exact agreement), balanced accuracy and position consistency.
``summeval`` rates summaries (of the first articles, all 16 systems each) with the rubric
metrics coherence, fluency, groundedness (SummEval's consistency) and relevance, and prints
Spearman and Kendall against the experts' mean rating: per article, then averaged (G-Eval's
summary-level figure: 0.514 average Spearman with GPT-4), and pooled over all rows.

The groundedness sample takes ``--n`` rows, half of each label, in file order. For each metric it prints the
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
    .venv/bin/python benchmarks/agreement.py --dataset llmbar_adversarial --n 30
    .venv/bin/python benchmarks/agreement.py --dataset summeval --n 32
    .venv/bin/python benchmarks/agreement.py --dataset toxigen --n 20 --mode both

Safety datasets (``diasafety``, ``davidson``, ``toxigen``, ``xstest``): see
``benchmarks/safety_agreement.py``; ``--mode`` picks combined (one request for the four
severities), separate (one per category) or both side by side.
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

from safety_agreement import DATASETS as SAFETY_DATASETS
from safety_agreement import run_safety
from scipy.stats import kendalltau, spearmanr
from sklearn.metrics import balanced_accuracy_score, roc_auc_score

import assay
from assay import JudgeOptions, ScoringOptions

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


PREFERENCE = Path(__file__).resolve().parents[1] / "examples" / "metrics" / "preference.md"
PAIRWISE = ("llmbar_natural", "llmbar_adversarial", "pandalm")
SUMMEVAL_DIMENSIONS = {"coherence": "coherence", "fluency": "fluency",
                       "groundedness": "consistency", "relevance": "relevance"}


#: What a PandaLM response that is empty reads as (the data reader treats "" as missing).
EMPTY = "(empty response)"


def pairwise_rows(name: str, n: int) -> list[dict]:
    """Rows for ``assay.calibrate`` with ``preference/human_pairwise_choice``."""
    column = "preference/human_pairwise_choice"
    if name.startswith("llmbar"):
        files = (["natural"] if name == "llmbar_natural" else
                 ["adversarial_neighbor", "adversarial_gptinst", "adversarial_gptout",
                  "adversarial_manual"])
        lists = [[json.loads(x) for x in (DATA / "llmbar" / f"{f}_shared.jsonl")
                  .read_text().splitlines()] for f in files]
        picked = [r for group in zip(*lists) for r in group] if len(lists) > 1 else lists[0]
        extra = [r for lst in lists for r in lst[min(map(len, lists)):]] if len(lists) > 1 else []
        rows = [{"id": f"{r['subset']}-{r['id']}", "question": r["input"],
                 "answer": r["output_1"], "baseline_model_response": r["output_2"],
                 column: "CANDIDATE" if r["label"] == 1 else "BASELINE"}
                for r in picked + extra]
        return rows[:n]
    rows = []
    for line in (DATA / "pandalm" / "testset_shared.jsonl").read_text().splitlines():
        r = json.loads(line)
        if r["majority_label"] is None:
            continue
        task = r["instruction"] + (f"\n\n{r['input']}" if r["input"] else "")
        # an empty response is still a response to judge: shown as a marker, not dropped
        rows.append({"id": f"pandalm-{r['idx']}", "question": task,
                     "answer": r["response1"] or EMPTY,
                     "baseline_model_response": r["response2"] or EMPTY,
                     column: {0: "TIE", 1: "CANDIDATE", 2: "BASELINE"}[r["majority_label"]]})
    return rows[:n]


def run_pairwise(name: str, n: int, judge: str, cache: str) -> None:
    rows = pairwise_rows(name, n)
    work = Path(tempfile.mkdtemp())
    data = work / f"{name}.jsonl"
    data.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    t0 = time.monotonic()
    result = assay.calibrate(data, metric=assay.load_metric_file(PREFERENCE), judges=[judge],
                             out=work / "out", cache=cache, concurrency=8)
    elapsed = time.monotonic() - t0
    report = next(iter(result.reports.values()))
    summary = json.loads(next((work / "out").glob("*/summary.json")).read_text())
    agg = summary["metrics"]["preference"]
    gold = {c: sum(r["preference/human_pairwise_choice"] == c for r in rows)
            for c in ("CANDIDATE", "BASELINE", "TIE")}
    print(f"{name}: {report['n_compared']} pairs compared, {report['unscored']} unscored "
          f"(gold {gold}), judge {report['judge']}")
    if not report["n_compared"]:
        print("  no pair was scored by the judge; see the results for the reasons")
        return
    print(f"  accuracy {report['exact_agreement']:.3f}; balanced accuracy "
          f"{report['balanced_accuracy']:.3f}; class-weighted F1 "
          f"{report['class_weighted_f1']:.3f}; position consistency "
          f"{agg['position_consistency']:.3f}; judge choices {agg['choices']}")
    print(f"  confusion matrix (rows human, columns judge, {report['labels']}): "
          f"{report['confusion_matrix']}")
    print_orders(next((work / "out").glob("*/results.jsonl")), rows)
    print(f"time {elapsed:.0f} s, {elapsed / len(rows):.1f} s/pair "
          f"({summary['judge']['requests']} judge requests)")


def print_orders(results: Path, rows: list[dict]) -> None:
    """Accuracy of each single order (what a judge asked once would score) and the share of
    answers naming the first-shown response: the position bias that swapping exposes."""
    gold = {r["id"]: r["preference/human_pairwise_choice"] for r in rows}
    per_order: dict[str, list[bool]] = defaultdict(list)
    first_named = []
    for line in results.read_text().splitlines():
        rec = json.loads(line)
        pref = rec.get("preference") or {}
        for verdict in (pref.get("details") or {}).get("orders", []):
            per_order[verdict["order"]].append(verdict["verdict"] == gold[rec["id"]])
            first_named.append(verdict["answer"] == "model_A")
    accuracy = {order: f"{sum(v) / len(v):.3f} (n={len(v)})" for order, v in per_order.items()}
    if first_named:
        print(f"  single-order accuracy {accuracy}; answers naming the first-shown response "
              f"{sum(first_named) / len(first_named):.3f}")


def run_summeval(n: int, judge: str, cache: str, style: str) -> None:
    rows, gold = [], {}
    for line in (DATA / "summeval" / "summeval_shared.jsonl").read_text().splitlines()[:n]:
        r = json.loads(line)
        rid = f"{r['article_id']}-{r['summary_id']}"
        rows.append({"id": rid, "question": "Summarize the news article.",
                     "context": r["article"], "answer": r["summary"]})
        gold[rid] = (r["article_id"], r)
    t0 = time.monotonic()
    result = assay.evaluate(rows, metrics=",".join(SUMMEVAL_DIMENSIONS), judge=judge,
                            scoring=ScoringOptions(style=style),
                            judging=JudgeOptions(cache=cache, concurrency=8))
    elapsed = time.monotonic() - t0
    articles = sorted({a for a, _ in gold.values()})
    print(f"SummEval: {len(rows)} summaries of {len(articles)} articles, judge "
          f"{result.summary['judge']['id']}")
    print("  dimension      per-article Spearman  Kendall   pooled Spearman  Kendall  unscored")
    per_dim = []
    for metric, human_key in SUMMEVAL_DIMENSIONS.items():
        pairs = [(gold[rec["id"]][0], gold[rec["id"]][1][human_key],
                  rec[metric]["weighted"] if rec[metric]["weighted"] is not None
                  else rec[metric]["value"])
                 for rec in result.rows if rec[metric]["value"] is not None]
        unscored = len(result.rows) - len(pairs)
        by_article: dict[str, list[tuple[float, float]]] = defaultdict(list)
        for art, h, j in pairs:
            by_article[art].append((h, j))
        rhos, taus = [], []
        for values in by_article.values():
            h, j = zip(*values)
            if len(set(h)) > 1 and len(set(j)) > 1:
                rhos.append(spearmanr(h, j).statistic)
                taus.append(kendalltau(h, j).statistic)
        h_all = [p[1] for p in pairs]
        j_all = [p[2] for p in pairs]
        rho = sum(rhos) / len(rhos) if rhos else float("nan")
        tau = sum(taus) / len(taus) if taus else float("nan")
        per_dim.append(rho)
        print(f"  {metric:<14} {rho:>20.3f} {tau:>8.3f} {spearmanr(h_all, j_all).statistic:>17.3f}"
              f" {kendalltau(h_all, j_all).statistic:>8.3f} {unscored:>9}")
    print(f"  average per-article Spearman {sum(per_dim) / len(per_dim):.3f} "
          "(G-Eval with GPT-4: 0.514)")
    print(f"time {elapsed:.0f} s, {elapsed / len(rows):.1f} s/summary "
          f"({result.summary['judge']['requests']} judge requests)")


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
    ap.add_argument("--dataset", default="halueval",
                    choices=sorted(DATASETS) + list(PAIRWISE) + ["summeval"]
                    + sorted(SAFETY_DATASETS))
    ap.add_argument("--n", type=int, default=60, help="rows, half of each label")
    ap.add_argument("--judge", default="local")
    ap.add_argument("--metric", default="groundedness",
                    help="comma-separated: groundedness, groundedness_claims, faithfulness")
    ap.add_argument("--threshold", type=float, default=None,
                    help="predicted grounded at or above this (default 4 on 1-5, 0.5 on 0-1)")
    ap.add_argument("--style", default="auto", choices=["auto", "rating", "verdict"])
    ap.add_argument("--cache", default=None, help="judge cache (default: a fresh temp file)")
    ap.add_argument("--mode", default="both", choices=["combined", "separate", "both"],
                    help="safety datasets: one judge request for the four severities, one per "
                         "category, or both side by side")
    args = ap.parse_args()
    cache = args.cache or str(Path(tempfile.mkdtemp()) / "cache.sqlite")
    if args.dataset in PAIRWISE:
        return run_pairwise(args.dataset, args.n, args.judge, cache)
    if args.dataset == "summeval":
        return run_summeval(args.n, args.judge, cache, args.style)
    if args.dataset in SAFETY_DATASETS:
        run_safety(args.dataset, args.n, args.judge, cache, args.mode)
        return None
    metrics = [m.strip() for m in args.metric.split(",") if m.strip()]
    unknown = set(metrics) - {"groundedness", "groundedness_claims", "faithfulness"}
    if unknown:
        ap.error(f"unknown --metric {sorted(unknown)}")
    items = balanced_sample(DATASETS[args.dataset](), args.n)
    t0 = time.monotonic()
    result = assay.evaluate([item[0] for item in items], metrics=",".join(metrics),
                            judge=args.judge, scoring=ScoringOptions(style=args.style),
                            judging=JudgeOptions(cache=cache, concurrency=8))
    elapsed = time.monotonic() - t0
    for metric in metrics:
        report(args.dataset, metric, result, items, args.threshold)
    print(f"time {elapsed:.0f} s, {elapsed / len(items):.1f} s/row "
          f"({result.summary['judge']['requests']} judge requests)")


if __name__ == "__main__":
    main()

