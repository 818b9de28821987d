"""Latency per row and its percentiles: each record's ``row_latency`` (the judge's seconds on
the row, in all and per judge metric, and the app's, when a ``--target`` answered it) and
``summary["latency"]``, p50 and p95 over the rows.

A row's judge seconds are the wall time of its judge calls, summed (a cache hit adds nothing;
calls of several metrics at once each count); the app's are the target's run on the row.

Example:
    >>> tally = LatencyTally()
    >>> for s in (0.5, 1.0, 1.5, 2.0):
    ...     tally.add({"id": "r", ROW_LATENCY: {"judge_s": s, "judge_by_metric": {"fluency": s}}})
    >>> tally.summary()
    {'judge': {'p50': 1.25, 'p95': 1.925, 'rows': 4, 'by_metric': {'fluency': {'p50': 1.25, 'p95': 1.925, 'rows': 4}}}}
    >>> LatencyTally().summary() is None
    True
"""

from __future__ import annotations

import statistics
from array import array
from collections.abc import Mapping, Sequence
from typing import Any

__all__ = ["ROW_LATENCY", "LatencyTally", "latency_line", "latency_lines", "metric_latency_line",
           "percentiles"]

#: The record field that holds a row's latency.
ROW_LATENCY = "row_latency"


def percentiles(values: Sequence[float]) -> dict[str, Any]:
    """p50 and p95 of ``values`` in seconds (linear between the closest ranks), and how many.

    Example:
        >>> percentiles([2.0])
        {'p50': 2.0, 'p95': 2.0, 'rows': 1}
    """
    if len(values) == 1:
        p50 = p95 = float(values[0])
    else:
        cuts = statistics.quantiles(values, n=20, method="inclusive")
        p50, p95 = cuts[9], cuts[18]
    return {"p50": round(p50, 4), "p95": round(p95, 4), "rows": len(values)}


class LatencyTally:
    """The judge's and the app's seconds of every row a run wrote (8 bytes a row and metric)."""

    def __init__(self) -> None:
        self.judge = array("d")
        self.by_metric: dict[str, array[float]] = {}
        self.app = array("d")

    def add(self, record: Mapping[str, Any]) -> None:
        """Count the ``row_latency`` of ``record`` (nothing when it has none)."""
        latency = record.get(ROW_LATENCY)
        if not isinstance(latency, Mapping):
            return
        if isinstance(latency.get("judge_s"), (int, float)):
            self.judge.append(float(latency["judge_s"]))
        for name, seconds in (latency.get("judge_by_metric") or {}).items():
            if isinstance(seconds, (int, float)):
                self.by_metric.setdefault(name, array("d")).append(float(seconds))
        if isinstance(latency.get("app_s"), (int, float)):
            self.app.append(float(latency["app_s"]))

    def summary(self) -> dict[str, Any] | None:
        """``{"judge": {p50, p95, rows, by_metric}, "app": {p50, p95, rows}}`` (a part with no
        row left out); ``None`` when no row had a latency."""
        out: dict[str, Any] = {}
        if self.judge:
            out["judge"] = {**percentiles(self.judge), "by_metric": {
                name: percentiles(values) for name, values in self.by_metric.items()}}
        if self.app:
            out["app"] = percentiles(self.app)
        return out or None



def latency_line(latency: Mapping[str, Any] | None) -> str | None:
    """A run's ``summary["latency"]`` on one line (the terminal summary's and the report's), or
    ``None`` without one.

    Example:
        >>> latency_line({"judge": {"p50": 0.41, "p95": 1.2, "rows": 9},
        ...               "app": {"p50": 2.0, "p95": 3.5, "rows": 9}})
        'latency per row: judge p50 0.41 s, p95 1.2 s; app p50 2 s, p95 3.5 s'
        >>> latency_line(None) is None
        True
    """
    if not latency:
        return None
    parts = [f"{who} p50 {latency[who]['p50']:.3g} s, p95 {latency[who]['p95']:.3g} s"
             for who in ("judge", "app") if latency.get(who)]
    return "latency per row: " + "; ".join(parts) if parts else None


def metric_latency_line(latency: Mapping[str, Any] | None) -> str | None:
    """Each judge metric's p50 / p95 seconds per row on one line; ``None`` without any.

    Example:
        >>> metric_latency_line({"judge": {"p50": 0.3, "p95": 0.6, "rows": 2, "by_metric": {
        ...     "fluency": {"p50": 0.14, "p95": 0.44, "rows": 2}}}})
        'per judge metric, p50 / p95: fluency 0.14 / 0.44 s'
    """
    by_metric = ((latency or {}).get("judge") or {}).get("by_metric") or {}
    parts = [f"{name} {p['p50']:.3g} / {p['p95']:.3g} s" for name, p in by_metric.items()]
    return "per judge metric, p50 / p95: " + ", ".join(parts) if parts else None


def latency_lines(latency: Mapping[str, Any] | None) -> list[str]:
    """Two runs' latency (``comparison["latency"]``, from ``assay compare``) as a line per part.

    Example:
        >>> latency_lines({"app": {"p50_a": 1.0, "p95_a": 2.0, "p50_b": None, "p95_b": None}})
        ['app seconds per row, p50 / p95: A 1 / 2, B - / -']
    """
    def num(x: float | None) -> str:
        return "-" if x is None else f"{x:.3g}"

    return [f"{part} seconds per row, p50 / p95: A {num(p['p50_a'])} / {num(p['p95_a'])}, "
            f"B {num(p['p50_b'])} / {num(p['p95_b'])}"
            for part, p in (latency or {}).items()]
