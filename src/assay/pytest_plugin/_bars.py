"""The run bars of one evaluation (``fail_under``, ``fail_over``) as :class:`BarOutcome`, with the
rows that weigh most against each bar.

A small adapter over :func:`assay.gate.check_summary`, which decides the bars exactly as
``assay run --fail-under/--fail-over`` does (a missing metric or nothing scored fails); it is
asked one bar at a time, so each bar gets its own outcome, passed or failed.

Example:
    >>> summary = {"rows": 2, "metrics": {"f1_score": {"mean": 0.5, "scored": 2}}}
    >>> records = [{"id": "q1", "f1_score": {"value": 1.0}},
    ...            {"id": "q2", "f1_score": {"value": 0.0, "reason": "wrong city"}}]
    >>> [o] = run_outcomes(summary, records, fail_under={"f1_score": 0.8}, fail_over={})
    >>> o.verdict, o.value, o.message
    ('fail', 0.5, 'f1_score mean 0.5 is under the bar 0.8')
    >>> o.worst[0]
    RowNote(id='q2', shown='0', reason='wrong city')
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..gate import BarKind, BarOutcome, RowNote, check_summary

__all__ = ["run_outcomes", "worst_rows"]

_DEFECT = "_defect_rate"
_UNSCORED = "_unscored_rate"
#: Rows listed per bar (as agreed for every CI output).
WORST = 3


def run_outcomes(summary: Mapping[str, Any], records: Sequence[Mapping[str, Any]], *,
                 fail_under: Mapping[str, float], fail_over: Mapping[str, float],
                 ) -> list[BarOutcome]:
    """One outcome per bar, ``fail_under`` first, each ``pass`` or ``fail`` (a run's bar is
    never inconclusive); a bar's ``worst`` are the rows that weigh most against it."""
    outcomes = []
    for kind, bars in (("fail_under", fail_under), ("fail_over", fail_over)):
        for name, bar in bars.items():
            one = {name: bar}
            failed = check_summary(summary, fail_under=one if kind == "fail_under" else {},
                                   fail_over=one if kind == "fail_over" else {})
            value = _value(summary, name)
            word = "at or over" if kind == "fail_under" else "at or under"
            message = failed[0] if failed else f"{_label(name)} {_num(value)} is {word} the bar {bar}"
            metric = _metric_of(name)
            row_lower = not _higher_is_better(metric)  # a severity: its worst rows are highest
            outcomes.append(BarOutcome(
                name=name, kind=_kind(kind), bar=float(bar),
                verdict="fail" if failed else "pass", value=value, message=message,
                worst=worst_rows(records, metric, unscored=name.endswith(_UNSCORED),
                                 lower_is_better=row_lower),
                lower_is_better=row_lower or name.endswith((_DEFECT, _UNSCORED))))
    return outcomes


def worst_rows(records: Sequence[Mapping[str, Any]], metric: str, *, unscored: bool = False,
               lower_is_better: bool = False) -> tuple[RowNote, ...]:
    """The :data:`WORST` rows that weigh most against a bar on ``metric``: the lowest values
    (highest when ``lower_is_better``) with the judge's reasons, then rows left unscored with
    why; with ``unscored`` (an ``_unscored_rate`` bar), the unscored rows only.

    Example:
        >>> records = [{"id": "a", "m": {"value": 3}}, {"id": "b", "m": {"value": None,
        ...            "error": "judge call failed: HTTP 500"}}, {"id": "c", "m": {"value": 1}}]
        >>> [(n.id, n.shown, n.reason) for n in worst_rows(records, "m")]
        [('c', '1', None), ('a', '3', None), ('b', 'unscored', 'judge call failed: HTTP 500')]
        >>> [n.id for n in worst_rows(records, "m", unscored=True)]
        ['b']
    """
    scored, left = [], []
    for record in records:
        result = record.get(metric)
        if not isinstance(result, Mapping):
            continue
        value = result.get("value")
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            scored.append((float(value), record, result))
        else:
            left.append(RowNote(id=str(record.get("id")), shown="unscored",
                                reason=result.get("error") or result.get("reason")))
    if unscored:
        return tuple(left[:WORST])
    scored.sort(key=lambda item: -item[0] if lower_is_better else item[0])
    notes = [RowNote(id=str(record.get("id")), shown=f"{value:.4g}", reason=result.get("reason"))
             for value, record, result in scored[:WORST]]
    return tuple([*notes, *left][:WORST])


def _kind(kind: str) -> BarKind:
    return "fail_under" if kind == "fail_under" else "fail_over"


def _metric_of(name: str) -> str:
    """The metric a bar name measures (``violence_defect_rate`` -> ``violence``)."""
    for suffix in (_DEFECT, _UNSCORED):
        if name.endswith(suffix):
            return name[:-len(suffix)]
    return name


def _label(name: str) -> str:
    for suffix, what in ((_DEFECT, "defect rate"), (_UNSCORED, "unscored rate")):
        if name.endswith(suffix):
            return f"{name[:-len(suffix)]} {what}"
    return f"{name} mean"


def _value(summary: Mapping[str, Any], name: str) -> float | None:
    """The figure a bar is decided on, as :func:`check_summary` reads it (None: none)."""
    metrics = summary.get("metrics") or {}
    metric = metrics.get(_metric_of(name))
    if not isinstance(metric, Mapping):
        return None
    if name in metrics:
        value = metric.get("mean")
    elif name.endswith(_DEFECT):
        value = (metric.get("defects") or {}).get("defect_rate")
    else:
        rows = summary.get("rows") or 0
        not_reached = rows - summary.get("rows_done", rows)
        value = (metric.get("unscored", 0) + max(0, not_reached)) / rows if rows else None
    return float(value) if isinstance(value, (int, float)) else None


def _higher_is_better(metric: str) -> bool:
    from ..metrics import REGISTRY
    known = REGISTRY.get(metric)
    return bool(getattr(known, "higher_is_better", True))


def _num(x: float | None) -> str:
    """Up to 4 decimals, trailing zeros cut, at least one (as the gate's messages): 3.0, 3.62,
    0.0417; ``?`` for none."""
    if x is None:
        return "?"
    text = f"{x:.4f}".rstrip("0")
    return text + "0" if text.endswith(".") else text
