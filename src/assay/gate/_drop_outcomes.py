"""``compare --max-drop`` bars as :class:`BarOutcome`, decided on the two means as
:func:`check_comparison` decides them (pass or fail).

An adapter for the CI outputs until the verdict on the paired difference
(:func:`assay.compare.decide_drops`) takes its place: the outcomes carry the paired difference
and its interval from the comparison, and the rows that got worse most.

Example:
    >>> comparison = {"metrics": {"groundedness": {"mean_a": 4.1, "mean_b": 3.75,
    ...                           "diff": -0.35, "ci95": [-0.6, -0.1]}},
    ...               "changed": [{"id": "q7", "metric": "groundedness", "a": 5.0, "b": 2.0,
    ...                            "delta": -3.0, "reason_a": None, "reason_b": "unsupported"}]}
    >>> [o] = mean_drop_outcomes(comparison, max_drop={"groundedness": 0.2})
    >>> o.verdict, o.value, o.interval, o.message
    ('fail', -0.35, (-0.6, -0.1), 'groundedness dropped 0.35 (4.10 -> 3.75), more than 0.2')
    >>> o.worst
    (RowNote(id='q7', shown='5 -> 2', reason='unsupported'),)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ._gate import _lower_is_better, _num, check_comparison
from ._outcome import BarOutcome, RowNote
from ._summary_outcomes import WORST_ROWS

__all__ = ["mean_drop_outcomes"]


def mean_drop_outcomes(comparison: Mapping[str, Any], *, max_drop: Mapping[str, float],
                       lower_is_better: Sequence[str] | None = None) -> list[BarOutcome]:
    """One ``max_drop`` :class:`BarOutcome` per bar of ``max_drop``, in its order.

    ``value`` is the paired difference (candidate - baseline; the difference of the means
    when there is none), ``interval`` its 95% interval; a failed bar names up to
    :data:`WORST_ROWS` of the comparison's most-changed rows that got worse on its metric.

    Example:
        >>> [o] = mean_drop_outcomes({"metrics": {}}, max_drop={"fluency": 0.1})
        >>> o.verdict, o.value, o.message.split(".")[0]
        ('fail', None, 'fluency: not a metric of this comparison, so the bar 0')
    """
    metrics = comparison.get("metrics") or {}
    lower = set(_lower_is_better() if lower_is_better is None else lower_is_better)
    outcomes = []
    for name, limit in max_drop.items():
        failures = check_comparison(comparison, max_drop={name: limit},
                                    lower_is_better=sorted(lower))
        found = metrics.get(name)
        m: Mapping[str, Any] = found if isinstance(found, Mapping) else {}
        a, b = m.get("mean_a"), m.get("mean_b")
        value = m.get("diff")
        if value is None and a is not None and b is not None:
            value = round(b - a, 9)
        ci = m.get("ci95")
        interval = (float(ci[0]), float(ci[1])) if isinstance(ci, (list, tuple)) else None
        worse = "rose" if name in lower else "dropped"
        message = failures[0] if failures else (
            f"{name} {worse} no more than {limit} ({_num(a, 2)} -> {_num(b, 2)})"
            if a is not None and b is not None else f"{name}: within the bar {limit}")
        outcomes.append(BarOutcome(
            name=name, kind="max_drop", bar=limit, verdict="fail" if failures else "pass",
            value=value, interval=interval, message=message, lower_is_better=name in lower,
            worst=_worst_changed(comparison, name, name in lower) if failures else ()))
    return outcomes


def _worst_changed(comparison: Mapping[str, Any], name: str, lower: bool) -> tuple[RowNote, ...]:
    """The comparison's most-changed rows of ``name`` that got worse, the worst first."""
    rows = [r for r in comparison.get("changed") or []
            if r.get("metric") == name and (r.get("delta") or 0) * (-1 if lower else 1) < 0]
    rows.sort(key=lambda r: -abs(r.get("delta") or 0))
    return tuple(RowNote(id=str(r.get("id")), shown=f"{r['a']:g} -> {r['b']:g}",
                         reason=r.get("reason_b") or None) for r in rows[:WORST_ROWS])
