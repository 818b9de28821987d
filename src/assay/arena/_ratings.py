"""Bradley-Terry ratings of N systems from judged pairs, with bootstrap intervals over rows and
ranks that say when two systems cannot be told apart.

**Length control** (``length_control=True``, off by default): judges favour longer answers,
so the fit may take the two answers' normalised length difference (``Comparison.length``:
``(len(a) - len(b)) / (len(a) + len(b))``) as a covariate beside the strengths, as Chatbot
Arena's style control does; the ratings are then what each system earns at equal length, and
the length's own weight is reported (``Leaderboard.length_effect``, in rating points per unit
of difference, with its interval).

The model: system ``a`` beats ``b`` with probability ``1 / (1 + exp(s_b - s_a))``. The
strengths ``s`` are fitted by maximum likelihood (Newton's method, every bootstrap resample
at once) under a weak Gaussian prior (:data:`PRIOR`: ``PRIOR * sum(s**2)`` is added to
the negative log-likelihood, which keeps a system that won every comparison finite and the
fit unique). A tie counts half a win each way; an unscored pair (``outcome=None``: the judge
call failed or its answer could not be read) is left out of the fit and counted apart,
never made a tie.

Ratings are shown on an Elo-like scale, ``1000 + 400 * s / ln 10`` with the systems' mean at
1000: 400 points apart means 10:1 odds. The 95% interval of each rating comes from a
bootstrap over rows (every comparison on a resampled row goes with it, so a row's two
orders and its N systems stay together), percentile method, seeded. A system's rank reads
``"1"`` when its interval separates it from every other, and ``"1-2"`` when the intervals
cannot tell it from its neighbours: its best rank counts the systems clearly above it, its
worst the systems not clearly below it.

Example:
    >>> games = [Comparison(str(r), "A", "B", 1.0) for r in range(8)]
    >>> games += [Comparison(str(r), "B", "C", 1.0) for r in range(8)]
    >>> games += [Comparison(str(r), "A", "C", 0.5) for r in range(2)]
    >>> board = rate(games, bootstrap=200)
    >>> [(r.system, r.wins, r.ties, r.losses) for r in board.ratings]
    [('A', 8, 2, 0), ('B', 8, 0, 8), ('C', 0, 2, 8)]
    >>> board.ratings[0].rating > board.ratings[1].rating > board.ratings[2].rating
    True
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

__all__ = ["BOOTSTRAP", "PRIOR", "Comparison", "Leaderboard", "Rating", "fit_strengths",
           "rank_labels", "rate"]

#: Weight of the Gaussian prior on the strengths (``PRIOR * sum(s**2)``): weak enough that
#: 20 comparisons move a strength far more than it does, strong enough that a clean sweep
#: stays finite.
PRIOR = 0.01
#: Bootstrap resamples of the rows for the intervals.
BOOTSTRAP = 1000
#: Elo-like points per unit of strength (400 points: odds of 10 to 1).
SCALE = 400 / math.log(10)
#: The mean rating of the systems.
CENTRE = 1000.0


@dataclass(frozen=True)
class Comparison:
    """One judged pair on one row: ``outcome`` 1.0 when ``a`` won, 0.0 when ``b`` won, 0.5 a
    tie, ``None`` when it is unscored (left out of the fit, counted apart); ``length`` the
    two answers' normalised length difference."""

    row_id: str
    a: str
    b: str
    outcome: float | None
    #: ``a``'s answer length minus ``b``'s over their sum (-1 to 1), read only under length
    #: control.
    length: float = 0.0


@dataclass(frozen=True)
class Rating:
    """A system's place on the board: ``rating`` on the Elo-like scale with its 95% interval
    (``low``, ``high``), its ``rank`` (``"2"`` or ``"1-3"``) and its record; ``None`` and
    rank ``"-"`` for a system none of whose pairs was decided (all unscored)."""

    system: str
    rating: float | None
    low: float | None
    high: float | None
    rank: str
    wins: int
    ties: int
    losses: int
    unscored: int


@dataclass(frozen=True)
class Leaderboard:
    """The ratings, best first, and how they were made."""

    ratings: list[Rating]
    comparisons: int
    rows: int
    bootstrap: int
    seed: int
    #: Under length control: the length difference's effect in rating points per unit of
    #: normalised difference (``{"points", "low", "high"}``); ``None`` without it.
    length_effect: dict[str, float] | None = None

    def separated(self) -> bool:
        """Whether every pair of neighbours on the board is told apart by the intervals
        (each rank a single number).

        Example:
            >>> board = Leaderboard([Rating("A", 1100, 1050, 1150, "1", 9, 0, 1, 0),
            ...                      Rating("B", 900, 850, 1060, "2", 1, 0, 9, 0)], 10, 10, 0, 0)
            >>> board.separated()
            True
        """
        return all("-" not in r.rank for r in self.ratings)


def _pair_table(comparisons: Sequence[Comparison], index: dict[str, int],
                rows: dict[str, int], *, by_length: bool = False
                ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``(first, second, length, wins)``: the ordered system pairs (first index < second),
    each column's length difference (first minus second; one column per distinct difference
    when ``by_length``, else 0), and per row and column the weight of first-beat-second and
    of second-beat-first (``rows x columns x 2``)."""
    columns: dict[tuple[int, int, float], int] = {}
    cells: list[tuple[int, int, int, float]] = []
    for c in comparisons:
        if c.outcome is None:
            continue
        i, j, won, gap = index[c.a], index[c.b], float(c.outcome), c.length if by_length else 0.0
        if i > j:
            i, j, won, gap = j, i, 1.0 - won, -gap
        k = columns.setdefault((i, j, round(gap, 9)), len(columns))
        cells.append((rows[c.row_id], k, 0, won))
        cells.append((rows[c.row_id], k, 1, 1.0 - won))
    wins = np.zeros((len(rows), len(columns), 2))
    for r, k, side, weight in cells:
        wins[r, k, side] += weight
    ordered = sorted(columns, key=columns.__getitem__)
    first = np.array([i for i, _, _ in ordered], dtype=int)
    second = np.array([j for _, j, _ in ordered], dtype=int)
    length = np.array([gap for _, _, gap in ordered], dtype=float)
    return first, second, length, wins


def _newton(design: np.ndarray, wins: np.ndarray, prior: float) -> np.ndarray:
    """Maximum-likelihood logistic weights for ``design`` (columns x parameters) and the
    weighted outcomes ``wins`` (batch x columns x 2): Newton's method on the penalised
    log-likelihood (strictly convex with ``prior > 0``), each step at most 2 units long,
    until no weight moves by 1e-9."""
    won, lost = wins[..., 0], wins[..., 1]
    ridge = max(prior, 1e-9) * 2 * np.eye(design.shape[1])  # prior 0: the least pinned
    w = np.zeros((len(wins), design.shape[1]))
    for _ in range(100):
        p = 1 / (1 + np.exp(-(w @ design.T)))  # first beats second
        grad = 2 * prior * w - (won * (1 - p) - lost * p) @ design
        curve = (won + lost) * p * (1 - p)
        hessian = ridge + np.einsum("bk,ki,kj->bij", curve, design, design)
        step = np.linalg.solve(hessian, grad[..., None])[..., 0]
        longest = np.abs(step).max(axis=-1, keepdims=True)
        step *= np.minimum(1.0, 2.0 / np.maximum(longest, 1e-300))
        w -= step
        if longest.max() < 1e-9:
            break
    return w


def fit_strengths(n_systems: int, first: np.ndarray, second: np.ndarray,
                  wins: np.ndarray, prior: float = PRIOR, length: np.ndarray | None = None
                  ) -> np.ndarray:
    """Maximum-likelihood Bradley-Terry strengths (centred at 0) for weighted outcomes per
    pair: ``wins[..., k, :] = (weight of first[k] beating second[k], weight of the
    reverse)``; a leading axis of ``wins`` fits that many tables at once (the bootstrap).
    With ``length`` (each column's length difference), the length's weight is fitted beside
    the strengths and returned after them (``[..., n_systems]``).

    Example:
        >>> s = fit_strengths(2, np.array([0]), np.array([1]), np.array([[3.0, 1.0]]), prior=0)
        >>> round(float(s[0] - s[1]), 6) == round(math.log(3), 6)   # 3 wins to 1: odds 3
        True
    """
    extra = 0 if length is None else 1
    if len(first) == 0:  # no decided pair: nothing tells the systems apart
        return np.zeros((*wins.shape[:-2], n_systems + extra))
    design = np.zeros((len(first), n_systems + extra))
    design[np.arange(len(first)), first] = 1.0
    design[np.arange(len(first)), second] = -1.0
    if length is not None:
        design[:, n_systems] = length
    w = _newton(design, wins.reshape(-1, *wins.shape[-2:]), prior)
    w[:, :n_systems] -= w[:, :n_systems].mean(axis=-1, keepdims=True)
    return w.reshape(*wins.shape[:-2], n_systems + extra)


def rank_labels(low: Sequence[float], high: Sequence[float]) -> list[str]:
    """Each system's rank from the intervals: best = 1 + the systems whose low end is above
    its high end; worst = N - the systems whose high end is below its low end.

    Example:
        >>> rank_labels([10, 8, 1], [12, 11, 2])
        ['1-2', '1-2', '3']
    """
    n = len(low)
    labels = []
    for i in range(n):
        best = 1 + sum(low[j] > high[i] for j in range(n) if j != i)
        worst = n - sum(high[j] < low[i] for j in range(n) if j != i)
        labels.append(str(best) if best == worst else f"{best}-{worst}")
    return labels


def _records(comparisons: Iterable[Comparison], systems: Sequence[str]
             ) -> dict[str, list[int]]:
    """``{system: [wins, ties, losses, unscored]}``."""
    record = {s: [0, 0, 0, 0] for s in systems}
    for c in comparisons:
        if c.outcome is None:
            record[c.a][3] += 1
            record[c.b][3] += 1
        elif c.outcome == 0.5:
            record[c.a][1] += 1
            record[c.b][1] += 1
        else:
            winner, loser = (c.a, c.b) if c.outcome > 0.5 else (c.b, c.a)
            record[winner][0] += 1
            record[loser][2] += 1
    return record


def rate(comparisons: Sequence[Comparison], *, systems: Sequence[str] | None = None,
         bootstrap: int = BOOTSTRAP, seed: int = 0, prior: float = PRIOR,
         length_control: bool = False) -> Leaderboard:
    """The leaderboard of the systems named in ``comparisons`` (or ``systems``, in that
    order for equal ratings), best first, with bootstrap intervals over rows.

    Example:
        >>> games = [Comparison(str(r), "A", "B", 1.0 if r % 4 else 0.0) for r in range(40)]
        >>> board = rate(games, bootstrap=300)
        >>> [(r.system, r.rank, round(r.rating)) for r in board.ratings]
        [('A', '1', 1095), ('B', '2', 905)]
        >>> board.ratings[0].low < board.ratings[0].rating < board.ratings[0].high
        True
    """
    names = list(systems) if systems is not None else list(dict.fromkeys(
        name for c in comparisons for name in (c.a, c.b)))
    record = _records(comparisons, names)
    rated = [name for name in names if sum(record[name][:3])]  # at least one decided pair
    index = {name: i for i, name in enumerate(rated)}
    rows = {row: i for i, row in enumerate(dict.fromkeys(c.row_id for c in comparisons))}
    first, second, gaps, per_row = _pair_table(comparisons, index, rows,
                                               by_length=length_control)
    length = gaps if length_control else None
    fitted = fit_strengths(len(rated), first, second, per_row.sum(axis=0), prior, length)
    if bootstrap > 0 and len(first):
        rng = np.random.default_rng(seed)
        draws = rng.multinomial(len(rows), np.full(len(rows), 1 / len(rows)), size=bootstrap)
        table = per_row.reshape(len(rows), -1)
        samples = fit_strengths(len(rated), first, second,
                                (draws @ table).reshape(bootstrap, -1, 2), prior, length)
        low_all, high_all = np.percentile(samples, [2.5, 97.5], axis=0)
    else:
        low_all, high_all = fitted.copy(), fitted.copy()
    n = len(rated)
    strengths, low, high = fitted[:n], low_all[:n], high_all[:n]
    effect = ({"points": float(SCALE * fitted[n]), "low": float(SCALE * low_all[n]),
               "high": float(SCALE * high_all[n])} if length_control else None)
    low_r, high_r = CENTRE + SCALE * low, CENTRE + SCALE * high
    ranks = rank_labels(list(low_r), list(high_r))
    ratings = [Rating(name, float(CENTRE + SCALE * strengths[i]), float(low_r[i]),
                      float(high_r[i]), ranks[i], *record[name]) for i, name in enumerate(rated)]
    ratings.sort(key=lambda r: -(r.rating or 0.0))
    # a system no pair was decided for has no rating (never a made-up 1000)
    ratings += [Rating(name, None, None, None, "-", *record[name]) for name in names
                if name not in index]
    return Leaderboard(ratings, len(comparisons), len(rows), bootstrap, seed, effect)
