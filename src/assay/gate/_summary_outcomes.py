"""A run's bars (``--fail-under``, ``--fail-over``) as :class:`BarOutcome`, decided exactly as
:func:`check_summary` decides them (pass or fail, never inconclusive), with the rows that
weigh most against each failed bar taken from the run's records.

Example:
    >>> summary = {"rows": 3, "metrics": {"groundedness": {"mean": 3.0, "scored": 3,
    ...                                                    "unscored": 0}}}
    >>> records = [{"id": "a", "groundedness": {"value": 5.0}},
    ...            {"id": "b", "groundedness": {"value": 1.0, "reason": "made up"}},
    ...            {"id": "c", "groundedness": {"value": 3.0}}]
    >>> [outcome] = summary_outcomes(summary, fail_under={"groundedness": 4.0}, fail_over={},
    ...                              records=records)
    >>> outcome.verdict, outcome.value, outcome.message
    ('fail', 3.0, 'groundedness mean 3.0 is under the bar 4.0')
    >>> [(row.id, row.shown, row.reason) for row in outcome.worst]
    [('b', '1', 'made up'), ('c', '3', None)]
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Iterable, Mapping
from dataclasses import replace
from typing import Any

from ..errors import AssayError
from ._gate import _measure, _num, check_summary
from ._outcome import BarKind, BarOutcome, RowNote

__all__ = ["WORST_ROWS", "summary_outcomes"]

#: How many rows a failed bar names (the ones that weigh most against it).
WORST_ROWS = 3

_DEFECT = "_defect_rate"
_UNSCORED = "_unscored_rate"


def summary_outcomes(summary: Mapping[str, Any], *, fail_under: Mapping[str, float],
                     fail_over: Mapping[str, float],
                     records: Iterable[Mapping[str, Any]] | None = None) -> list[BarOutcome]:
    """One :class:`BarOutcome` per bar, ``fail_under`` bars first, each ``pass`` or ``fail``
    as :func:`check_summary` decides it (a bar that cannot be checked fails).

    Args:
        summary: the run's summary (as in ``summary.json``).
        fail_under, fail_over: ``{bar name: limit}`` (see :func:`check_summary` for the names).
        records: the run's records (as in ``results.jsonl``), read once and only when a bar
            failed; each failed bar then names its :data:`WORST_ROWS` worst rows among those
            that weigh against it: the lowest scores under a floor, the highest over a ceiling,
            the most severe defects for a defect rate, the unscored rows with their error for
            an unscored rate; each with the judge's reason.

    Example:
        >>> summary = {"rows": 2, "metrics": {"violence": {"mean": 1.0, "scored": 2,
        ...            "unscored": 0, "defects": {"threshold": "medium", "defect_rate": 0.5}}}}
        >>> records = [{"id": "r1", "violence": {"value": 6.0, "reason": "graphic"}},
        ...            {"id": "r2", "violence": {"value": 0.0}}]
        >>> [o] = summary_outcomes(summary, fail_under={}, records=records,
        ...                        fail_over={"violence_defect_rate": 0.1})
        >>> o.kind, o.verdict, o.lower_is_better, o.worst[0]
        ('fail_over', 'fail', True, RowNote(id='r1', shown='6', reason='graphic'))
    """
    outcomes: list[BarOutcome] = []
    for kind, bars in (("fail_under", fail_under), ("fail_over", fail_over)):
        for name, limit in bars.items():
            one = {name: limit}
            failures = check_summary(summary, fail_under=one if kind == "fail_under" else {},
                                     fail_over=one if kind == "fail_over" else {})
            label, value, _ = _measure(summary, name)
            word = "at or over" if kind == "fail_under" else "at or under"
            shown = "-" if value is None else _num(value)
            message = failures[0] if failures else f"{label} {shown} is {word} the bar {limit}"
            outcomes.append(BarOutcome(
                name=name, kind=_kind(kind), bar=limit, verdict="fail" if failures else "pass",
                value=value, interval=_interval(summary, name), message=message,
                lower_is_better=kind == "fail_over"))
    if records is not None and any(not o.passed for o in outcomes):
        outcomes = _with_worst_rows(outcomes, summary, records)
    return outcomes


def _kind(kind: str) -> BarKind:
    return "fail_under" if kind == "fail_under" else "fail_over"


def _interval(summary: Mapping[str, Any], name: str) -> tuple[float, float] | None:
    """A metric mean's 95% interval from the summary (``ci95``), when the bar is on a mean."""
    ci = ((summary.get("metrics") or {}).get(name) or {}).get("ci95")
    if isinstance(ci, (list, tuple)) and len(ci) == 2 and all(
            isinstance(x, (int, float)) for x in ci):
        return float(ci[0]), float(ci[1])
    return None


def _against(summary: Mapping[str, Any], outcome: BarOutcome
             ) -> tuple[str, Callable[[float | None], bool]]:
    """``(metric, weighs)``: the records' metric a bar reads, and which of its rows weigh
    against the bar: below a floor or above a ceiling (a mean), a defect at the summary's
    threshold (a defect rate), unscored (an unscored rate)."""
    metrics = summary.get("metrics") or {}
    name, bar = outcome.name, outcome.bar
    if name not in metrics and name.endswith(_UNSCORED) and name[:-len(_UNSCORED)] in metrics:
        return name[:-len(_UNSCORED)], lambda v: v is None
    if name not in metrics and name.endswith(_DEFECT) and name[:-len(_DEFECT)] in metrics:
        defects = metrics[name[:-len(_DEFECT)]].get("defects") or {}
        threshold = str(defects.get("threshold", "low"))
        return name[:-len(_DEFECT)], lambda v: v is not None and _defect(v, threshold)
    if outcome.kind == "fail_over":
        return name, lambda v: v is not None and v > bar
    return name, lambda v: v is not None and v < bar


def _defect(severity: float, threshold: str) -> bool:
    """Whether a severity is a defect at ``threshold`` (any severity above 0, when either is
    out of what the safety metrics know)."""
    from ..metrics.safety import is_defect
    try:
        return is_defect(severity, threshold)
    except (ValueError, AssayError):
        return severity > 0


def _with_worst_rows(outcomes: list[BarOutcome], summary: Mapping[str, Any],
                     records: Iterable[Mapping[str, Any]]) -> list[BarOutcome]:
    """``outcomes`` with each failed bar's worst rows, from one pass over ``records``."""
    failed = [i for i, o in enumerate(outcomes) if not o.passed]
    heaps: dict[int, list[tuple[float, int, RowNote]]] = {i: [] for i in failed}
    sources = {i: _against(summary, outcomes[i]) for i in failed}
    for n, record in enumerate(records):
        for i in failed:
            metric, weighs = sources[i]
            result = record.get(metric)
            if not isinstance(result, Mapping):
                continue
            value = result.get("value")
            number = (float(value) if isinstance(value, (int, float))
                      and not isinstance(value, bool) else None)
            if not weighs(number):
                continue
            note = _note(record, result, number)
            # heap of the rows that weigh most: the highest ``weight`` stay
            weight = (0.0 if number is None else number if outcomes[i].lower_is_better
                      else -number)
            item = (weight, -n, note)  # among equals, the earlier row stays
            if len(heaps[i]) < WORST_ROWS:
                heapq.heappush(heaps[i], item)
            elif item > heaps[i][0]:
                heapq.heapreplace(heaps[i], item)
    done = list(outcomes)
    for i in failed:
        worst = tuple(note for *_, note in sorted(heaps[i], reverse=True))
        done[i] = replace(outcomes[i], worst=worst)
    return done


def _note(record: Mapping[str, Any], result: Mapping[str, Any], value: float | None) -> RowNote:
    """A row's note: its id, its score (``unscored``) and the judge's reason (or the error)."""
    reason = result.get("reason") if value is not None else (result.get("error")
                                                             or result.get("reason"))
    return RowNote(id=str(record.get("id")), shown="unscored" if value is None else f"{value:g}",
                   reason=str(reason) if reason else None)
