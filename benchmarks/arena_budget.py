"""Issue 48 part 4: does ``--budget`` find the same order with at most 60% of round robin's
comparisons?

The scripted judge of ``benchmarks/arena_mechanics.py``: five systems of known order (A best
... E worst); in each order of each comparison the judge names the first-shown answer in 25%
of calls whatever it read, and otherwise prefers the better system with probability 0.8.
Every tournament runs through the real arena (``assay.arena.arena`` with a scripted
``FakeJudge``: every request goes through the run's scoring path, each round of the budgeted
arena into the same output folder):

* **round robin**: every pair of systems on every row (the default);
* **budgeted**: ``budget = 60%`` of round robin's comparisons, active sampling, early stop;
* **random subset** (a control, no judge calls): as many comparisons as the budgeted arena
  used, drawn at random from the round robin's own judged comparisons and fitted with
  ``assay.arena.rate``: what the same number of comparisons gives without active sampling.

Per tournament the judge's coin is seeded the same way for both, so the two differ only by
which comparisons they ask. Reported: comparisons used, Kendall tau with the true order, the
share of tournaments that found the true order exactly.

Run: ``python benchmarks/arena_budget.py [--tournaments 20] [--rows 40] [--share 0.6]``.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

from arena_mechanics import FIRST_SHOWN, PREFERS_BETTER, SYSTEMS, system_files
from scipy.stats import kendalltau

from assay.arena import arena, rate
from assay.arena._pairs import comparison_of
from assay.judges import FakeJudge
from assay.run import JudgeOptions, RunOptions


def scripted_judge(seed: int) -> FakeJudge:
    """The mechanics bench's judge; each answer drawn from the request and ``seed``, so a
    comparison comes out the same whichever schedule asks it."""
    def judge(req) -> str:
        text = req.messages[-1]["content"]
        a = text.split("<response_a>")[1].split("</response_a>")[0].strip()
        b = text.split("<response_b>")[1].split("</response_b>")[0].strip()
        rng = random.Random(f"{seed}|{a}|{b}")
        if rng.random() < FIRST_SHOWN:
            named = 0
        else:
            better = 0 if int(a.split()[1]) < int(b.split()[1]) else 1
            named = better if rng.random() < PREFERS_BETTER else 1 - better
        return json.dumps({"choice": "AB"[named], "reason": "scripted"})
    return FakeJudge(judge)


def tau_of(board: list[str]) -> float:
    return float(kendalltau([SYSTEMS.index(s) for s in board], range(5)).statistic)


def one(folder: Path, seed: int, budget: int | None, bootstrap: int,
        keep: list | None = None) -> tuple[int, float, str]:
    """Comparisons used, Kendall tau with the true order, why it stopped (``keep`` gets the
    judged comparisons)."""
    paths = sorted(folder.glob("*.jsonl"))
    out = Path(tempfile.mkdtemp()) / "out"
    result = arena(paths, judge=scripted_judge(seed), judging=JudgeOptions(cache=None),
                   run=RunOptions(out=out, progress=False), bootstrap=bootstrap, seed=seed,
                   budget=budget)
    if keep is not None:
        keep += [comparison_of(json.loads(line), "preference")
                 for line in (out / "results.jsonl").read_text().splitlines()]
    tau = tau_of([r.system for r in result.leaderboard.ratings])
    return result.leaderboard.comparisons, tau, result.schedule.get("stopped", "round robin")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tournaments", type=int, default=20)
    parser.add_argument("--rows", type=int, default=40)
    parser.add_argument("--share", type=float, default=0.6)
    parser.add_argument("--bootstrap", type=int, default=1000)
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp())
    system_files(folder, args.rows)
    full = args.rows * len(SYSTEMS) * (len(SYSTEMS) - 1) // 2
    budget = int(full * args.share)
    figures: dict[str, list[tuple[int, float, str]]] = {"round robin": [], "budgeted": [],
                                                         "random subset": []}
    started = time.perf_counter()
    for t in range(args.tournaments):
        judged: list = []
        figures["round robin"].append(one(folder, t, None, args.bootstrap, judged))
        figures["budgeted"].append(one(folder, t, budget, args.bootstrap))
        used = figures["budgeted"][-1][0]
        subset = random.Random(t).sample(judged, used)
        board = rate(subset, systems=SYSTEMS, bootstrap=0)
        figures["random subset"].append((used, tau_of([r.system for r in board.ratings]),
                                         "control"))
    print(f"{args.tournaments} tournaments of {args.rows} rows, 5 systems; round robin "
          f"{full} comparisons, budget {budget} ({args.share:.0%}); "
          f"{time.perf_counter() - started:.0f} s")
    for how, rows in figures.items():
        used = [n for n, _, _ in rows]
        taus = [tau for _, tau, _ in rows]
        stops: dict[str, int] = {}
        for _, _, why in rows:
            stops[why] = stops.get(why, 0) + 1
        print(f"{how:13s} comparisons mean {statistics.mean(used):.0f} (min {min(used)}, "
              f"max {max(used)}, {statistics.mean(used) / full:.0%} of round robin); "
              f"Kendall tau mean {statistics.mean(taus):.3f} (min {min(taus):.2f}); "
              f"true order {sum(t > 0.999 for t in taus)}/{len(taus)}; stopped: {stops}")
    same = sum(a[1] == b[1] for a, b in zip(figures["round robin"], figures["budgeted"]))
    print(f"budgeted order as good as round robin's (same tau) in {same}/{args.tournaments}")


if __name__ == "__main__":
    sys.exit(main())
