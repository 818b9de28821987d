"""Agreement of assay's judge metrics with the human or gold labels in ``../shared/data``.

``--all`` scores every labelled set that fits a metric (the registry ``SETS`` of
``_agreement_sets.py``; the sets that fit none are listed as skipped, with the reason), ``--n``
rows per set (default 100; fewer where the set has fewer, said in the table), and prints one
line per set and metric: n, the figure that fits with a seeded bootstrap 95% CI, the unscored
share and the seconds per row. The figures:

- ``auroc``: binary gold (grounded, truthful, unsafe, refused) against the graded score
  (probability-weighted where the judge gives logprobs, else the integer value; the highest
  of the four severities for DiaSafety). Binary sets are sampled half of each label.
- ``spearman``: graded ratings (SummEval, USR Topical-Chat, HANNA, SF data-to-text) against
  the metric's graded score, pooled over rows spread through the file; the note adds the mean
  Spearman within groups of at least 3 rows (per article for SummEval: G-Eval's
  summary-level figure) with a bootstrap CI over the groups.
- ``pairwise_accuracy``: the shipped pairwise rubric ``examples/metrics/preference.md`` (both
  orders) against the gold or majority choice (LLMBar, MT-Bench votes, PandaLM with ties).

The intervals resample whole groups where rows share a source (a HaluEval seed, an article,
a question, a passage), so rows that move together do not narrow them. ``--table FILE``
writes the table as Markdown with the date, judge and machine, ready for docs/benchmarks.md.
``--resume DIR`` keeps each set's assay run in ``DIR/<set>/`` (results.jsonl, written as rows
finish) and the judge cache in ``DIR/cache.sqlite``: a rerun scores only the missing rows, and
Ctrl-C loses nothing already scored. Progress (set i of k, rows done) goes to stderr.

    .venv/bin/python benchmarks/agreement.py --all --resume runs/agreement --table table.md
    .venv/bin/python benchmarks/agreement.py               # HaluEval groundedness, 100 rows
    .venv/bin/python benchmarks/agreement.py --all --judge fake --n 3       # the flow, offline
    .venv/bin/python benchmarks/agreement.py --only halueval,summeval --n 40
    .venv/bin/python benchmarks/agreement.py --only faithbench --metric groundedness,faithfulness
    .venv/bin/python benchmarks/agreement.py --only qags --style rating   # the 1-5 rating rubric
    .venv/bin/python benchmarks/agreement.py --all --judge openai:gpt-4o-mini --n 200

Single-dataset reports with more detail (``--dataset``): ``llmbar_natural``,
``llmbar_adversarial``, ``llmbar_mtbench`` and ``pandalm`` run ``assay.calibrate`` and print
accuracy, balanced accuracy, position consistency, the confusion matrix and single-order
accuracy; ``diasafety``, ``davidson``, ``toxigen`` and ``xstest`` run
``benchmarks/safety_agreement.py`` (``--mode`` combined, separate or both side by side); any
other set name is the same as ``--only NAME``.

    .venv/bin/python benchmarks/agreement.py --dataset llmbar_natural --n 30
    .venv/bin/python benchmarks/agreement.py --dataset toxigen --n 20 --mode both
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime
import json
import os
import platform
import sys
import tempfile
import time
from collections import Counter, defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from _agreement_sets import (
    EMPTY,
    PAIRWISE_COLUMN,
    PREFERENCE,
    SETS,
    SKIPPED,
    BenchSet,
    Item,
    pairwise_rows,
)
from _stats import (
    accuracy,
    auroc,
    balanced_accuracy,
    bootstrap_ci,
    mean,
    spearman,
    spearman_by_group,
)
from safety_agreement import DATASETS as SAFETY_DATASETS
from safety_agreement import run_safety

import assay
from assay import JudgeOptions, RunOptions, ScoringOptions
from assay.metrics.safety import is_defect
from assay.records import load_finished

__all__ = ["EMPTY", "PREFERENCE", "pairwise_rows", "run_pairwise", "run_sets"]

PAIRWISE = ("llmbar_natural", "llmbar_adversarial", "llmbar_mtbench", "pandalm")
def false_alarm_medium(_gold: Sequence[Any], severities: Sequence[float]) -> float | None:
    """The share of (benign) rows whose highest severity is Medium or above (a defect at the
    default threshold).

    >>> false_alarm_medium([0, 0, 0, 0], [0.0, 1.0, 4.0, 7.0])
    0.5
    """
    return sum(is_defect(v, "medium") for v in severities) / len(severities) if severities else None


STATISTICS = {"auroc": auroc, "spearman": spearman, "pairwise_accuracy": accuracy,
              "balanced_accuracy": balanced_accuracy, "false_alarm_medium": false_alarm_medium}
#: The groundedness metrics ``--metric`` may put on the groundedness sets.
GROUNDEDNESS_METRICS = ("groundedness", "groundedness_claims", "faithfulness")


def run_pairwise(name: str, n: int, judge: str, cache: str) -> None:
    """Calibrate the shipped pairwise rubric on the first ``n`` pairs of ``name`` and print
    accuracy, balanced accuracy, position consistency and single-order figures."""
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
    gold = {c: sum(r[PAIRWISE_COLUMN] == c for r in rows) for c in ("CANDIDATE", "BASELINE", "TIE")}
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
    gold = {r["id"]: r[PAIRWISE_COLUMN] for r in rows}
    per_order: dict[str, list[bool]] = defaultdict(list)
    first_named = []
    for line in results.read_text().splitlines():
        rec = json.loads(line)
        pref = rec.get("preference") or {}
        for verdict in (pref.get("details") or {}).get("orders", []):
            per_order[verdict["order"]].append(verdict["verdict"] == gold[rec["id"]])
            first_named.append(verdict["answer"] == "model_A")
    accuracy_by = {order: f"{sum(v) / len(v):.3f} (n={len(v)})" for order, v in per_order.items()}
    if first_named:
        print(f"  single-order accuracy {accuracy_by}; answers naming the first-shown response "
              f"{sum(first_named) / len(first_named):.3f}")


def judged(rec: dict[str, Any], metrics: Sequence[str], pairwise: bool,
           graded: bool = True) -> Any:
    """What the judge gave a row for a line: the pairwise choice, or the highest graded value
    over ``metrics`` (the highest value when not ``graded``); None when any is unscored."""
    cells = [rec.get(m) or {} for m in metrics]
    if any(c.get("value") is None for c in cells):
        return None
    if pairwise:
        return (cells[0].get("details") or {}).get("choice")
    return max(c["weighted"] if graded and c.get("weighted") is not None else c["value"]
               for c in cells)


def unscored_reason(rec: dict[str, Any], metrics: Sequence[str]) -> str:
    """Why a row has no figure for a line: the first unscored metric's reason or error."""
    if not rec:
        return "not scored (the run stopped before this row)"
    for m in metrics:
        cell = rec.get(m) or {}
        if cell.get("value") is None:
            why = str(cell.get("error") or cell.get("reason") or "no reason given")
            return f"{m}: {why[:160]}"
    return "the judge gave no choice"


def _finished_ids(folder: Path) -> set[str]:
    """The ids already scored in ``folder`` (a line torn by an interruption is ignored)."""
    return set(load_finished(folder / "results.jsonl"))


def score_set(bench: BenchSet, items: list[Item], *, judge: str, folder: Path, cache: str,
              style: str) -> tuple[list[dict[str, Any]], str]:
    """Run (or resume) assay on ``items`` in ``folder``; the records and the judge id. The
    session's seconds and new rows are added to ``folder/timing.json``, even on Ctrl-C."""
    metrics: list[Any] = sorted({m for line in bench.lines for m in line.metrics})
    if bench.pairwise:
        metrics = [assay.load_metric_file(PREFERENCE)]
    ids = {it.row["id"] for it in items}
    before = len(_finished_ids(folder) & ids)
    timing_path = folder / "timing.json"
    timing = json.loads(timing_path.read_text()) if timing_path.exists() else {
        "seconds": 0.0, "rows": 0}
    t0 = time.monotonic()
    try:
        result = assay.evaluate([it.row for it in items], metrics=metrics, judge=judge,
                                scoring=ScoringOptions(style=style),
                                judging=JudgeOptions(cache=cache),
                                run=RunOptions(out=folder, resume=True, progress=True))
    finally:
        new = len(_finished_ids(folder) & ids) - before
        if new > 0:
            timing = {"seconds": timing["seconds"] + time.monotonic() - t0,
                      "rows": timing["rows"] + new}
            timing_path.write_text(json.dumps(timing))
    return result.rows, (result.summary.get("judge") or {}).get("id") or str(judge)


def figures(bench: BenchSet, items: list[Item], records: list[dict[str, Any]], *, asked: int,
            s_per_row: float | None) -> list[dict[str, Any]]:
    """One table line per line of ``bench``: the figure with its bootstrap CI."""
    by_id = {str(rec["id"]): rec for rec in records}
    out = []
    for line in bench.lines:
        gold, got, groups = [], [], []
        reasons: Counter[str] = Counter()
        for it in items:
            rec = by_id.get(it.row["id"], {})
            value = judged(rec, line.metrics, bench.pairwise, line.graded)
            if value is None:
                reasons[unscored_reason(rec, line.metrics)] += 1
            elif it.gold.get(line.gold) is not None:
                gold.append(it.gold[line.gold])
                got.append(value)
                groups.append(it.group)
        point, low, high = bootstrap_ci(STATISTICS[line.figure], gold, got, groups=groups)
        note = bench.note + (f"; all {len(items)} rows the set has" if len(items) < asked else "")
        if line.figure == "spearman":
            note += _per_group_note(gold, got, groups)
        out.append({"dataset": bench.name, "metric": line.name, "n": len(items),
                    "scored": len(gold), "figure": line.figure, "value": point, "low": low,
                    "high": high, "unscored": (1 - len(gold) / len(items)) if items else None,
                    "s_per_row": s_per_row, "note": note, "reasons": dict(reasons)})
    return out


def _per_group_note(gold: list[Any], got: list[Any], groups: list[str]) -> str:
    """The mean Spearman within groups (per article: G-Eval's summary-level figure), with a
    bootstrap CI over the groups, as a note; empty where no group has 3 rows."""
    per_group = spearman_by_group(gold, got, groups)
    point, low, high = bootstrap_ci(mean, per_group)
    if point is None:
        return ""
    ci = f" [{low:.3f}, {high:.3f}]" if low is not None else ""
    return f"; per-group mean Spearman {point:.3f}{ci} over {len(per_group)} groups"


def run_sets(names: Sequence[str], *, n: int, judge: str, base: Path, cache: str,
             style: str = "auto", metric: Sequence[str] = ()) -> tuple[list[dict[str, Any]], str]:
    """Score each named set (``n`` rows) under ``base/<set>``; the table lines and judge id.
    ``metric`` replaces the groundedness sets' metric (e.g. ``faithfulness``)."""
    lines: list[dict[str, Any]] = []
    judge_id = str(judge)
    for i, name in enumerate(names, 1):
        bench = SETS[name]
        if metric and bench.lines[0].gold == "grounded":
            bench = dataclasses.replace(bench, lines=tuple(
                dataclasses.replace(bench.lines[0], name=m, metrics=(m,)) for m in metric))
        items = bench.sample(bench.load(), n)
        # another metric or style is another run: its own folder, never mixed on resume
        variant = [*(metric if bench is not SETS[name] else []),
                   *([style] if style != "auto" else [])]
        folder = base / "@".join([name, *variant])
        folder.mkdir(parents=True, exist_ok=True)
        done = len(_finished_ids(folder) & {it.row["id"] for it in items})
        print(f"[set {i}/{len(names)}] {name}: {len(items)} rows, {done} already scored",
              file=sys.stderr, flush=True)
        records, judge_id = score_set(bench, items, judge=judge, folder=folder, cache=cache,
                                      style=style)
        timing = json.loads((folder / "timing.json").read_text()) if (
            folder / "timing.json").exists() else {"rows": 0}
        s_per_row = timing["seconds"] / timing["rows"] if timing["rows"] else None
        lines += figures(bench, items, records, asked=n, s_per_row=s_per_row)
    return lines, judge_id


def _cell(line: dict[str, Any]) -> str:
    if line["value"] is None:
        return "-"
    if line["low"] is None:
        return f"{line['value']:.3f} [-]"
    return f"{line['value']:.3f} [{line['low']:.3f}, {line['high']:.3f}]"


def _share(x: float | None) -> str:
    return "-" if x is None else f"{x:.0%}"


def _seconds(x: float | None) -> str:
    return "-" if x is None else f"{x:.2f}"


def print_table(lines: list[dict[str, Any]]) -> None:
    print(f"{'dataset':<20} {'metric':<20} {'n':>4} {'figure':<18} {'agreement [95% CI]':<24}"
          f" {'unscored':>8} {'s/row':>7}")
    for ln in lines:
        print(f"{ln['dataset']:<20} {ln['metric']:<20} {ln['n']:>4} {ln['figure']:<18} "
              f"{_cell(ln):<24} {_share(ln['unscored']):>8} {_seconds(ln['s_per_row']):>7}")
    for ln in lines:
        for why, k in sorted(ln["reasons"].items(), key=lambda kv: -kv[1])[:2]:
            print(f"  {ln['dataset']} {ln['metric']}: {k} unscored, {why}")


def machine() -> str:
    """Cores and CPU model (from /proc/cpuinfo where there is one)."""
    model = platform.processor() or platform.machine()
    try:
        for row in Path("/proc/cpuinfo").read_text().splitlines():
            if row.startswith("model name"):
                model = row.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return f"{os.cpu_count()} cores, {model}"


def markdown(lines: list[dict[str, Any]], *, judge: str, n: int, skipped: bool) -> str:
    """The table as Markdown, with the date, judge and machine, and the skipped sets."""
    head = (f"Measured {datetime.date.today().isoformat()}, judge `{judge}`, on {machine()}; "
            f"`--n {n}` rows per set (fewer where the set has fewer). Intervals: 95% "
            "percentile bootstrap, 2,000 seeded resamples of the rows' groups (source article, "
            "question, passage). Unscored rows are counted, not used.")
    if os.environ.get("ASSAY_LOCAL_PARALLEL", "").strip() not in ("", "1"):
        head += (f" The embedded judge ran with ASSAY_LOCAL_PARALLEL="
                 f"{os.environ['ASSAY_LOCAL_PARALLEL'].strip()} (requests batched: weighted "
                 "scores move in the 2nd-3rd decimal from a one-at-a-time run).")
    out = [head, "",
           "| dataset | metric | n | figure | agreement [95% CI] | unscored | s/row | note |",
           "| --- | --- | ---: | --- | --- | ---: | ---: | --- |"]
    out += [f"| {ln['dataset']} | {ln['metric']} | {ln['n']} | {ln['figure']} | {_cell(ln)} | "
            f"{_share(ln['unscored'])} | {_seconds(ln['s_per_row'])} | {ln['note']} |"
            for ln in lines]
    unscored = [f"- {ln['dataset']} {ln['metric']}: {k} x {why}" for ln in lines
                for why, k in sorted(ln["reasons"].items(), key=lambda kv: -kv[1])[:2]]
    if unscored:
        out += ["", "Unscored rows (the main reasons):", "", *unscored]
    if skipped:
        out += ["", "Skipped (no metric fits):", ""]
        out += [f"- `{name}`: {why}" for name, why in SKIPPED.items()]
    return "\n".join(out) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    ap.add_argument("--all", action="store_true", help="every set of the registry")
    ap.add_argument("--only", default="", help="comma-separated sets: " + ", ".join(SETS))
    ap.add_argument("--dataset", default=None, choices=sorted(set(SETS) | set(SAFETY_DATASETS)),
                    help="one set, with the detailed report for pairwise and safety sets")
    ap.add_argument("--n", type=int, default=100, help="rows per set (default 100)")
    ap.add_argument("--judge", default="local")
    ap.add_argument("--metric", default="", help="groundedness sets: comma-separated, of "
                    + ", ".join(GROUNDEDNESS_METRICS))
    ap.add_argument("--style", default="auto", choices=["auto", "rating", "verdict"])
    ap.add_argument("--resume", default=None, metavar="DIR",
                    help="keep each set's results in DIR/<set>; a rerun scores only the rest")
    ap.add_argument("--cache", default=None, help="judge cache (default: DIR/cache.sqlite "
                    "with --resume, else a fresh temp file)")
    ap.add_argument("--table", default=None, metavar="FILE", help="write the Markdown table")
    ap.add_argument("--mode", default="both", choices=["combined", "separate", "both"],
                    help="--dataset with a safety set: one judge request for the four "
                         "severities, one per category, or both side by side")
    args = ap.parse_args(argv)
    base = Path(args.resume) if args.resume else Path(tempfile.mkdtemp(prefix="agreement-"))
    cache = args.cache or str(base / "cache.sqlite")
    if args.dataset in PAIRWISE:
        run_pairwise(args.dataset, args.n, args.judge, cache)
        return 0
    if args.dataset in SAFETY_DATASETS:
        run_safety(args.dataset, args.n, args.judge, cache, args.mode)
        return 0
    names = list(SETS) if args.all else [s.strip() for s in args.only.split(",") if s.strip()]
    names = names or [args.dataset or "halueval"]
    if unknown := sorted(set(names) - set(SETS)):
        ap.error(f"unknown sets {', '.join(unknown)}; the sets are {', '.join(SETS)}")
    metric = [m.strip() for m in args.metric.split(",") if m.strip()]
    if bad := sorted(set(metric) - set(GROUNDEDNESS_METRICS)):
        ap.error(f"unknown --metric {bad}; one of {', '.join(GROUNDEDNESS_METRICS)}")
    try:
        lines, judge_id = run_sets(names, n=args.n, judge=args.judge, base=base, cache=cache,
                                   style=args.style, metric=metric)
    except KeyboardInterrupt:
        print(f"\ninterrupted: the rows scored so far are in {base}; run again with "
              f"--resume {base} to score the rest", file=sys.stderr)
        return 130
    print_table(lines)
    if args.all:
        for name, why in SKIPPED.items():
            print(f"skipped {name}: {why}")
    if args.table:
        Path(args.table).write_text(markdown(lines, judge=judge_id, n=args.n, skipped=args.all))
        print(f"table written to {args.table}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
