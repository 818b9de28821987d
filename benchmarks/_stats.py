"""Figures the quality benchmarks share, with seeded bootstrap 95% intervals.

Example:
    >>> auc, low, high = auroc_ci([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8])
    >>> auc, low <= auc <= high
    (0.75, True)
    >>> rho, low, high = bootstrap_ci(spearman, [1, 2, 3, 4, 5], [1, 3, 2, 5, 4])
    >>> round(rho, 3), low < rho < high
    (0.8, True)
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from scipy.stats import rankdata

#: A figure over aligned arrays: a float, or None where it is undefined (one class only, ...).
Statistic = Callable[..., float | None]


def auroc_ci(labels: list[int], scores: list[float], seed: int = 0
             ) -> tuple[float | None, float | None, float | None]:
    """AUROC and its 95% bootstrap interval (2000 resamples of the rows, seeded):
    :func:`bootstrap_ci` of :func:`auroc`."""
    return bootstrap_ci(auroc, labels, scores, seed=seed)


def auroc(labels: Sequence[int], scores: Sequence[float]) -> float | None:
    """Area under the ROC curve (ties count half); None without both labels.

    >>> auroc([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8]), auroc([1, 1], [0.2, 0.3])
    (0.75, None)
    """
    y = np.asarray(labels)
    pos = int((y == 1).sum())
    neg = len(y) - pos
    if not pos or not neg:
        return None
    ranks = rankdata(np.asarray(scores, dtype=float))
    return float((ranks[y == 1].sum() - pos * (pos + 1) / 2) / (pos * neg))


def spearman(gold: Sequence[float], scores: Sequence[float]) -> float | None:
    """Spearman's rho (average ranks for ties); None when either side is constant.

    >>> spearman([1, 2, 3], [10, 30, 20]), spearman([1, 1, 1], [1, 2, 3])
    (0.5, None)
    """
    a, b = rankdata(np.asarray(gold, dtype=float)), rankdata(np.asarray(scores, dtype=float))
    if len(a) < 2 or a.std() == 0 or b.std() == 0:
        return None
    return float(np.corrcoef(a, b)[0, 1])


def spearman_by_group(gold: Sequence[float], scores: Sequence[float],
                      groups: Sequence[str]) -> list[float]:
    """Spearman's rho within each group (e.g. the summaries of one article) that has at least
    3 rows and is not constant on either side: G-Eval's summary-level figure is their mean.

    >>> spearman_by_group([1, 2, 3, 1, 2, 3, 5], [1, 2, 3, 3, 2, 1, 4], list("aaabbbc"))
    [1.0, -1.0]
    """
    index: dict[str, list[int]] = {}
    for i, g in enumerate(groups):
        index.setdefault(g, []).append(i)
    out = []
    for rows in index.values():
        if len(rows) >= 3:
            rho = spearman([gold[i] for i in rows], [scores[i] for i in rows])
            if rho is not None:
                out.append(rho)
    return out


def wilson(k: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """The 95% Wilson score interval of ``k`` successes in ``n`` trials (NaN when n is 0).

    >>> [round(x, 3) for x in wilson(40, 50)]
    [0.67, 0.888]
    """
    if n == 0:
        return (math.nan, math.nan)
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return (max(0.0, centre - half), min(1.0, centre + half))  # in [0, 1] despite rounding


def share(k: int, n: int, digits: int = 3) -> str:
    """``k/n = rate [low, high]`` with the 95% Wilson interval; ``-`` when ``n`` is 0.

    >>> share(40, 50), share(0, 80, digits=2), share(0, 0)
    ('40/50 = 0.800 [0.670, 0.888]', '0/80 = 0.00 [0.00, 0.05]', '-')
    """
    if not n:
        return "-"
    low, high = wilson(k, n)
    return f"{k}/{n} = {k / n:.{digits}f} [{low:.{digits}f}, {high:.{digits}f}]"


def mean(values: Sequence[float]) -> float | None:
    """The mean; None when empty.

    >>> mean([1.0, 0.5]), mean([])
    (0.75, None)
    """
    return float(np.mean(values)) if len(values) else None


def accuracy(gold: Sequence[Any], predicted: Sequence[Any]) -> float | None:
    """Share of exact matches; None when empty.

    >>> accuracy(["A", "B", "TIE"], ["A", "A", "TIE"])
    0.6666666666666666
    """
    return sum(g == p for g, p in zip(gold, predicted)) / len(gold) if len(gold) else None


def balanced_accuracy(gold: Sequence[Any], predicted: Sequence[Any]) -> float | None:
    """Mean recall over the gold classes; None when empty.

    >>> balanced_accuracy([1, 1, 1, 0], [1, 1, 0, 0])
    0.8333333333333333
    """
    recalls = []
    for label in sorted(set(gold), key=str):
        idx = [i for i, g in enumerate(gold) if g == label]
        recalls.append(sum(predicted[i] == label for i in idx) / len(idx))
    return sum(recalls) / len(recalls) if recalls else None


def bootstrap_ci(statistic: Statistic, *arrays: Sequence[Any],
                 groups: Sequence[str] | None = None, resamples: int = 2000, seed: int = 0,
                 level: float = 0.95) -> tuple[float | None, float | None, float | None]:
    """``statistic(*arrays)`` and its percentile bootstrap interval (seeded).

    Each resample draws rows with replacement; with ``groups``, it draws whole groups instead
    (a cluster bootstrap: rows that share a source article or question move together, so
    their likeness does not narrow the interval). Resamples where the figure is undefined
    (None or NaN, e.g. one class only) are dropped; the bounds are None when fewer than
    half of them are left.

    >>> gold, pred = [1, 0, 1, 1, 0, 1], [1, 0, 0, 1, 0, 1]
    >>> point, low, high = bootstrap_ci(accuracy, gold, pred)
    >>> round(point, 3), low <= point <= high, high <= 1.0
    (0.833, True, True)
    >>> bootstrap_ci(accuracy, gold, pred, groups=list("aabbcc"))[0] == point
    True
    >>> bootstrap_ci(auroc, [], [])
    (None, None, None)
    """
    columns = [np.asarray(a, dtype=object) for a in arrays]
    n = len(columns[0]) if columns else 0
    point = _defined(statistic(*arrays)) if n else None
    if point is None:
        return None, None, None
    rng = np.random.default_rng(seed)
    if groups is None:
        members = [np.array([i]) for i in range(n)]
    else:
        index: dict[str, list[int]] = {}
        for i, g in enumerate(groups):
            index.setdefault(g, []).append(i)
        members = [np.array(v) for v in index.values()]
    draws = []
    for _ in range(resamples):
        pick = rng.integers(0, len(members), len(members))
        rows = np.concatenate([members[k] for k in pick])
        value = _defined(statistic(*(list(c[rows]) for c in columns)))
        if value is not None:
            draws.append(value)
    if len(draws) < resamples / 2:
        return point, None, None
    tail = (1 - level) / 2 * 100
    return point, float(np.percentile(draws, tail)), float(np.percentile(draws, 100 - tail))


def _defined(value: float | None) -> float | None:
    return None if value is None or math.isnan(value) else float(value)
