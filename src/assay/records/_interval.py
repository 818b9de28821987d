"""How sure a mean is: its standard error and a seeded 95% percentile-bootstrap interval.

A metric's mean over ``n`` scored rows carries ``se`` (sample standard deviation over
sqrt(n)) and ``ci95`` (the 2.5th and 97.5th percentiles of the means of 2000 resamples of the
rows, drawn with ``numpy.random.default_rng(0)``). The values are sorted first, so the
interval depends on the values only, never on the order in which rows finished.

Edge cases are explicit: no scored row gives no interval at all (``None``); one scored row
gives ``se`` and ``ci95`` of ``None`` with a ``note`` saying why (one value has no spread);
equal values give a zero-width interval.

Example:
    >>> iv = mean_interval([0.0, 1.0, 1.0, 1.0, 0.0, 1.0])
    >>> iv.n, iv.se, iv.ci95
    (6, 0.2108, (0.3333, 1.0))
    >>> mean_interval([4.0, 4.0, 4.0]).ci95
    (4.0, 4.0)
    >>> print(mean_interval([3.0]).note)
    1 scored row: no spread to estimate an interval from
    >>> mean_interval([]) is None
    True
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

__all__ = ["BOOTSTRAP_RESAMPLES", "BOOTSTRAP_SEED", "MeanInterval", "bootstrap_mean_ci",
           "bootstrap_means", "mean_interval", "with_interval"]

#: Resamples behind every interval in a summary.
BOOTSTRAP_RESAMPLES = 2000
#: Seed of the generator behind every interval in a summary.
BOOTSTRAP_SEED = 0
#: Decimals kept in a summary's ``se`` and ``ci95`` (as its means).
_DIGITS = 4
#: Resampled rows per block of index draws: bounds the index array's memory.
_BLOCK_CELLS = 2_000_000
#: Work (about 8 ns a unit) above which the bootstrap gives way to the normal interval.
_MAX_WORK = 400_000_000
#: A draw over the distinct values costs about this many index draws per distinct value.
_GROUP_COST = 16


@dataclass(frozen=True)
class MeanInterval:
    """The mean of ``n`` scored values, its standard error and its 95% interval (``se`` and
    ``ci95`` are None under 2 values, and ``note`` says why; ``note`` also names a normal
    interval used instead of the bootstrap for very large, fine-grained samples).

    Example:
        >>> MeanInterval(n=2, mean=0.5, se=0.5, ci95=(0.0, 1.0)).fields()
        {'se': 0.5, 'ci95': [0.0, 1.0]}
    """

    n: int
    mean: float
    se: float | None
    ci95: tuple[float, float] | None
    note: str | None = None

    def fields(self) -> dict[str, object]:
        """The keys this interval adds to a metric's entry in ``summary.json``: ``se``,
        ``ci95`` (a list), and ``ci_note`` when there is one."""
        out: dict[str, object] = {"se": self.se,
                                  "ci95": list(self.ci95) if self.ci95 is not None else None}
        if self.note:
            out["ci_note"] = self.note
        return out


def mean_interval(values: Iterable[float], *, n_boot: int = BOOTSTRAP_RESAMPLES,
                  seed: int = BOOTSTRAP_SEED, level: float = 0.95,
                  digits: int = _DIGITS) -> MeanInterval | None:
    """The mean of ``values`` with its standard error and percentile-bootstrap interval
    (rounded to ``digits``); None when there are no values.

    Example:
        >>> mean_interval([1.0, 2.0, 3.0, 4.0, 5.0]).se
        0.7071
    """
    data = np.sort(np.fromiter(values, dtype=float))
    n = len(data)
    if n == 0:
        return None
    mean = float(data.mean())
    if n == 1:
        return MeanInterval(n=1, mean=round(mean, digits), se=None, ci95=None,
                            note="1 scored row: no spread to estimate an interval from")
    se = float(data.std(ddof=1)) / math.sqrt(n)
    note = None
    if data[0] == data[-1]:
        ci = (mean, mean)
    elif (bounds := bootstrap_mean_ci(data, n_boot=n_boot, seed=seed, level=level)) is None:
        z = _normal_quantile(0.5 + level / 2)
        ci = (mean - z * se, mean + z * se)
        note = (f"normal interval (mean ± {z:.2f} se): {n} rows of {len(np.unique(data))} "
                "distinct values are too many to bootstrap quickly")
    else:
        ci = bounds
    return MeanInterval(n=n, mean=round(mean, digits), se=round(se, digits),
                        ci95=(round(ci[0], digits) + 0.0, round(ci[1], digits) + 0.0), note=note)


def bootstrap_mean_ci(values: np.ndarray, *, n_boot: int = BOOTSTRAP_RESAMPLES,
                      seed: int = BOOTSTRAP_SEED, level: float = 0.95,
                      max_work: int | None = None) -> tuple[float, float] | None:
    """The percentile bootstrap interval of the mean of ``values`` (not rounded), or None
    under 2 values or when resampling would take more than ``max_work`` draws.

    Example:
        >>> lo, hi = bootstrap_mean_ci(np.array([0.9, 1.1, 1.0, 1.2, 0.8]), seed=1)
        >>> 0.8 < lo < 1.0 < hi < 1.2
        True
    """
    means = bootstrap_means(values, n_boot=n_boot, seed=seed, max_work=max_work)
    if means is None:
        return None
    tail = (1.0 - level) / 2 * 100
    lo, hi = np.percentile(means, [tail, 100 - tail])
    return float(lo), float(hi)


def bootstrap_means(values: np.ndarray, *, n_boot: int = BOOTSTRAP_RESAMPLES,
                    seed: int = BOOTSTRAP_SEED,
                    max_work: int | None = None) -> np.ndarray | None:
    """The means of ``n_boot`` resamples (rows drawn with replacement) of ``values``; None
    under 2 values or above ``max_work`` units of work (default: a few seconds' worth).

    Few distinct values (ratings, yes/no, rounded scores) are resampled as multinomial counts
    over the distinct values, which has the same distribution as drawing rows and costs the
    number of distinct values, not of rows, per resample; else row indices are drawn in
    blocks.

    Example:
        >>> bootstrap_means(np.array([0.0, 1.0]), n_boot=4, seed=0).shape
        (4,)
    """
    n = len(values)
    if n < 2:
        return None
    max_work = _MAX_WORK if max_work is None else max_work
    rng = np.random.default_rng(seed)
    distinct, counts = np.unique(values, return_counts=True)
    if len(distinct) * _GROUP_COST < n:
        if len(distinct) * _GROUP_COST * n_boot > max_work:
            return None
        draws = rng.multinomial(n, counts / n, size=n_boot)
        return np.asarray(draws @ distinct / n, dtype=float)
    if n * n_boot > max_work:
        return None
    block = max(1, _BLOCK_CELLS // n)
    means = np.empty(n_boot)
    for start in range(0, n_boot, block):
        k = min(block, n_boot - start)
        means[start:start + k] = values[rng.integers(0, n, size=(k, n))].mean(axis=1)
    return means


def _normal_quantile(p: float) -> float:
    """The standard normal quantile, by bisection on :func:`math.erf` (no scipy at import).

    Example:
        >>> round(_normal_quantile(0.975), 4)
        1.96
    """
    lo, hi = -10.0, 10.0
    for _ in range(80):
        mid = (lo + hi) / 2
        if 0.5 * (1 + math.erf(mid / math.sqrt(2))) < p:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


def with_interval(aggregate: dict[str, object], values: Iterable[float]) -> dict[str, object]:
    """A metric's aggregate with ``se`` and ``ci95`` (and ``ci_note`` where needed) of its
    mean next to ``mean``, computed from the scored ``values`` the mean was taken over; an
    aggregate without a ``mean`` is returned as it is.

    Example:
        >>> with_interval({"mean": 0.5, "scored": 2, "unscored": 0}, [0.0, 1.0])
        {'mean': 0.5, 'se': 0.5, 'ci95': [0.0, 1.0], 'scored': 2, 'unscored': 0}
        >>> with_interval({"mean": None, "scored": 0, "unscored": 1}, [])
        {'mean': None, 'se': None, 'ci95': None, 'scored': 0, 'unscored': 1}
    """
    if "mean" not in aggregate:
        return aggregate
    interval = mean_interval(values)
    added = interval.fields() if interval is not None else {"se": None, "ci95": None}
    rest = {k: v for k, v in aggregate.items() if k != "mean" and k not in added}
    return {"mean": aggregate["mean"], **added, **rest}
