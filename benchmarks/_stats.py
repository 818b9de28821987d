"""Figures the quality benchmarks share.

Example:
    >>> auc, low, high = auroc_ci([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8])
    >>> auc, low <= auc <= high
    (0.75, True)
"""

from __future__ import annotations

import numpy as np
from sklearn.metrics import roc_auc_score


def auroc_ci(labels: list[int], scores: list[float], seed: int = 0) -> tuple[float, float, float]:
    """AUROC and its 95% bootstrap interval (2000 resamples of the rows, seeded)."""
    y, s = np.array(labels), np.array(scores)
    rng = np.random.default_rng(seed)
    draws = []
    for _ in range(2000):
        i = rng.integers(0, len(y), len(y))
        if len(set(y[i])) == 2:
            draws.append(roc_auc_score(y[i], s[i]))
    return float(roc_auc_score(y, s)), float(np.percentile(draws, 2.5)), float(
        np.percentile(draws, 97.5))
