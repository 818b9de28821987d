"""Latency of two runs side by side: the p50 / p95 seconds per row of each run's judge (and per
judge metric) and app, from their ``summary["latency"]``.

Example:
    >>> a = {"latency": {"judge": {"p50": 0.2, "p95": 0.5, "rows": 9}}}
    >>> b = {"latency": {"judge": {"p50": 0.3, "p95": 0.9, "rows": 9}}}
    >>> latency_comparison(a, b)
    {'judge': {'p50_a': 0.2, 'p95_a': 0.5, 'p50_b': 0.3, 'p95_b': 0.9}}
    >>> latency_comparison({}, {}) is None
    True
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..records import latency_lines

__all__ = ["latency_comparison", "latency_lines"]


def _pair(a: Mapping[str, Any] | None, b: Mapping[str, Any] | None) -> dict[str, Any] | None:
    if not a and not b:
        return None
    return {f"{q}_{side}": (part or {}).get(q) for side, part in (("a", a), ("b", b))
            for q in ("p50", "p95")}


def latency_comparison(summary_a: Mapping[str, Any], summary_b: Mapping[str, Any]
                       ) -> dict[str, Any] | None:
    """``{"judge": {p50_a, p95_a, p50_b, p95_b, "by_metric": {name: {...}}}, "app": {...}}``
    (a part neither run has left out; a figure one run lacks is None); ``None`` when neither
    run measured latency (runs made before it was)."""
    la, lb = summary_a.get("latency") or {}, summary_b.get("latency") or {}
    out: dict[str, Any] = {}
    for part in ("judge", "app"):
        pair = _pair(la.get(part), lb.get(part))
        if pair is None:
            continue
        if part == "judge":
            ma = (la.get("judge") or {}).get("by_metric") or {}
            mb = (lb.get("judge") or {}).get("by_metric") or {}
            metrics = {name: _pair(ma.get(name), mb.get(name)) for name in {**ma, **mb}}
            if metrics:
                pair["by_metric"] = metrics
        out[part] = pair
    return out or None

