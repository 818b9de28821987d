"""What a comparison keeps of its paired rows for a verdict: intervals of a paired
difference (Student's t for a mean, Newcombe's square-and-add for two rates over the same
rows), the rows that moved most each way, the repeats' within-row spread, and each severity
category's paired defect counts.

Example:
    >>> paired_t_interval(n=4, mean=-0.5, sd=0.5, level=0.95)
    (-1.2956, 0.2956)
    >>> newcombe_paired_interval(both=59, only_a=6, only_b=16, neither=80)
    (0.0046, 0.1186)
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from scipy import stats

from ..metrics.safety import is_defect, refusal_of
from ..records import wilson_interval

__all__ = ["defect_pairs", "moved_rows", "newcombe_paired_interval", "paired_t_interval",
           "repeat_spread"]

#: Rows kept each way (``fell``, ``rose``, ``new_defects``): what a verdict shows as its worst.
MOVED_ROWS = 3


def paired_t_interval(*, n: int, mean: float, sd: float, level: float = 0.95,
                      digits: int = 4) -> tuple[float, float] | None:
    """Student's t interval of the mean of ``n`` paired differences (None under 2).

    Example:
        >>> paired_t_interval(n=1, mean=1.0, sd=0.0) is None
        True
        >>> paired_t_interval(n=30, mean=0.0, sd=0.0)
        (0.0, 0.0)
    """
    if n < 2:
        return None
    half = float(stats.t.ppf(0.5 + level / 2, n - 1)) * sd / math.sqrt(n)
    return round(mean - half, digits) + 0.0, round(mean + half, digits) + 0.0


def newcombe_paired_interval(*, both: int, only_a: int, only_b: int, neither: int,
                             level: float = 0.95,
                             digits: int = 4) -> tuple[float, float] | None:
    """Interval of ``rate_b - rate_a`` for two rates over the same rows: Newcombe's
    square-and-add of the two Wilson intervals with the continuity-corrected correlation
    (Newcombe 1998, Statistics in Medicine 17:2635, method 10; Fagerland et al., Statistical
    Analysis of Contingency Tables, ch. 8). None without rows.

    ``both``: rows that are a hit (a defect) in both runs; ``only_a`` / ``only_b``: in one
    run only; ``neither``: in none.

    Example:
        >>> newcombe_paired_interval(both=0, only_a=0, only_b=0, neither=0) is None
        True
        >>> newcombe_paired_interval(both=0, only_a=0, only_b=0, neither=40)
        (-0.0876, 0.0876)
    """
    n = both + only_a + only_b + neither
    if n == 0:
        return None
    z = float(stats.norm.ppf(0.5 + level / 2))
    k_a, k_b = both + only_a, both + only_b
    p_a, p_b = k_a / n, k_b / n
    l_a, u_a = wilson_interval(k_a, n, z=z, digits=12) or (0.0, 1.0)
    l_b, u_b = wilson_interval(k_b, n, z=z, digits=12) or (0.0, 1.0)
    margins = k_a * (n - k_a) * k_b * (n - k_b)
    phi = 0.0
    if margins:
        cross = both * neither - only_a * only_b
        corrected = cross - n / 2 if cross > n / 2 else (cross if cross < 0 else 0.0)
        phi = corrected / math.sqrt(margins)
    diff = p_b - p_a
    low = diff - math.sqrt(max(0.0, (p_b - l_b) ** 2 + (u_a - p_a) ** 2
                               - 2 * phi * (p_b - l_b) * (u_a - p_a)))
    high = diff + math.sqrt(max(0.0, (u_b - p_b) ** 2 + (p_a - l_a) ** 2
                                - 2 * phi * (u_b - p_b) * (p_a - l_a)))
    return round(max(-1.0, low), digits) + 0.0, round(min(1.0, high), digits) + 0.0


def moved_rows(pairs: Sequence[tuple[str, float, float]], records_a: Mapping[str, Any],
               records_b: Mapping[str, Any], name: str) -> dict[str, list[dict[str, Any]]]:
    """``{"fell": [...], "rose": [...]}``: the rows whose value fell (rose) most from run
    ``a`` to run ``b``, at most :data:`MOVED_ROWS` each, as ``{"id", "a", "b",
    "reason_a", "reason_b"}``.

    Example:
        >>> moved = moved_rows([("q1", 4.0, 2.0), ("q2", 3.0, 3.0)], {}, {}, "g")
        >>> moved["fell"], moved["rose"]
        ([{'id': 'q1', 'a': 4.0, 'b': 2.0, 'reason_a': None, 'reason_b': None}], [])
    """
    def row(i: str, va: float, vb: float) -> dict[str, Any]:
        return {"id": i, "a": va, "b": vb, "reason_a": _reason(records_a.get(i), name),
                "reason_b": _reason(records_b.get(i), name)}
    order = sorted(pairs, key=lambda p: p[2] - p[1])  # stable: ties keep the rows' order
    fell = [row(*p) for p in order if p[2] < p[1]][:MOVED_ROWS]
    rose = [row(*p) for p in reversed(order) if p[2] > p[1]][:MOVED_ROWS]
    return {"fell": fell, "rose": rose}


def repeat_spread(records: Sequence[Mapping[str, Any]], name: str) -> tuple[int, float | None]:
    """``(repeats, within_row_sd)`` of a metric scored with ``--repeat K``: the most repeats
    a row has (1 without repeats) and the pooled SD of one judge answer around its row's
    mean (None without a row of 2 scored repeats).

    Example:
        >>> repeat_spread([{"g": {"value": 3.0, "repeats": [2.0, 4.0]}},
        ...                {"g": {"value": 5.0, "repeats": [5.0, 5.0]}}], "g")
        (2, 1.0)
        >>> repeat_spread([{"g": {"value": 3.0}}], "g")
        (1, None)
    """
    most, squares, freedom = 1, 0.0, 0
    for record in records:
        result = record.get(name)
        repeats = result.get("repeats") if isinstance(result, Mapping) else None
        if not isinstance(repeats, list):
            continue
        most = max(most, len(repeats))
        scored = [float(v) for v in repeats if isinstance(v, (int, float))]
        if len(scored) >= 2:
            mean = sum(scored) / len(scored)
            squares += sum((v - mean) ** 2 for v in scored)
            freedom += len(scored) - 1
    return most, (round(math.sqrt(squares / freedom), 6) if freedom else None)


def defect_pairs(records_a: Mapping[str, Mapping[str, Any]],
                 records_b: Mapping[str, Mapping[str, Any]], shared: Sequence[str],
                 category: str, threshold: str) -> dict[str, Any]:
    """A severity category's defects over the rows scored in both runs, at ``threshold``
    (a refusal is never a defect, as in the run's own defect rate): ``{"rows", "both",
    "only_a", "only_b", "new_defects"}``, ``new_defects`` being up to :data:`MOVED_ROWS`
    rows that are a defect in run ``b`` only, worst first.

    Example:
        >>> a = {"1": {"violence": {"value": 0.0}}, "2": {"violence": {"value": 5.0}}}
        >>> b = {"1": {"violence": {"value": 6.0, "reason": "threat"}},
        ...      "2": {"violence": {"value": 5.0}}}
        >>> p = defect_pairs(a, b, ["1", "2"], "violence", "medium")
        >>> p["rows"], p["both"], p["only_a"], p["only_b"], p["new_defects"][0]["b"]
        (2, 1, 0, 1, 6.0)
    """
    counts = {"rows": 0, "both": 0, "only_a": 0, "only_b": 0}
    new: list[dict[str, Any]] = []
    for i in shared:
        va, vb = _severity(records_a[i], category), _severity(records_b[i], category)
        if va is None or vb is None:
            continue
        in_a = is_defect(va, threshold) and refusal_of(records_a[i]) is not True
        in_b = is_defect(vb, threshold) and refusal_of(records_b[i]) is not True
        counts["rows"] += 1
        if in_a and in_b:
            counts["both"] += 1
        elif in_a or in_b:
            counts["only_a" if in_a else "only_b"] += 1
        if in_b and not in_a:
            new.append({"id": i, "a": va, "b": vb, "reason_a": _reason(records_a[i], category),
                        "reason_b": _reason(records_b[i], category)})
    new.sort(key=lambda r: r["a"] - r["b"])
    return {**counts, "new_defects": new[:MOVED_ROWS]}


def _severity(record: Mapping[str, Any], category: str) -> float | None:
    """A row's 0-7 severity (None: unscored, or not a severity)."""
    result = record.get(category)
    value = result.get("value") if isinstance(result, Mapping) else None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value) if 0 <= value <= 7 else None


def _reason(record: Mapping[str, Any] | None, name: str) -> str | None:
    result = record.get(name) if record is not None else None
    return result.get("reason") if isinstance(result, Mapping) else None
