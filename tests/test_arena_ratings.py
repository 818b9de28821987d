"""The arena's Bradley-Terry ratings (issue 48 part 3): the fit against a reference fit
(choix) on fixed outcomes, ties, unscored pairs, a clean sweep, intervals and ranks."""

from __future__ import annotations

import itertools

import choix
import numpy as np
import pytest

from assay.arena import Comparison, rate
from assay.arena._ratings import CENTRE, PRIOR, SCALE, fit_strengths, rank_labels

NAMES = ["A", "B", "C", "D"]


def _games(strengths: list[float], rows: int, seed: int) -> list[Comparison]:
    """Both orders of every pair on each row, won by the Bradley-Terry odds."""
    rng = np.random.default_rng(seed)
    games = []
    for r in range(rows):
        for i, j in itertools.permutations(range(len(strengths)), 2):
            p = 1 / (1 + np.exp(strengths[j] - strengths[i]))
            games.append(Comparison(f"r{r}", NAMES[i], NAMES[j], float(rng.random() < p)))
    return games


def _strengths(board, names=NAMES) -> np.ndarray:
    by_name = {r.system: (r.rating - CENTRE) / SCALE for r in board.ratings}
    return np.array([by_name[n] for n in names])


def test_the_fit_matches_choix_on_decisive_outcomes() -> None:
    games = _games([1.0, 0.3, -0.2, -1.1], rows=15, seed=3)
    data = [(NAMES.index(g.a), NAMES.index(g.b)) if g.outcome == 1.0 else
            (NAMES.index(g.b), NAMES.index(g.a)) for g in games]
    reference = choix.opt_pairwise(4, data, alpha=PRIOR, tol=1e-10)
    ours = _strengths(rate(games, systems=NAMES, bootstrap=0))
    np.testing.assert_allclose(ours, reference - reference.mean(), atol=1e-5)


def test_a_tie_is_half_a_win_each_way() -> None:
    games = _games([0.5, 0.0, -0.5, 0.2], rows=6, seed=4)
    games += [Comparison("t1", "A", "B", 0.5), Comparison("t2", "C", "D", 0.5)]
    # choix has no ties and no weights: every decisive outcome twice, a tie one win each way
    # and the prior doubled give the same optimum
    data = []
    for g in games:
        i, j = NAMES.index(g.a), NAMES.index(g.b)
        data += [(i, j), (j, i)] if g.outcome == 0.5 else [(i, j) if g.outcome else (j, i)] * 2
    reference = choix.opt_pairwise(4, data, alpha=2 * PRIOR, tol=1e-10)
    board = rate(games, systems=NAMES, bootstrap=0)
    np.testing.assert_allclose(_strengths(board), reference - reference.mean(), atol=1e-5)
    a = next(r for r in board.ratings if r.system == "A")
    assert a.ties == 1 and a.wins + a.ties + a.losses == 6 * 6 + 1


def test_unscored_pairs_are_counted_and_left_out_of_the_fit() -> None:
    games = _games([0.4, -0.4, 0.0, 0.1], rows=5, seed=5)
    noisy = games + [Comparison("r0", "A", "B", None)] * 7
    plain, with_unscored = rate(games, bootstrap=0), rate(noisy, bootstrap=0)
    np.testing.assert_allclose(_strengths(plain), _strengths(with_unscored))
    assert next(r for r in with_unscored.ratings if r.system == "B").unscored == 7


def test_a_clean_sweep_stays_finite_and_first() -> None:
    games = [Comparison(str(r), "A", other, 1.0) for r in range(10) for other in "BC"]
    games += [Comparison(str(r), "B", "C", r % 2) for r in range(10)]
    board = rate(games, bootstrap=200)
    top = board.ratings[0]
    assert top.system == "A" and top.rank == "1" and np.isfinite(top.high)
    assert board.ratings[1].rank == board.ratings[2].rank == "2-3"  # B and C split evenly


def test_a_resample_carries_whole_rows_and_is_reproducible() -> None:
    games = _games([0.6, 0.2, -0.2, -0.6], rows=20, seed=6)
    one, again = rate(games, bootstrap=300, seed=11), rate(games, bootstrap=300, seed=11)
    assert one == again
    other = rate(games, bootstrap=300, seed=12)
    assert [r.rating for r in one.ratings] == [r.rating for r in other.ratings]
    assert [r.low for r in one.ratings] != [r.low for r in other.ratings]


def test_the_intervals_cover_the_true_strengths() -> None:
    truth = np.array([0.8, 0.3, -0.3, -0.8])
    covered = total = 0
    for seed in range(60):
        board = rate(_games(list(truth), rows=12, seed=seed), systems=NAMES, bootstrap=200,
                     seed=seed)
        for r in board.ratings:
            true = CENTRE + SCALE * truth[NAMES.index(r.system)]
            covered += r.low <= true <= r.high
            total += 1
    assert 0.88 <= covered / total <= 1.0, covered / total  # 95% nominal, 240 intervals


def test_batched_fits_equal_one_at_a_time() -> None:
    first, second = np.array([0, 0, 1]), np.array([1, 2, 2])
    tables = np.array([[[3.0, 1.0], [2.0, 2.0], [0.0, 4.0]], [[1.0, 1.0], [5.0, 0.0], [1, 2]]])
    together = fit_strengths(3, first, second, tables)
    apart = [fit_strengths(3, first, second, t) for t in tables]
    np.testing.assert_allclose(together, np.array(apart), atol=1e-9)


@pytest.mark.parametrize("low,high,ranks", [
    ([10, 8, 1], [12, 11, 2], ["1-2", "1-2", "3"]),
    ([10, 5, 1], [12, 7, 2], ["1", "2", "3"]),
    ([1, 1, 1], [9, 9, 9], ["1-3", "1-3", "1-3"]),
])
def test_ranks_say_when_intervals_overlap(low, high, ranks) -> None:
    assert rank_labels(low, high) == ranks


def test_length_control_takes_out_a_judge_s_taste_for_length() -> None:
    """Three systems of equal quality; the judge prefers the longer answer (weight 2 per unit
    of normalised length difference) and the first system writes longer on most rows. Without
    length control it ranks first; with it the three are level and the weight is found."""
    rng = np.random.default_rng(7)
    games = []
    for r in range(150):
        size = {"A": rng.uniform(80, 200), "B": rng.uniform(40, 160), "C": rng.uniform(40, 160)}
        for a, b in itertools.permutations("ABC", 2):
            gap = (size[a] - size[b]) / (size[a] + size[b])
            p = 1 / (1 + np.exp(-2.0 * gap))
            games.append(Comparison(f"r{r}", a, b, float(rng.random() < p), length=gap))
    plain = rate(games, bootstrap=200)
    controlled = rate(games, bootstrap=200, length_control=True)
    assert plain.ratings[0].system == "A" and plain.ratings[0].rank == "1"
    assert plain.length_effect is None
    assert {r.rank for r in controlled.ratings} == {"1-3"}  # level once length is out
    effect = controlled.length_effect
    assert effect is not None and effect["low"] < 2.0 * SCALE < effect["high"]
    assert all(abs(r.rating - CENTRE) < 40 for r in controlled.ratings)
