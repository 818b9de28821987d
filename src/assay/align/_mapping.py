"""The judge-score → human-label map: isotonic regression fitted on train rows.

The judge's probability-weighted score (its rating when it gave no probabilities) is mapped
onto the human scale's label positions by scikit-learn's ``IsotonicRegression`` (monotone,
non-decreasing), then rounded to the nearest label; the result is a threshold table
(``{label: lowest judge score}``) that a metric file keeps under ``calibration``.

Example:
    >>> table = fit_thresholds([3.0, 3.2, 4.0, 4.1, 5.0, 4.9], [0, 0, 1, 1, 2, 2], [1, 2, 3])
    >>> table
    {1: 0.0, 2: 3.6, 3: 4.5}
    >>> [apply_thresholds(table, s) for s in (3.1, 4.0, 4.95)]
    [1, 2, 3]
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import Any

import numpy as np

__all__ = ["apply_thresholds", "crossval_labels", "fit_thresholds"]


def fit_thresholds(scores: Sequence[float], positions: Sequence[int],
                   labels: Sequence[Hashable]) -> dict[Any, float]:
    """``{label: lowest judge score that gets it}`` for the labels the fitted map reaches,
    in scale order; the first label's lowest score is 0 (it takes everything below).

    Thresholds sit halfway between neighbouring train scores where the rounded isotonic
    prediction changes, to two decimals.
    """
    from sklearn.isotonic import IsotonicRegression

    x = np.asarray(scores, dtype=float)
    y = np.asarray(positions, dtype=float)
    iso = IsotonicRegression(increasing=True, out_of_bounds="clip").fit(x, y)
    grid = np.unique(x)
    predicted = np.clip(np.rint(iso.predict(grid)), 0, len(labels) - 1).astype(int)
    table: dict[Any, float] = {labels[int(predicted[0])]: 0.0}
    for i in range(1, len(grid)):
        if predicted[i] != predicted[i - 1]:
            table[labels[int(predicted[i])]] = round(float(grid[i - 1] + grid[i]) / 2, 2)
    return table


def apply_thresholds(table: dict[Any, float], score: float) -> Any:
    """The label ``table`` gives a judge score (the last whose lowest score it reaches)."""
    items = list(table.items())
    label = items[0][0]
    for candidate, low in items[1:]:
        if score >= low:
            label = candidate
    return label


def crossval_labels(scores: Sequence[float | None], positions: Sequence[int],
                    labels: Sequence[Hashable], *, seed: int, folds: int = 5) -> list[Any]:
    """Each row's mapped label from a map fitted on the other folds (``None`` where the judge
    gave no score): an honest train figure for "judge + map" without touching held-out rows.
    """
    idx = [i for i, s in enumerate(scores) if s is not None]
    out: list[Any] = [None] * len(scores)
    if len(idx) < 2:
        return out
    rng = np.random.default_rng(seed)
    order = rng.permutation(idx)
    k = min(folds, len(order))
    for f in range(k):
        test = order[f::k]
        fit = [i for i in order if i not in set(test)]
        if not fit:
            continue
        table = fit_thresholds([scores[i] for i in fit],  # type: ignore[misc]
                               [positions[i] for i in fit], labels)
        for i in test:
            out[int(i)] = apply_thresholds(table, scores[int(i)])  # type: ignore[arg-type]
    return out
