"""How often a ``--max-drop`` gate fails: the mean-based check (two means) against the verdict
(the paired difference's interval), on synthetic runs judged with known noise.

No model is called: each run's records are made here, a 1-5 judge moving each score by one
point (up or down, clipped) in ``--noise`` of its calls, so the figures isolate the decision
rule. (The end-to-end figures with the bench judge, ``../shared/bench/fake_judge.py``, belong
in docs/benchmarks.md.) Scenarios, each compared ``--trials`` times with fresh judge noise:

- unchanged: the candidate's answers are the baseline's;
- worse: the candidate's answers got worse by ``--drop`` points on ``--worse-share`` of rows.

Each with 1 judge call per row and with ``--repeat`` calls (the row's value their mean).

    python benchmarks/verdict_flap.py                      # 40 rows, 40% noise, margin 0.2
    python benchmarks/verdict_flap.py --rows 100 --drop 1
"""

from __future__ import annotations

import argparse
import random
from typing import Any

from assay.compare import compare_runs, decide_drops
from assay.gate import check_comparison
from assay.records import RunData


def judged(truth: list[int], rng: random.Random, noise: float, repeats: int) -> list[dict[str, Any]]:
    """One result per row: the mean of ``repeats`` noisy judge scores (and the repeats)."""
    out = []
    for t in truth:
        scores = [float(min(5, max(1, t + rng.choice((-1, 1)) if rng.random() < noise else t)))
                  for _ in range(repeats)]
        result: dict[str, Any] = {"value": sum(scores) / repeats, "reason": None, "error": None}
        if repeats > 1:
            result["repeats"] = scores
        out.append(result)
    return out


def run_of(name: str, results: list[dict[str, Any]]) -> RunData:
    return RunData(name, {}, [{"id": f"r{i}", "groundedness": r} for i, r in enumerate(results)])


def trial(rng: random.Random, args: argparse.Namespace, *, worse: bool,
          repeats: int) -> tuple[bool, str]:
    """(mean-based gate failed, the verdict) of one fresh comparison."""
    truth = [rng.randint(3, 5) for _ in range(args.rows)]
    cand = ([max(1, t - args.drop) if rng.random() < args.worse_share else t for t in truth]
            if worse else truth)
    comparison = compare_runs(run_of("base", judged(truth, rng, args.noise, repeats)),
                              run_of("cand", judged(cand, rng, args.noise, repeats)))
    bars = {"groundedness": args.margin}
    mean_failed = bool(check_comparison(comparison, max_drop=bars))
    return mean_failed, decide_drops(comparison, bars, confidence=args.confidence)[0].verdict


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--rows", type=int, default=40)
    p.add_argument("--trials", type=int, default=20)
    p.add_argument("--noise", type=float, default=0.4)
    p.add_argument("--margin", type=float, default=0.2)
    p.add_argument("--confidence", type=float, default=0.95)
    p.add_argument("--worse-share", type=float, default=0.3)
    p.add_argument("--drop", type=int, default=2)
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args(argv)
    rng = random.Random(args.seed)
    print(f"{args.rows} rows, judge noise {args.noise:.0%} (one point), margin {args.margin}, "
          f"{args.confidence:.0%} CI, {args.trials} comparisons each; worse = -{args.drop} "
          f"points on {args.worse_share:.0%} of rows")
    print(f"{'scenario':<10} {'judge calls':>11} {'mean gate fails':>16} {'verdict fail':>13} "
          f"{'pass':>5} {'inconclusive':>13}")
    for worse in (False, True):
        for repeats in (1, args.repeat):
            results = [trial(rng, args, worse=worse, repeats=repeats) for _ in range(args.trials)]
            verdicts = [v for _, v in results]
            print(f"{'worse' if worse else 'unchanged':<10} {f'x{repeats}':>11} "
                  f"{sum(m for m, _ in results):>16} {verdicts.count('fail'):>13} "
                  f"{verdicts.count('pass'):>5} {verdicts.count('inconclusive'):>13}")


if __name__ == "__main__":
    main()
