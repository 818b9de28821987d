"""How much of a run failed because judge (or embedding) calls failed, and why.

"Does not apply" is not a failure, nor is an answer the judge gave that could not be parsed
(that is the judge's answer, recorded as unscored with its raw text): only calls that failed
after their retries count. ``assay run`` exits 3 when a metric's failed share is over
``--max-failed-share``.

Example:
    >>> metrics = {"fluency": {"scored": 7, "unscored": 3, "unscored_reasons": {
    ...     "judge call failed: HTTP 500": 2, "does not apply: no answer": 1}}}
    >>> report = call_failures(metrics)
    >>> report["by_metric"]["fluency"], report["causes"]
    ({'failed': 2, 'applicable': 9, 'share': 0.2222}, {'judge call failed: HTTP 500': 2})
    >>> over_failed_share(report, 0.05)
    ['fluency']
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import Any

from ._results import is_call_failure

__all__ = ["call_failures", "over_failed_share"]


def call_failures(metrics: Mapping[str, Mapping[str, Any]]) -> dict[str, Any]:
    """``{"by_metric": {name: {failed, applicable, share}}, "causes": {cause: rows}}`` from a
    summary's per-metric aggregates (their ``unscored_reasons``), causes most frequent first.
    """
    by_metric: dict[str, dict[str, Any]] = {}
    causes: Counter[str] = Counter()
    for name, agg in metrics.items():
        reasons = agg.get("unscored_reasons") or {}
        failed = sum(n for why, n in reasons.items() if is_call_failure(why))
        not_applicable = sum(n for why, n in reasons.items()
                             if str(why).startswith("does not apply"))
        rows = int(agg.get("scored") or 0) + int(agg.get("unscored") or 0)
        applicable = max(rows - not_applicable, 0)
        by_metric[name] = {"failed": failed, "applicable": applicable,
                           "share": round(failed / applicable, 4) if applicable else 0.0}
        causes.update({why: n for why, n in reasons.items() if is_call_failure(why)})
    return {"by_metric": by_metric, "causes": dict(causes.most_common())}


def over_failed_share(report: Mapping[str, Any], max_share: float) -> list[str]:
    """The metrics whose share of rows lost to failed calls is over ``max_share``."""
    return [name for name, m in report["by_metric"].items()
            if m["failed"] and m["share"] > max_share]
