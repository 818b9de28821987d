"""Test-retest figures of the judge metrics a run asked several times per row (``--repeat K``):
how often a judge gives a row the same score again, and how far its scores spread.

Per metric (``summary["metrics"][NAME]["retest"]``), over the rows with two scored repeats or
more (``rows``):

- ``agreement``: the share of those rows whose scored repeats are all equal. Counted where
  every scored value is a whole number (1-5 ratings, 0-7 severities, labels); for continuous
  values (verdict probabilities mapped to 1-5, shares of claims) exact equality says little,
  so it is left out (``agreement_note`` says so): read ``within_row_sd`` and ``alpha`` there;
- ``within_row_sd``: the mean over those rows of the sample standard deviation of their
  repeats (left out for labels, whose values are codes);
- ``alpha``: Krippendorff's alpha with each repeat as a rater (interval level for numbers,
  nominal for labels): 1 is a judge that always repeats itself, 0 one whose repeats agree no
  more than chance; ``alpha_note`` says why it is ``null`` when undefined (every value the
  same: a deterministic judge);
- ``unscored_repeats``: repeats left unscored in rows that were scored, of which
  ``failed_repeats`` failed their call or gave an answer that could not be read (they count
  against ``--max-failed-share``: see :func:`with_failed_repeats`).

Example:
    >>> tally = RetestTally()
    >>> for repeats in ([4.0, 4.0, 4.0], [3.0, 4.0, 5.0], [5.0, 5.0, None]):
    ...     tally.add("fluency", {"value": 4.0, "repeats": repeats})
    >>> figures = tally.figures("fluency")
    >>> figures["repeats"], figures["rows"], figures["agreement"], figures["within_row_sd"]
    (3, 3, 0.6667, 0.3333)
    >>> figures["alpha_level"], figures["unscored_repeats"]
    ('interval', 1)
"""

from __future__ import annotations

import math
import statistics
from array import array
from collections import Counter
from collections.abc import Mapping
from typing import Any

from ..metrics import call_failure_cause
from ._alpha import alpha_of

__all__ = ["RetestTally", "with_failed_repeats"]


_SAME = "every repeat gave the same value"  # why alpha is undefined for a judge that repeats itself


class _MetricRetest:
    """One metric's repeats, row by row (NaN for an unscored repeat), and running counts."""

    def __init__(self) -> None:
        self.columns: list[array[float]] = []  # one per repeat: a rater for alpha
        self.rows = self.agreeing = self.unscored = self.failed = 0
        self.sds: array[float] = array("d")
        self.causes: Counter[str] = Counter()  # the failed calls' causes
        self.whole = True
        self.labels = False

    def add(self, result: Mapping[str, Any], repeats: list[Any]) -> None:
        values = [float(v) if isinstance(v, (int, float)) and not isinstance(v, bool)
                  else math.nan for v in repeats]
        while len(self.columns) < len(values):  # a repeat index not seen before
            self.columns.append(array("d", [math.nan]) * len(self.columns[0])
                                if self.columns else array("d"))
        for i, column in enumerate(self.columns):
            column.append(values[i] if i < len(values) else math.nan)
        scored = [v for v in values if not math.isnan(v)]
        details = result.get("details")
        details = details if isinstance(details, Mapping) else {}
        if result.get("value") is not None:
            missed = [m for m in details.get("unscored_repeats") or [] if isinstance(m, Mapping)]
            self.unscored += len(values) - len(scored)
            self.failed += sum(1 for m in missed
                               if call_failure_cause(m.get("error")) or m.get("unreadable"))
            self.causes.update(cause for m in missed
                               if (cause := call_failure_cause(m.get("error"))))
        if len(scored) < 2:
            return
        self.rows += 1
        self.agreeing += all(v == scored[0] for v in scored)
        self.sds.append(statistics.stdev(scored))
        self.whole = self.whole and all(v.is_integer() for v in scored)
        self.labels = self.labels or any(isinstance(details.get(k), str)
                                         for k in ("choice", "label"))

    def figures(self) -> dict[str, Any]:
        out: dict[str, Any] = {"repeats": len(self.columns), "rows": self.rows}
        if self.rows and self.whole:
            out["agreement"] = round(self.agreeing / self.rows, 4)
        elif self.rows:
            out["agreement_note"] = ("left out: the values are not whole numbers, so exact "
                                     "agreement says little; see within_row_sd and alpha")
        if self.rows and not self.labels:
            out["within_row_sd"] = round(math.fsum(self.sds) / self.rows, 4)
        level = "nominal" if self.labels else "interval"
        alpha, note = (alpha_of(self.columns, level, same=_SAME) if self.rows
                       else (None, "undefined: no row has two scored repeats"))
        out.update(alpha=alpha, alpha_level=level)
        if note:
            out["alpha_note"] = note
        out.update(unscored_repeats=self.unscored, failed_repeats=self.failed)
        if self.causes:
            out["failed_repeat_causes"] = dict(self.causes.most_common())
        return out


class RetestTally:
    """The repeats of each metric that was asked more than once per row (records whose
    result has ``repeats``), for :meth:`figures`."""

    def __init__(self) -> None:
        self._metrics: dict[str, _MetricRetest] = {}

    def add(self, name: str, result: Mapping[str, Any]) -> None:
        """Count one row's result of metric ``name`` (nothing when it has no ``repeats``)."""
        repeats = result.get("repeats")
        if isinstance(repeats, list) and len(repeats) > 1:
            self._metrics.setdefault(name, _MetricRetest()).add(result, repeats)

    def figures(self, name: str) -> dict[str, Any] | None:
        """The test-retest figures of metric ``name`` (see the module docstring), ``None``
        when it was not repeated."""
        metric = self._metrics.get(name)
        return metric.figures() if metric is not None else None


def with_failed_repeats(failures: dict[str, Any],
                        metrics: Mapping[str, Mapping[str, Any]]) -> dict[str, Any]:
    """The run's ``failures`` with each repeated metric's failed repeats (``retest``'s
    ``failed_repeats``, in rows scored by their other repeats) added to its ``by_metric``
    entry, and its ``share`` taken over the repeats asked: (K x rows lost + failed repeats) /
    (K x applicable rows), and the causes of their failed calls added to ``causes``. A
    judge that fails one call in three is then a failing judge, whether or not a row's other
    repeats scored it.

    Example:
        >>> failures = {"by_metric": {"fluency": {"failed": 0, "unreadable": 0,
        ...             "applicable": 10, "share": 0.0}}, "causes": {}}
        >>> metrics = {"fluency": {"retest": {"repeats": 3, "failed_repeats": 6}}}
        >>> with_failed_repeats(failures, metrics)["by_metric"]["fluency"]
        {'failed': 0, 'unreadable': 0, 'applicable': 10, 'share': 0.2, 'failed_repeats': 6}
    """
    for name, entry in (failures.get("by_metric") or {}).items():
        retest = (metrics.get(name) or {}).get("retest") or {}
        failed, k = retest.get("failed_repeats"), retest.get("repeats")
        if not failed or not k or not entry.get("applicable"):
            continue
        lost = k * (entry["failed"] + entry.get("unreadable", 0)) + failed
        entry.update(share=round(lost / (k * entry["applicable"]), 4), failed_repeats=failed)
        causes = Counter(failures.get("causes") or {})
        causes.update(retest.get("failed_repeat_causes") or {})
        failures["causes"] = dict(causes.most_common())
    return failures
