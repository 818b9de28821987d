"""Issue 48's mechanics: does the arena recover a known order, and do its intervals cover?

Five systems of known order (A best ... E worst). For each row and each pair, the judge is
asked in both orders; in each order it names the first-shown answer in 25% of calls whatever
it read, and otherwise prefers the better system with probability 0.8. The two orders are
combined as the pairwise metric does without probabilities: agreement wins, disagreement is
a tie.

1. **Order**: one tournament of 40 rows through the real arena (``assay.arena.arena`` with a
   scripted judge, every request going through the run's scoring path): Kendall tau between
   the board and the true order.
2. **Coverage**: 200 simulated tournaments of 40 rows fitted with ``assay.arena.rate``; the
   estimand is the strength the fit converges to on unlimited rows under this judge (fitted
   once on 20,000 rows): the share of 95% intervals that cover it.

Run: ``python benchmarks/arena_mechanics.py [--tournaments 200] [--rows 40]``.
"""

from __future__ import annotations

import argparse
import itertools
import json
import random
import sys
import tempfile
import time
from pathlib import Path

from scipy.stats import kendalltau

from assay.arena import Comparison, arena, rate
from assay.arena._ratings import CENTRE, SCALE
from assay.judges import FakeJudge
from assay.run import JudgeOptions

SYSTEMS = ["A", "B", "C", "D", "E"]
FIRST_SHOWN, PREFERS_BETTER = 0.25, 0.8


def one_order(rng: random.Random, shown_first: int, shown_second: int) -> int:
    """0: the judge names the first-shown, 1: the second (quality: lower index is better)."""
    if rng.random() < FIRST_SHOWN:
        return 0
    better = 0 if shown_first < shown_second else 1
    return better if rng.random() < PREFERS_BETTER else 1 - better


def outcome(rng: random.Random, i: int, j: int) -> float:
    """Both orders of the pair (i, j), combined: 1 i wins, 0 j wins, 0.5 a tie."""
    first = one_order(rng, i, j) == 0  # i shown first: i named?
    second = one_order(rng, j, i) == 1  # j shown first: i named?
    return 1.0 if first and second else 0.0 if not first and not second else 0.5


def tournament(rng: random.Random, rows: int) -> list[Comparison]:
    return [Comparison(str(r), SYSTEMS[i], SYSTEMS[j], outcome(rng, i, j))
            for r in range(rows) for i, j in itertools.combinations(range(5), 2)]


def system_files(folder: Path, rows: int) -> list[Path]:
    """One answers file per system of :data:`SYSTEMS` (``folder/A.jsonl`` ...), each answer
    naming its system's place in the true order (``system 0 row 3``), in that order."""
    paths = []
    for k, name in enumerate(SYSTEMS):
        lines = [json.dumps({"id": f"r{r}", "question": "Q?", "answer": f"system {k} row {r}"})
                 for r in range(rows)]
        (folder / f"{name}.jsonl").write_text("\n".join(lines) + "\n")
        paths.append(folder / f"{name}.jsonl")
    return paths


def through_the_arena(rows: int, seed: int) -> tuple[float, int, float]:
    """Kendall tau of one 40-row tournament run through ``arena()``; requests; seconds."""
    rng = random.Random(seed)
    paths = system_files(Path(tempfile.mkdtemp()), rows)

    def judge(req) -> str:
        text = req.messages[-1]["content"]
        a = int(text.split("<response_a>")[1].split()[1])
        b = int(text.split("<response_b>")[1].split()[1])
        named = one_order(rng, a, b)
        return json.dumps({"choice": "AB"[named], "reason": "scripted"})

    fake = FakeJudge(judge)
    started = time.perf_counter()
    result = arena(paths, judge=fake, judging=JudgeOptions(cache=None), bootstrap=1000)
    seconds = time.perf_counter() - started
    board = [r.system for r in result.leaderboard.ratings]
    tau = kendalltau([SYSTEMS.index(s) for s in board], range(5)).statistic
    return float(tau), len(fake.requests), seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tournaments", type=int, default=200)
    parser.add_argument("--rows", type=int, default=40)
    parser.add_argument("--bootstrap", type=int, default=1000)
    args = parser.parse_args()

    tau, requests, seconds = through_the_arena(args.rows, seed=1)
    print(f"order through the arena: {args.rows} rows, {requests} judge requests, "
          f"Kendall tau {tau:.2f}, {seconds:.1f} s")

    population = rate(tournament(random.Random(0), 20_000), systems=SYSTEMS, bootstrap=0)
    truth = {r.system: r.rating for r in population.ratings}
    covered = total = exact = 0
    started = time.perf_counter()
    for t in range(args.tournaments):
        board = rate(tournament(random.Random(1000 + t), args.rows), systems=SYSTEMS,
                     bootstrap=args.bootstrap, seed=t)
        exact += [r.system for r in board.ratings] == SYSTEMS
        for r in board.ratings:
            covered += r.low <= truth[r.system] <= r.high  # type: ignore[operator]
            total += 1
    share = covered / total
    half = 1.96 * (share * (1 - share) / total) ** 0.5
    print("estimand (20,000 rows): " + ", ".join(
        f"{s} {truth[s] - CENTRE:+.0f}" for s in SYSTEMS) + f" (Elo points; {SCALE:.1f} per unit)")
    print(f"coverage of 95% intervals: {share:.3f} +- {half:.3f} (n={total} intervals, "
          f"{args.tournaments} tournaments of {args.rows} rows, {args.bootstrap} resamples); "
          f"true order exactly in {exact}/{args.tournaments}; "
          f"{time.perf_counter() - started:.1f} s")


if __name__ == "__main__":
    sys.exit(main())
