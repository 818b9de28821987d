"""Active sampling for ``arena(budget=N)``: which pairs to judge next, and when to stop.

The arena's candidate comparisons (one per test row and pair of systems, see
:mod:`~assay.arena._pairs`) are grouped in *lanes*, one per pair of systems, each lane's rows
in a seeded order. The schedule judges them in rounds, refitting the board between rounds:

1. **Seed**: :data:`SEED_ROWS` rows of every pair of systems (a small round robin), so each
   system has a few comparisons before any choice is made.
2. **Rounds** of :func:`round_size` comparisons: the pairs of systems whose 95% intervals
   overlap most (the least separated; a system with no decided pair first) get the next
   rows of their lanes, shared out in turn. When no overlapping pair has a row left, the
   closest of the others do.
3. **Stop** when the board is separated (:meth:`~assay.arena.Leaderboard.separated`, once
   every system has :data:`MIN_DECIDED` decided comparisons, so that a bootstrap over two
   or three rows, which can be unanimous, does not stop it), when every candidate is judged,
   or when ``budget`` comparisons are used (never more).

The next round depends only on the seed and the comparisons judged so far, so a resumed run
(``--resume``) continues the same schedule from the results it finds.

Example:
    >>> import asyncio
    >>> ids = [f"r{r} | {a} vs {b}" for r in range(30) for a, b in
    ...        [("A", "B"), ("A", "C"), ("B", "C")]]
    >>> strength = {"A": 2, "B": 1, "C": 0}
    >>> async def ask(pairs):  # the better system always wins
    ...     return {p: Comparison(p.split(" | ")[0], p.split(" | ")[1].split(" vs ")[0],
    ...                           p.split(" vs ")[1], 1.0 if strength[p.split(" | ")[1]
    ...                           .split(" vs ")[0]] > strength[p.split(" vs ")[1]] else 0.0)
    ...             for p in pairs}
    >>> done = asyncio.run(run_schedule(ids, ask, budget=60, systems=["A", "B", "C"],
    ...                                 bootstrap=200))
    >>> done.stopped, len(done.judged) <= 60, done.board.ratings[0].system
    ('separated', True, 'A')
"""

from __future__ import annotations

import math
import random
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass

from ._pairs import split_pair_id
from ._ratings import Comparison, Leaderboard, rate

__all__ = ["MIN_DECIDED", "SEED_ROWS", "STOP_REASONS", "RoundReport", "ScheduleOutcome",
           "lanes_of", "next_round", "round_size", "run_schedule", "seed_round", "stop_reason"]

#: Rows of every pair of systems judged before any choice.
SEED_ROWS = 2
#: Decided comparisons each system needs before a separated board stops the schedule.
MIN_DECIDED = 10
#: Why a schedule stopped, as ``leaderboard.json`` says it.
STOP_REASONS = {"separated": "every neighbour on the board is separated by its interval",
                "all judged": "every pair of systems was judged on every shared row",
                "budget": "the budget of comparisons is spent"}

Lane = tuple[str, str]


@dataclass(frozen=True)
class RoundReport:
    """After a round: its number, the comparisons judged in it and in all, and the board."""

    round: int
    new: int
    judged: int
    board: Leaderboard


@dataclass(frozen=True)
class ScheduleOutcome:
    """The comparisons judged (pair ids, in the order scheduled), the rounds run here, the
    last board and why it stopped (a key of :data:`STOP_REASONS`)."""

    judged: list[str]
    rounds: int
    board: Leaderboard
    stopped: str


def lanes_of(pair_ids: Iterable[str], seed: int = 0) -> dict[Lane, list[str]]:
    """The candidate comparisons by pair of systems (names sorted), each lane's rows in an
    order drawn from ``seed`` and the two names (the same whatever else is in the arena).

    Example:
        >>> lanes_of(["q1 | B vs A", "q2 | A vs B", "q1 | C vs A"])
        {('A', 'B'): ['q1 | B vs A', 'q2 | A vs B'], ('A', 'C'): ['q1 | C vs A']}
    """
    lanes: dict[Lane, list[str]] = {}
    for pair in pair_ids:
        _, a, b = split_pair_id(pair)
        first, second = sorted((a, b))
        lanes.setdefault((first, second), []).append(pair)
    for (first, second), ids in lanes.items():
        random.Random(f"{seed}|{first}|{second}").shuffle(ids)
    return dict(sorted(lanes.items()))


def seed_round(lanes: Mapping[Lane, Sequence[str]], rows: int = SEED_ROWS) -> list[str]:
    """The seed: ``rows`` comparisons of every lane, one of each lane before a second.

    Example:
        >>> seed_round({("A", "B"): ["1", "2", "3"], ("A", "C"): ["4"]})
        ['1', '4', '2']
    """
    return [ids[k] for k in range(rows) for ids in lanes.values() if k < len(ids)]


def round_size(systems: int) -> int:
    """Comparisons per round after the seed: two per system (a refit between rounds).

    Example:
        >>> round_size(5)
        10
    """
    return 2 * max(systems, 1)


def _overlap(board: Leaderboard, lane: Lane) -> float:
    """How far the two systems' intervals overlap (negative: the gap between them); a
    system without a rating overlaps everything."""
    bounds = {r.system: (r.low, r.high) for r in board.ratings}
    (low_a, high_a), (low_b, high_b) = bounds.get(lane[0], (None, None)), bounds.get(
        lane[1], (None, None))
    if low_a is None or high_a is None or low_b is None or high_b is None:
        return math.inf
    return min(high_a, high_b) - max(low_a, low_b)


def next_round(lanes: Mapping[Lane, Sequence[str]], judged: Iterable[str],
               board: Leaderboard, size: int) -> list[str]:
    """Up to ``size`` comparisons not judged yet: the lanes whose intervals overlap, most
    overlapping first, take their next rows in turn; when none of them has a row left, the
    others, closest first.

    Example:
        >>> from assay.arena._ratings import Rating
        >>> board = Leaderboard([Rating("A", 1100, 1000, 1200, "1-2", 0, 0, 0, 0),
        ...                      Rating("B", 1050, 950, 1150, "1-3", 0, 0, 0, 0),
        ...                      Rating("C", 850, 800, 960, "2-3", 0, 0, 0, 0)], 0, 0, 0, 0)
        >>> lanes = {("A", "B"): ["1", "2"], ("A", "C"): ["3"], ("B", "C"): ["4", "5"]}
        >>> next_round(lanes, ["1"], board, 3)
        ['2', '4', '5']
    """
    done = set(judged)
    left = {lane: [p for p in ids if p not in done] for lane, ids in lanes.items()}
    left = {lane: ids for lane, ids in left.items() if ids}
    ranked = sorted(left, key=lambda lane: (-_overlap(board, lane), lane))
    chosen = [lane for lane in ranked if _overlap(board, lane) >= 0] or ranked
    out: list[str] = []
    depth = 0
    while len(out) < size and any(depth < len(left[lane]) for lane in chosen):
        out += [left[lane][depth] for lane in chosen if depth < len(left[lane])]
        depth += 1
    return out[:size]


def stop_reason(board: Leaderboard, lanes: Mapping[Lane, Sequence[str]],
                judged: Iterable[str], budget: int) -> str | None:
    """Why the schedule stops now (a key of :data:`STOP_REASONS`), or ``None`` to go on."""
    done = set(judged)
    rated = [r for r in board.ratings if r.rating is not None]
    if (len(rated) == len(board.ratings) and board.separated()
            and all(r.wins + r.ties + r.losses >= MIN_DECIDED for r in rated)
            and all(p in done for p in seed_round(lanes))):
        return "separated"
    if all(p in done for ids in lanes.values() for p in ids):
        return "all judged"
    if len(done) >= budget:
        return "budget"
    return None


async def run_schedule(pair_ids: Sequence[str],
                       ask: Callable[[list[str]], Awaitable[Mapping[str, Comparison]]], *,
                       budget: int, systems: Sequence[str], bootstrap: int, seed: int = 0,
                       judged: Mapping[str, Comparison] | None = None,
                       on_round: Callable[[RoundReport], None] | None = None
                       ) -> ScheduleOutcome:
    """Judge ``pair_ids`` in rounds until :func:`stop_reason` says stop.

    ``ask`` is given every comparison scheduled so far (the earlier ones and the round's new
    ones, in that order) and returns each one's :class:`Comparison` (``outcome`` ``None``:
    unscored; asking again is ``ask``'s business); ``judged`` holds the comparisons an
    earlier, interrupted run already has (``--resume``); ``on_round`` hears after each round.
    """
    lanes = lanes_of(pair_ids, seed)
    known = set(pair_ids)
    results = {p: c for p, c in (judged or {}).items() if p in known}
    rounds = 0
    board = rate(list(results.values()), systems=systems, bootstrap=bootstrap, seed=seed)
    while True:
        stopped = stop_reason(board, lanes, results, budget)
        if stopped is not None:
            return ScheduleOutcome(list(results), rounds, board, stopped)
        room = budget - len(results)
        batch = [p for p in seed_round(lanes) if p not in results][:room] or next_round(
            lanes, results, board, min(room, round_size(len(systems))))
        answered = await ask(list(results) + batch)
        results = {p: answered[p] for p in list(results) + batch}
        rounds += 1
        board = rate(list(results.values()), systems=systems, bootstrap=bootstrap, seed=seed)
        if on_round is not None:
            on_round(RoundReport(rounds, len(batch), len(results), board))
