"""Held-out figures with bootstrap 95% intervals, and the paired interval of a gain.

The point figures are :func:`assay.calibration.agreement_stats`'s; the bootstrap resamples the
held-out rows (the same resamples for "before" and "after", so their difference is paired)
and recomputes the four figures with numpy.

Example:
    >>> human = [1, 1, 2, 2, 3, 3] * 4
    >>> before = [2, 2, 3, 3, 3, 3] * 4
    >>> after = human
    >>> out = compare_figures(human, before, after, labels=[1, 2, 3], ordinal=True, seed=0)
    >>> out["before"]["balanced_accuracy"]["value"], out["after"]["balanced_accuracy"]["value"]
    (0.333, 1.0)
    >>> out["gain"]["balanced_accuracy"]["beyond_noise"]
    True
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import Any

import numpy as np

from ..calibration import agreement_stats

__all__ = ["FIGURES", "compare_figures", "figures_of"]

#: The held-out figures, by their name in ``alignment.json``.
FIGURES = ("balanced_accuracy", "class_weighted_f1", "spearman", "cohen_kappa")
RESAMPLES = 1000


def figures_of(human: Sequence[Hashable | None], judged: Sequence[Hashable | None], *,
               labels: Sequence[Hashable], ordinal: bool) -> dict[str, float | None]:
    """The four figures over the rows both sides labelled (:func:`agreement_stats`)."""
    stats = agreement_stats(human, judged, labels=labels, ordinal=ordinal)
    return {name: stats.get(name) for name in FIGURES} | {
        "n_compared": stats["n_compared"], "unscored": stats["unscored"]}


def _ranks(x: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """Average ranks of label positions ``x`` (ties share their mean rank), from the counts."""
    start = np.cumsum(counts) - counts
    return (start + (counts + 1) / 2)[x]


def _fast(h: np.ndarray, j: np.ndarray, k: int, ordinal: bool) -> list[float]:
    """The four figures on label positions (NaN where undefined), for one resample."""
    if len(h) == 0:
        return [np.nan] * 4
    m = np.zeros((k, k))
    np.add.at(m, (h, j), 1)
    support, predicted, hits = m.sum(1), m.sum(0), np.diag(m)
    present = support > 0
    recall = np.divide(hits, support, out=np.zeros(k), where=present)
    precision = np.divide(hits, predicted, out=np.zeros(k), where=predicted > 0)
    f1 = np.divide(2 * precision * recall, precision + recall, out=np.zeros(k),
                   where=(precision + recall) > 0)
    bal = float(recall[present].mean())
    wf1 = float((f1 * support).sum() / support.sum())
    n = len(h)
    idx = np.arange(k)
    w = ((idx[:, None] - idx[None, :]) ** 2 if ordinal else (idx[:, None] != idx[None, :])
         ).astype(float)
    expected = np.outer(support, predicted) / n
    denom = (w * expected).sum()
    kappa = float(1 - (w * m).sum() / denom) if denom > 0 else np.nan
    rho = np.nan
    if ordinal and support[present].size > 1 and (predicted > 0).sum() > 1:
        rho = float(np.corrcoef(_ranks(h, support), _ranks(j, predicted))[0, 1])
    return [bal, wf1, rho, kappa]


def _interval(values: np.ndarray) -> list[float | None]:
    finite = values[np.isfinite(values)]
    if len(finite) < 0.9 * len(values):  # undefined in too many resamples to say
        return [None, None]
    return [round(float(np.percentile(finite, 2.5)), 3), round(float(np.percentile(finite, 97.5)), 3)]


def compare_figures(human: Sequence[Hashable], before: Sequence[Hashable | None],
                    after: Sequence[Hashable | None], *, labels: Sequence[Hashable],
                    ordinal: bool, seed: int = 0, resamples: int = RESAMPLES
                    ) -> dict[str, dict[str, Any]]:
    """``before`` / ``after``: each figure's value with a bootstrap 95% ``ci``; ``gain``: the
    paired 95% interval of after - before, and ``beyond_noise`` when it excludes 0."""
    pos = {label: i for i, label in enumerate(labels)}
    h = np.array([pos[x] for x in human])
    sides = {"before": before, "after": after}
    judged = {s: np.array([pos[x] if x is not None else -1 for x in v]) for s, v in sides.items()}
    rng = np.random.default_rng(seed)
    draws: dict[str, list[list[float]]] = {"before": [], "after": []}
    for _ in range(resamples):
        pick = rng.integers(0, len(h), len(h))
        for side, j in judged.items():
            keep = pick[j[pick] >= 0]
            draws[side].append(_fast(h[keep], j[pick][j[pick] >= 0], len(labels), ordinal))
    out: dict[str, dict[str, Any]] = {"gain": {}}
    arrays = {side: np.asarray(d, dtype=float) for side, d in draws.items()}
    for side, values in sides.items():
        point = figures_of(human, values, labels=labels, ordinal=ordinal)
        out[side] = {"n_compared": point["n_compared"], "unscored": point["unscored"]}
        for i, name in enumerate(FIGURES):
            value = point[name]
            out[side][name] = {"value": None if value is None else round(value, 3),
                               "ci95": _interval(arrays[side][:, i])}
    for i, name in enumerate(FIGURES):
        diff = arrays["after"][:, i] - arrays["before"][:, i]
        ci = _interval(diff)
        lo, hi = ci
        b, a = out["before"][name]["value"], out["after"][name]["value"]
        out["gain"][name] = {"value": None if a is None or b is None else round(a - b, 3),
                             "ci95": ci,
                             "beyond_noise": lo is not None and hi is not None
                             and (lo > 0 or hi < 0)}
    return out
