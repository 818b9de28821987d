"""Pairwise position calibration: accuracy of the shipped ``preference`` rubric against people.

Runs ``assay.calibrate`` with ``examples/metrics/preference.md`` (both orders) on the first
``--n`` pairs of LLMBar-Natural (65 in all, no ties in the gold labels) and of PandaLM (pairs
with a majority label; the first 65 hold no tie), rows built by ``benchmarks/agreement.py``'s
``pairwise_rows``. For each set it prints the accuracy (exact agreement) with its Wilson 95%
interval, the position consistency (both orders' argmax agree), the share of single-order
answers naming the first-shown output, the flip count and which rule decided the rows
(``probabilities``: the two orders' averaged token probabilities; ``agreement``: the fallback
where a flip is a TIE). With ``--rules`` it also re-reads the stored per-order probabilities
and prints the accuracy the fallback rule and other tie margins would have given on the same
answers (no more judge calls).

    .venv/bin/python benchmarks/pairwise_calibration.py                    # embedded judge
    .venv/bin/python benchmarks/pairwise_calibration.py --dataset pandalm --n 60 --rules
    .venv/bin/python benchmarks/pairwise_calibration.py --judge openai:gpt-4o-mini

Run one embedded-judge benchmark at a time: the machine has two cores.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path
from typing import Any

from _stats import share
from agreement import PREFERENCE, pairwise_rows

import assay

COLUMN = "preference/human_pairwise_choice"


def read_results(out: Path) -> list[dict[str, Any]]:
    """The ``preference`` cell of every row of the run under ``out``, with the row id."""
    path = next(out.glob("*/results.jsonl"))
    cells = []
    for line in path.read_text().splitlines():
        rec = json.loads(line)
        cells.append({"id": rec["id"], **(rec.get("preference") or {})})
    return cells


def first_shown(verdict: dict[str, Any]) -> bool:
    """Whether a single-order answer named the first-shown output (old or new answer names)."""
    return str(verdict.get("answer")) in ("A", "model_A")


def rule_choice(details: dict[str, Any], rule: str, margin: float) -> str | None:
    """The label ``rule`` gives from the stored per-order answers: ``agreement`` (flip = TIE),
    ``probabilities`` (averaged, two-way with ``margin``) or ``argmax3`` (averaged, argmax of
    candidate / baseline / tie)."""
    orders = details.get("orders") or []
    if rule == "agreement":
        verdicts = [o["verdict"] for o in orders]
        return verdicts[0] if len(set(verdicts)) == 1 else "TIE"
    probs = details.get("probabilities")
    if not probs:
        return None
    c, b, t = probs["candidate"], probs["baseline"], probs["tie"]
    if rule == "argmax3":
        return max((c, "CANDIDATE"), (b, "BASELINE"), (t, "TIE"))[1]
    if abs(c - b) < margin:
        return "TIE"
    return "CANDIDATE" if c > b else "BASELINE"


def run(name: str, n: int, judge: str, cache: str, keep: Path | None, rules: bool,
        reasons: str) -> None:
    rows = pairwise_rows(name, n)
    gold = {r["id"]: r[COLUMN] for r in rows}
    work = keep or Path(tempfile.mkdtemp())
    work.mkdir(parents=True, exist_ok=True)
    data = work / f"{name}.jsonl"
    data.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    t0 = time.monotonic()
    result = assay.calibrate(data, metric=assay.load_metric_file(PREFERENCE), judges=[judge],
                             out=work / "out", cache=cache, concurrency=1, reasons=reasons)
    elapsed = time.monotonic() - t0
    report = next(iter(result.reports.values()))
    cells = read_results(work / "out")
    scored = [c for c in cells if c.get("value") is not None]
    right = sum(c["details"]["choice"] == gold[c["id"]] for c in scored)
    verdicts = [v for c in scored for v in c["details"].get("orders", [])]
    consistent = [c["details"].get("position_consistent") for c in scored]
    both = [x for x in consistent if x is not None]
    decided: dict[str, int] = {}
    for c in scored:
        key = str(c["details"].get("decided_by", "agreement"))
        decided[key] = decided.get(key, 0) + 1
    counts = {label: sum(g == label for g in gold.values()) for label in ("CANDIDATE",
                                                                          "BASELINE", "TIE")}
    print(f"{name}: {len(rows)} pairs (gold {counts}), {len(scored)} scored, judge "
          f"{report['judge']}")
    print(f"  accuracy {share(right, len(scored))}")
    print(f"  position consistency {share(sum(both), len(both))}; flips "
          f"{len(both) - sum(both)}")
    print(f"  answers naming the first-shown output "
          f"{share(sum(map(first_shown, verdicts)), len(verdicts))}")
    print(f"  decided by {decided}; balanced accuracy {report['balanced_accuracy']:.3f}")
    print(f"  confusion (rows human, columns judge, {report['labels']}): "
          f"{report['confusion_matrix']}")
    if rules:
        for rule, margin in [("agreement", 0.0), ("argmax3", 0.0)] + [
                ("probabilities", m) for m in (0.0, 0.02, 0.05, 0.1, 0.15)]:
            got = [(rule_choice(c["details"], rule, margin), gold[c["id"]]) for c in scored]
            got = [(j, h) for j, h in got if j is not None]
            label = rule if rule != "probabilities" else f"probabilities, margin {margin}"
            print(f"  rule {label}: accuracy {share(sum(j == h for j, h in got), len(got))}")
    print(f"  time {elapsed:.0f} s, {elapsed / len(rows):.1f} s/pair; results in {work / 'out'}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--dataset", choices=["llmbar_natural", "pandalm", "both"], default="both")
    ap.add_argument("--n", type=int, default=50, help="pairs per set (LLMBar-Natural has 65)")
    ap.add_argument("--judge", default="local")
    ap.add_argument("--cache", default=None, help="judge cache (default: a fresh temp file)")
    ap.add_argument("--keep", type=Path, default=None, help="keep data and results here")
    ap.add_argument("--reasons", default="never", choices=["never", "auto", "always"],
                    help="which rows get a reason; never (default) asks for the choices "
                         "alone, the same requests as auto on a local judge, so the figures "
                         "are the same, without auto's extra reason requests")
    ap.add_argument("--rules", action="store_true",
                    help="also print what the other rules and tie margins give")
    args = ap.parse_args()
    cache = args.cache or str(Path(tempfile.mkdtemp()) / "cache.sqlite")
    names = ["llmbar_natural", "pandalm"] if args.dataset == "both" else [args.dataset]
    for name in names:
        run(name, args.n, args.judge, cache, args.keep / name if args.keep else None,
            args.rules, args.reasons)


if __name__ == "__main__":
    main()
