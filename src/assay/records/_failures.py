"""How much of a run failed because judge (or embedding) calls failed or the judge's answers
could not be read, and why.

"Does not apply" is not a failure. A call that failed after its retries is (``failed``, its
cause in ``causes``), and so is an answer that could not be read (``unreadable``: empty, not
JSON, the wrong shape, out of range, cut at ``max_tokens``, or a template that could not
render; marked by :meth:`~assay.metrics.MetricResult.unreadable`, its reasons per metric in
``unreadable``). ``assay run`` exits 3 when a metric's share of both is over
``--max-failed-share``.

Example:
    >>> metrics = {"fluency": {"scored": 6, "unscored": 4, "unreadable": 1, "unscored_reasons": {
    ...     "judge call failed: HTTP 500": 2, "does not apply: no answer": 1,
    ...     "judge answer is not a valid 1-5 score (asked twice)": 1}}}
    >>> report = call_failures(metrics, {"fluency": {
    ...     "judge answer is not a valid 1-5 score (asked twice)": 1}})
    >>> report["by_metric"]["fluency"], report["causes"]
    ({'failed': 2, 'unreadable': 1, 'applicable': 9, 'share': 0.3333}, {'judge call failed: HTTP 500': 2})
    >>> report["unreadable"]
    {'fluency': {'judge answer is not a valid 1-5 score (asked twice)': 1}}
    >>> over_failed_share(report, 0.05)
    ['fluency']
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import Any

from ._results import is_call_failure

__all__ = ["call_failures", "over_failed_share"]


def call_failures(metrics: Mapping[str, Mapping[str, Any]],
                  unreadable: Mapping[str, Mapping[str, int]] | None = None) -> dict[str, Any]:
    """``{"by_metric": {name: {failed, unreadable, applicable, share}}, "causes": {cause:
    rows}, "unreadable": {name: {reason: rows}}}`` from a summary's per-metric aggregates (their
    ``unscored_reasons`` and ``unreadable`` counts) and the reasons of the unreadable results
    per metric; causes and reasons most frequent first. ``share`` is the share of the applicable
    rows lost to either.
    """
    by_metric: dict[str, dict[str, Any]] = {}
    causes: Counter[str] = Counter()
    for name, agg in metrics.items():
        reasons = agg.get("unscored_reasons") or {}
        failed = sum(n for why, n in reasons.items() if is_call_failure(why))
        lost = int(agg.get("unreadable") or 0)
        not_applicable = sum(n for why, n in reasons.items()
                             if str(why).startswith("does not apply"))
        rows = int(agg.get("scored") or 0) + int(agg.get("unscored") or 0)
        applicable = max(rows - not_applicable, 0)
        by_metric[name] = {"failed": failed, "unreadable": lost, "applicable": applicable,
                           "share": round((failed + lost) / applicable, 4) if applicable
                           else 0.0}
        causes.update({why: n for why, n in reasons.items() if is_call_failure(why)})
    return {"by_metric": by_metric, "causes": dict(causes.most_common()),
            "unreadable": {name: dict(Counter(why).most_common())
                           for name, why in (unreadable or {}).items() if why}}


def over_failed_share(report: Mapping[str, Any], max_share: float) -> list[str]:
    """The metrics whose share of rows lost to failed calls or unreadable answers is over
    ``max_share``."""
    return [name for name, m in report["by_metric"].items()
            if (m["failed"] or m.get("unreadable") or m.get("failed_repeats"))
            and m["share"] > max_share]
