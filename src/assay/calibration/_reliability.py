"""The reliability curve of a judge: its score binned, and the human mean in each bin.

A judge is calibrated when, over the rows it gave a score near ``x``, people's mean rating
is ``x`` too: the points then lie on the identity line. The judge's score is binned one of
two ways (:func:`reliability_bins`): on a scale of levels (ratings 1-5, a custom scale's
labels by position) one bin per level; on 0-1 (a pairwise judge's probabilities) ten equal
bins, each with both edges, the last closed. Empty bins are left out, and each bin keeps its
count, so a point drawn from two rows is not read as firmly as one drawn from two hundred.

Example:
    >>> [(b["label"], b["n"], b["human_mean"]) for b in reliability_bins(
    ...     [1, 1, 3, 5], [1, 2, 4, 5], levels=[1, 2, 3, 4, 5])]
    [('1', 2, 1.5), ('3', 1, 4.0), ('5', 1, 5.0)]
    >>> [b["label"] for b in reliability_bins([0.05, 0.95, 1.0], [0, 1, 1])]
    ['[0, 0.1)', '[0.9, 1]']
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

__all__ = ["PAIRWISE_VALUES", "reliability", "reliability_bins"]

#: A pairwise choice as a number, the metric's own value: candidate 1, tie 0.5, baseline 0.
PAIRWISE_VALUES = {"CANDIDATE": 1.0, "TIE": 0.5, "BASELINE": 0.0}
_BINS = 10  # equal bins on 0-1


def _edge(x: float) -> str:
    return f"{x:g}"


def reliability_bins(judge: Sequence[float | None], human: Sequence[float | None], *,
                     levels: Sequence[float] | None = None) -> list[dict[str, Any]]:
    """The judge's scores binned, with the human mean per bin; rows missing either side are
    left out.

    Args:
        judge: The judge's score of each row (``None``: unscored).
        human: The human value of each row (``None``: no label), on the judge's scale.
        levels: The scale's values (e.g. ``[1, 2, 3, 4, 5]``): one bin per level, a score
            going to the nearest level. Without it the scores lie in 0-1: ten equal bins
            ``[0, 0.1)``, ..., ``[0.9, 1]``.

    Returns:
        The non-empty bins in scale order, each ``{"label", "low", "high", "n", "judge_mean",
        "human_mean"}`` (``low == high`` for a level; means rounded to 4 decimals).

    Raises:
        ValueError: the sequences differ in length, or a 0-1 score is outside 0-1.

    Example:
        >>> reliability_bins([0.1, 0.15, None], [0, 1, 1])
        [{'label': '[0.1, 0.2)', 'low': 0.1, 'high': 0.2, 'n': 2, 'judge_mean': 0.125, 'human_mean': 0.5}]
    """
    if len(judge) != len(human):
        raise ValueError(f"judge and human must have one value per row; got {len(judge)} judge "
                         f"and {len(human)} human values.")
    grouped: dict[int, list[tuple[float, float]]] = {}
    for x, y in zip(judge, human):
        if x is None or y is None:
            continue
        if levels:
            at = min(range(len(levels)), key=lambda i: (abs(levels[i] - x), i))
        else:
            if not 0.0 <= x <= 1.0 or math.isnan(x):
                raise ValueError(f"Got the judge score {x!r}. A score without levels must lie "
                                 "in 0-1 (a probability).")
            at = min(math.floor(round(x * _BINS, 9)), _BINS - 1)
        grouped.setdefault(at, []).append((float(x), float(y)))
    bins: list[dict[str, Any]] = []
    for at in sorted(grouped):
        pairs = grouped[at]
        if levels:
            low = high = float(levels[at])
            label = _edge(low)
        else:
            low, high = at / _BINS, (at + 1) / _BINS
            label = f"[{_edge(low)}, {_edge(high)}{']' if at == _BINS - 1 else ')'}"
        bins.append({"label": label, "low": low, "high": high, "n": len(pairs),
                     "judge_mean": round(sum(p[0] for p in pairs) / len(pairs), 4),
                     "human_mean": round(sum(p[1] for p in pairs) / len(pairs), 4)})
    return bins


def _pairwise_score(cell: Mapping[str, Any]) -> float | None:
    """A pairwise judge's P(candidate) + 1/2 P(tie) when it gave probabilities, else its value."""
    details = cell.get("details") if isinstance(cell.get("details"), Mapping) else {}
    probs = (details or {}).get("probabilities")
    if isinstance(probs, Mapping) and all(
            isinstance(probs.get(k), (int, float)) for k in ("candidate", "tie")):
        return min(1.0, max(0.0, float(probs["candidate"]) + 0.5 * float(probs["tie"])))
    value = cell.get("value")
    return float(value) if isinstance(value, (int, float)) else None


def reliability(cells: Sequence[Mapping[str, Any] | None], human: Sequence[Any], *,
                labels: Sequence[Any], ordinal: bool, pairwise: bool) -> dict[str, Any] | None:
    """The reliability curve of one judge on one human scale, as ``calibration.json`` keeps it.

    Args:
        cells: Each row's stored result of the metric (``value``, ``details``), or ``None``.
        human: Each row's human label (``None`` where empty), one of ``labels``.
        labels: The human scale in order; ``ordinal`` whether its order means something.
        pairwise: The labels are BASELINE, CANDIDATE, TIE; the judge's score is then
            P(candidate) + 1/2 P(tie) when it gave probabilities, else its choice as a number.
            Otherwise the score is the probability-weighted one (``weighted``, on a numeric
            scale, when the judge gave token probabilities), else the value, binned to the
            nearest scale value.

    Returns:
        ``{"x", "y", "domain", "levels", "bins"}`` (axis names, the scale's ends, the levels or
        ``None`` for 0-1 bins, the non-empty bins); ``None`` for an unordered scale of more
        than two labels, where a mean means nothing.

    Example:
        >>> got = reliability([{"value": 4.0}, {"value": 4.0}, None], [3, 5, 2],
        ...                   labels=[1, 2, 3, 4, 5], ordinal=True, pairwise=False)
        >>> got["domain"], [(b["label"], b["n"], b["human_mean"]) for b in got["bins"]]
        ([1.0, 5.0], [('4', 2, 4.0)])
    """
    if pairwise:
        ys = [None if h is None else PAIRWISE_VALUES[str(h).upper()] for h in human]
        xs = [_pairwise_score(c) if c else None for c in cells]
        return {"x": "judge: P(candidate) + ½ P(tie), else its choice",
                "y": "human mean (candidate 1, tie ½, baseline 0)", "domain": [0.0, 1.0],
                "levels": None, "bins": reliability_bins(xs, ys)}
    if not ordinal and len(labels) > 2:
        return None
    numeric = all(isinstance(x, int) and not isinstance(x, bool) for x in labels)
    levels = [float(x) for x in labels] if numeric else [float(i) for i in range(len(labels))]
    ys = [None if h is None else float(h) if numeric else float(list(labels).index(h))
          for h in human]
    xs = [_point_score(c, numeric) if c else None for c in cells]
    weighted = numeric and any(c and _number(c.get("weighted")) is not None
                               and _number(c.get("value")) is not None for c in cells)
    what = (" (probability-weighted where the judge gave token probabilities)" if weighted
            else "" if numeric else " (label position: " + ", ".join(
                f"{i} {x}" for i, x in enumerate(labels)) + ")")
    return {"x": "judge score" + what, "y": "human mean", "domain": [levels[0], levels[-1]],
            "levels": levels, "bins": reliability_bins(xs, ys, levels=levels)}


def _number(x: Any) -> float | None:
    return float(x) if isinstance(x, (int, float)) and not isinstance(x, bool) else None


def _point_score(cell: Mapping[str, Any], numeric: bool) -> float | None:
    """A pointwise judge's score: its probability-weighted one on a numeric scale when it gave
    token probabilities, else its value; ``None`` when unscored."""
    value = _number(cell.get("value"))
    if value is None:
        return None
    weighted = _number(cell.get("weighted")) if numeric else None
    return value if weighted is None else weighted
