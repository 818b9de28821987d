"""A panel's figures for ``summary.json``: how far each judge agrees with the panel, how well
the judges agree with one another (Krippendorff's alpha), the rows each judge failed, and
what each judge cost.

Alpha is computed with the ``krippendorff`` package, at the interval level for numeric scores
(the panel's ``mean`` rule) and the nominal level for labels (``majority``): per metric, once
across all the judges (``alpha``), and per judge between its values and the panel's (``judges[id]
.alpha``). A row a judge did not score is a missing value. When alpha is undefined (every value
the same, or no row rated twice) it is ``null`` and ``alpha_note`` says why.

Example:
    >>> tally = PanelTally()
    >>> for a, b in ((1.0, 1.0), (2.0, 2.0), (3.0, 4.0)):
    ...     tally.add("fluency", {"value": (a + b) / 2, "details": {"panel_rule": "mean",
    ...               "panel": {"x": {"value": a}, "y": {"value": b}}}})
    >>> agreement = tally.agreement()["fluency"]
    >>> agreement["level"], agreement["alpha"], agreement["judges"]["y"]["alpha"]
    ('interval', 0.878, 0.9735)
"""

from __future__ import annotations

import math
from array import array
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from ..calls import ManagedJudge
from ..costs import PriceBook, Usage
from ..judges import JudgeCapabilities
from ..metrics import UNREADABLE, call_failure_cause, unscored_reason_key

__all__ = ["PanelTally", "alpha_of", "judge_usage", "price_panel_usage", "split_usage"]

_LEVEL = {"mean": "interval", "majority": "nominal"}


def alpha_of(rows: list[list[float]], level: str) -> tuple[float | None, str | None]:
    """Krippendorff's alpha of ``rows`` (one list per rater, NaN where a rater gave nothing)
    at ``level`` (``interval`` or ``nominal``), rounded to 4 places; ``(None, why)`` when it
    is undefined.

    Example:
        >>> alpha_of([[1.0, 2.0, 3.0, 4.0], [1.0, 2.0, 3.0, 5.0]], "interval")
        (0.9369, None)
        >>> alpha_of([[1.0, 1.0], [1.0, 1.0]], "nominal")
        (None, 'undefined: every rating is the same value')
    """
    import krippendorff  # imported when a panel's summary is made, not with assay
    import numpy as np

    data = np.array(rows, dtype=float)
    paired = data[:, np.sum(~np.isnan(data), axis=0) >= 2]  # the rows rated twice or more
    if paired.shape[1] == 0:
        return None, "undefined: no row has two ratings"
    values = paired[~np.isnan(paired)]
    if np.all(values == values[0]):
        return None, "undefined: every rating is the same value"
    try:
        alpha = float(krippendorff.alpha(reliability_data=data,
                                         level_of_measurement=level))  # type: ignore[arg-type]
    except (ValueError, ZeroDivisionError) as e:
        return None, f"undefined: {e}"
    return (round(alpha, 4), None) if math.isfinite(alpha) else (None, "undefined")


class _MetricPanel:
    """One metric's values per judge and the panel's, row by row (NaN where missing)."""

    def __init__(self) -> None:
        self.level = "interval"
        self.rows = 0
        self.judges: dict[str, array[float]] = {}
        self.panel: array[float] = array("d")
        self.failed: Counter[str] = Counter()
        self.causes: Counter[str] = Counter()
        #: Per judge, the reasons of its answers that could not be read.
        self.unreadable: dict[str, Counter[str]] = {}

    def add(self, result: Mapping[str, Any]) -> None:
        details = result.get("details") or {}
        entries: Mapping[str, Any] = details.get("panel") or {}
        self.level = _LEVEL.get(str(details.get("panel_rule")), self.level)
        for judge in entries:
            if judge not in self.judges:  # a judge first seen now: missing on earlier rows
                self.judges[judge] = array("d", [math.nan] * self.rows)
        for judge, values in self.judges.items():
            entry = entries.get(judge) or {}
            value = entry.get("value")
            values.append(math.nan if value is None else float(value))
            cause = call_failure_cause(entry.get("error"))
            if cause is not None:
                self.failed[judge] += 1
                if result.get("value") is not None:  # else the metric's own reason counts it
                    self.causes[cause] += 1
            elif entry.get(UNREADABLE):
                why = unscored_reason_key(str(entry.get("error") or "unreadable"))
                self.unreadable.setdefault(judge, Counter())[why] += 1
        value = result.get("value")
        self.panel.append(math.nan if value is None else float(value))
        self.rows += 1

    def summary(self) -> dict[str, Any]:
        alpha, note = alpha_of([list(v) for v in self.judges.values()], self.level)
        out: dict[str, Any] = {"level": self.level, "rows": self.rows, "alpha": alpha}
        if note:
            out["alpha_note"] = note
        judges: dict[str, Any] = {}
        for judge, values in self.judges.items():
            j_alpha, j_note = alpha_of([list(values), list(self.panel)], self.level)
            judges[judge] = {"alpha": j_alpha,
                             "scored": sum(not math.isnan(v) for v in values),
                             "failed": self.failed[judge]}
            if j_note:
                judges[judge]["alpha_note"] = j_note
        out["judges"] = judges
        return out


class PanelTally:
    """The panel results of a run, fed one metric result at a time (those with
    ``details.panel``), for the agreement figures and the failures per judge."""

    def __init__(self) -> None:
        self.metrics: dict[str, _MetricPanel] = {}

    def add(self, metric: str, result: Mapping[str, Any]) -> None:
        """Count one row's result of ``metric`` (a dict with ``value`` and ``details``)."""
        self.metrics.setdefault(metric, _MetricPanel()).add(result)

    def agreement(self, order: Sequence[str] = ()) -> dict[str, Any]:
        """``{metric: {level, rows, alpha, judges: {id: {alpha, scored, failed}}}}``, the
        metrics named in ``order`` first, in that order."""
        names = [n for n in order if n in self.metrics]
        names += [n for n in self.metrics if n not in names]
        return {name: self.metrics[name].summary() for name in names}

    def failures(self) -> dict[str, Any]:
        """Rows each judge lost to failed calls or unreadable answers, as
        :func:`call_failures` reports them, under ``"<metric> (<judge>)"``; causes of failed
        calls counted on the rows the panel still scored."""
        by_metric: dict[str, dict[str, Any]] = {}
        causes: Counter[str] = Counter()
        unreadable: dict[str, dict[str, int]] = {}
        for name, m in self.metrics.items():
            asked = m.rows
            for judge in m.judges:
                failed = m.failed[judge]
                reasons = m.unreadable.get(judge) or Counter()
                lost = sum(reasons.values())
                key = f"{name} ({judge})"
                by_metric[key] = {
                    "failed": failed, "unreadable": lost, "applicable": asked,
                    "share": round((failed + lost) / asked, 4) if asked else 0.0}
                if reasons:
                    unreadable[key] = dict(reasons.most_common())
            causes.update(m.causes)
        return {"by_metric": by_metric, "causes": dict(causes), "unreadable": unreadable}


def judge_usage(judge: ManagedJudge) -> dict[str, Any]:
    """What one managed judge of a panel did: requests, cache hits, tokens, and the cost in US
    dollars at its declared prices (``None`` when they are unknown).

    Example:
        >>> from assay.judges import FakeJudge, JudgeCapabilities
        >>> from assay.calls import ManagedJudge
        >>> judge = ManagedJudge(FakeJudge(capabilities=JudgeCapabilities(
        ...     input_price=1e-6, output_price=2e-6)))
        >>> judge.stats.prompt_tokens, judge.stats.completion_tokens = 1000, 100
        >>> judge_usage(judge)["cost_usd"]
        0.0012
    """
    stats = judge.stats
    return {"requests": stats.requests, "cache_hits": stats.cache_hits,
            "prompt_tokens": stats.prompt_tokens, "completion_tokens": stats.completion_tokens,
            "failed": stats.failed, "retries": stats.retries,
            "rate_limited": stats.rate_limited,
            **{k: v for k, v in (("cached_tokens", stats.cached_tokens),
                                 ("reasoning_tokens", stats.reasoning_tokens)) if v},
            "cost_usd": judge.capabilities.cost(stats.prompt_tokens, stats.completion_tokens)}


def price_panel_usage(usage: Mapping[str, dict[str, Any]], prices: PriceBook) -> None:
    """Price each panel judge's tokens with ``prices`` where the judge declares no price of
    its own (``cost_usd`` still ``None``); an unknown price stays ``None``, with
    ``cost_unknown_reason``.

    Example:
        >>> usage = {"openai:gpt-4o-mini": {"prompt_tokens": 1_000_000, "cost_usd": None},
        ...          "fake:a": {"prompt_tokens": 5, "cost_usd": None}}
        >>> price_panel_usage(usage, PriceBook.load())
        >>> usage["openai:gpt-4o-mini"]["cost_usd"], usage["fake:a"]["cost_unknown_reason"]
        (0.15, "no price for model 'fake:a' (add it to a --prices file)")
    """
    for judge, counters in usage.items():
        if counters.get("cost_usd") is not None:
            continue
        cost = prices.cost(judge, Usage(**{k: int(counters.get(k) or 0) for k in (
            "prompt_tokens", "completion_tokens", "cached_tokens", "reasoning_tokens")}))
        counters["cost_usd"] = cost.usd
        if cost.usd is None:
            counters["cost_unknown_reason"] = cost.reason


#: Joins a judge's id and a counter in the flat stats a Ray worker sends.
SEP = "\t"


def split_usage(stats: Mapping[str, Any], costs: Mapping[str, JudgeCapabilities]
                ) -> tuple[dict[str, Any], dict[str, dict[str, Any]]]:
    """A panel's stats summed over Ray workers, split into the judges' total and the usage per
    judge (keys: the judge's id and the counter joined by :data:`SEP`), with each judge's cost
    from its capabilities.

    Example:
        >>> from assay.judges import JudgeCapabilities
        >>> total, usage = split_usage({"requests": 3, f"a{SEP}requests": 2,
        ...     f"a{SEP}prompt_tokens": 10, f"a{SEP}completion_tokens": 1, f"b{SEP}requests": 1},
        ...     {"a": JudgeCapabilities()})
        >>> total, usage["a"]["requests"], usage["a"]["cost_usd"], usage["b"]["requests"]
        ({'requests': 3}, 2, None, 1)
    """
    total = {k: v for k, v in stats.items() if SEP not in k}
    usage: dict[str, dict[str, Any]] = {}
    for key, value in stats.items():
        if SEP in key:
            judge, _, counter = key.partition(SEP)
            usage.setdefault(judge, {})[counter] = value
    for judge, counters in usage.items():
        caps = costs.get(judge)
        counters["cost_usd"] = (caps.cost(counters.get("prompt_tokens", 0),
                                          counters.get("completion_tokens", 0))
                                if caps is not None else None)
    return total, usage
