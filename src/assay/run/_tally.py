"""A run's aggregates, kept up to date as records arrive in any order, in bounded memory.

Metrics whose aggregate is the plain mean (lexical, rubric, RAG metrics) are tallied as exact
running sums, plus their scored values as a float array (8 bytes a row: 8 MB per metric for a
million rows) for the mean's standard error and bootstrap interval. A metric with its own
``aggregate`` (severity, custom pointwise labels, pairwise choices) keeps its results and is
aggregated at the end by that method. Each metric family of the run (see
:class:`~assay.metrics.MetricFamily`) keeps a tally of its own, whose sections (defect rates,
stage diagnosis) join the summary; the tally names no family.

Example:
    >>> from assay.metrics import get_metric
    >>> tally = RunTally([get_metric("f1_score")])
    >>> tally.add({"id": "1", "f1_score": {"value": 1.0}})
    >>> tally.add({"id": "2", "f1_score": {"value": 0.5}})
    >>> tally.add({"id": "3", "f1_score": {"value": None, "error": "does not apply: no answer"}})
    >>> tally.metrics()["f1_score"]
    {'mean': 0.75, 'se': 0.25, 'ci95': [0.5, 1.0], 'scored': 2, 'unscored': 1, 'unscored_reasons': {'does not apply: no answer': 1}}
"""

from __future__ import annotations

import math
import time
from array import array
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from ..costs import CostTally, PriceBook
from ..metrics import (
    FieldMetric,
    Metric,
    MetricResult,
    families_for,
    unreadable_kind,
    unscored_reason_key,
)
from ..records import LatencyTally, RetestTally, call_failures, with_failed_repeats, with_interval
from ._panel_tally import PanelTally

__all__ = ["ExactSum", "RunTally", "run_summary"]


class ExactSum:
    """A float sum that is exact (as :func:`math.fsum`) whatever the order of the terms, so
    the mean does not depend on which row finished first.

    Example:
        >>> s = ExactSum()
        >>> for x in (0.1, 0.2, 0.3): s.add(x)
        >>> s.value == math.fsum([0.3, 0.1, 0.2])
        True
    """

    __slots__ = ("_partials",)

    def __init__(self) -> None:
        self._partials: list[float] = []

    def add(self, x: float) -> None:
        # Shewchuk's algorithm, as in the Python docs' msum recipe behind math.fsum.
        partials = self._partials
        i = 0
        for y in partials:
            if abs(x) < abs(y):
                x, y = y, x
            hi = x + y
            lo = y - (hi - x)
            if lo:
                partials[i] = lo
                i += 1
            x = hi
        partials[i:] = [x]

    @property
    def value(self) -> float:
        return math.fsum(self._partials)


class _MeanTally:
    """``mean_aggregate`` as running sums (the scored values' sum is taken at the end, with
    :func:`math.fsum` over the values kept for the interval: exact, as :class:`ExactSum`)."""

    def __init__(self) -> None:
        self.weighted = ExactSum()
        self.scored = self.unscored = self.n_weighted = 0
        self.scored_values = array("d")  # for the mean and the interval

    def add(self, result: Mapping[str, Any]) -> None:
        value = result.get("value")
        if value is None:
            self.unscored += 1
            return
        self.scored += 1
        self.scored_values.append(value)
        weighted = result.get("weighted")
        if weighted is not None:
            self.n_weighted += 1
            self.weighted.add(weighted)

    def aggregate(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "mean": round(math.fsum(self.scored_values) / self.scored, 4) if self.scored else None,
            "scored": self.scored, "unscored": self.unscored}
        if self.n_weighted:
            out["mean_weighted"] = round(self.weighted.value / self.n_weighted, 4)
        return out


class RunTally:
    """Aggregates, unscored reasons, metric families' tallies and prompt hashes of a run's
    records."""

    def __init__(self, metrics: Sequence[Metric]) -> None:
        self.metrics_run = list(metrics)
        self.names = {m.name for m in metrics}
        self.rows = 0
        self._means = {m.name: _MeanTally() for m in metrics if _is_plain_mean(m)}
        self._kept: dict[str, list[MetricResult]] = {
            m.name: [] for m in metrics if m.name not in self._means}
        self._reasons: dict[str, Counter[str]] = {m.name: Counter() for m in metrics}
        #: Reasons of the results whose judge answer (or template) could not be read, by metric.
        self.unreadable: dict[str, Counter[str]] = {m.name: Counter() for m in metrics}
        #: Scored results the judge gave no reason for (reasons on demand), by metric.
        self._no_reason: Counter[str] = Counter()
        self.families = [family.tally(self.metrics_run) for family in families_for(metrics)]
        self.prompt_sha256: dict[str, str] = {}
        self.injected = 0  # rows whose texts address the evaluator
        self.injection_kinds: Counter[str] = Counter()
        self.unknown_language_rows = 0  # rows with a judged text in a language the detector lacks
        self.unknown_languages: Counter[str] = Counter()
        self.panel = PanelTally()  # results a panel of judges gave (``details.panel``)
        self.retest = RetestTally()  # results of metrics asked several times (``repeats``)
        self.cost = CostTally(m.name for m in metrics)  # judge spend, in the plan's order
        self.latency = LatencyTally()  # the judge's and the app's seconds per row

    def add(self, record: Mapping[str, Any]) -> None:
        """Count one row's record (``{"id", <metric>: result dict, ...}``)."""
        self.rows += 1
        for name in self.names:
            result = record.get(name)
            if type(result) is not dict and not isinstance(result, Mapping):
                continue
            if name in self._means:
                self._means[name].add(result)
            else:
                self._kept[name].append(MetricResult.model_validate(result))
            error = result.get("error")
            if result.get("value") is None and error:
                self._reasons[name][unscored_reason_key(error)] += 1
                if unreadable_kind(result):
                    self.unreadable[name][unscored_reason_key(error)] += 1
            if "repeats" in result:
                self.retest.add(name, result)
            details = result.get("details") or {}
            if "panel" in details:
                self.panel.add(name, result)
            if "no_reason" in details:
                self._no_reason[name] += 1
            if "usage" in details:
                self.cost.add(name, details["usage"])
            if name not in self.prompt_sha256:
                sha = details.get("prompt_sha256")
                if isinstance(sha, str):
                    self.prompt_sha256[name] = sha
        found = record.get("injection")
        if found is not None and isinstance(found, Mapping):
            self.injected += 1
            self.injection_kinds.update(str(k) for k in found.get("kinds") or [])
        languages = record.get("injection_language")
        if isinstance(languages, Mapping) and languages:
            self.unknown_language_rows += 1
            self.unknown_languages.update({str(v) for v in languages.values()})
        for family in self.families:
            family.add(record)
        self.latency.add(record)
        self.cost.add_app(record)  # the app's usage on the row (``--target``), apart

    def sections(self, options: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """The top-level sections the run's metric families add to ``summary.json`` (e.g.
        ``diagnosis``, ``safety``)."""
        out: dict[str, Any] = {}
        for family in self.families:
            out.update(family.summary_section(options or {}))
        return out

    def metrics(self, options: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """``{metric: aggregate}`` as in ``summary.json``, with the sections the run's metric
        families add to their metrics (e.g. defect rates at ``options["safety_threshold"]``).

        ``options``: the run's options, ``{field of ScoringOptions: value}``.
        """
        extras: dict[str, dict[str, Any]] = {}
        for family in self.families:
            for name, section in family.metric_sections(options or {}).items():
                extras.setdefault(name, {}).update(section)
        out: dict[str, Any] = {}
        for metric in self.metrics_run:
            name = metric.name
            if name in self._means:
                agg = self._means[name].aggregate()
                values: Sequence[float] = self._means[name].scored_values
            else:
                agg = metric.aggregate(self._kept[name])
                values = [r.value for r in self._kept[name] if r.value is not None]
            agg = with_interval(agg, values)
            agg.update(extras.get(name, {}))
            if self._reasons[name]:
                agg["unscored_reasons"] = dict(self._reasons[name])
            if self.unreadable[name]:
                agg["unreadable"] = sum(self.unreadable[name].values())
            if self._no_reason[name]:
                agg["without_reason"] = self._no_reason[name]
            if (retest := self.retest.figures(name)) is not None:
                agg["retest"] = retest
            out[name] = agg
        return out


def _is_plain_mean(metric: Metric) -> bool:
    """Whether ``metric`` aggregates with the plain mean (it does not override ``aggregate``)."""
    return isinstance(metric, FieldMetric) and type(metric).aggregate is FieldMetric.aggregate


def run_summary(total: int, tally: RunTally, metrics: Sequence[Metric], started: float,
             dataset: str, lang: str, skipped: list[str], complete: bool,
             options: Mapping[str, Any], on_injection: str,
             dataset_sha256: str | None = None,
             prices: PriceBook | None = None) -> dict[str, Any]:
    """The run's ``summary.json`` from its tally (``judge`` and ``run_id`` are added by the
    caller once the engine and the store are done). ``options``: the run's options
    (``{field of ScoringOptions: value}``), which the metric families' sections read;
    ``prices``: what the judge calls are priced with (genai-prices alone by default)."""
    return {
        "rows": total,
        "rows_done": tally.rows,
        "complete": complete,
        "dataset": dataset,
        "dataset_sha256": dataset_sha256,
        "metric_versions": {m.name: m.version for m in metrics},
        "prompt_sha256": dict(tally.prompt_sha256),
        "lang": lang,
        "metrics": (metrics_summary := tally.metrics(options)),
        "failures": with_failed_repeats(_with_panel(
            call_failures(metrics_summary, tally.unreadable), tally.panel), metrics_summary),
        "injection": {"mode": on_injection, "flagged_rows": tally.injected,
                      "kinds": dict(tally.injection_kinds.most_common()),
                      "unknown_language": {
                          "rows": tally.unknown_language_rows,
                          "languages": dict(tally.unknown_languages.most_common())}},
        "skipped": skipped,
        **tally.sections(options),
        **({"panel": {"agreement": tally.panel.agreement([m.name for m in metrics])}}
           if tally.panel.metrics else {}),
        "judge": None,
        "cost": tally.cost.section(prices if prices is not None else PriceBook.load()),
        **({"latency": latency} if (latency := tally.latency.summary()) else {}),
        "elapsed_s": round(time.monotonic() - started, 3),
    }


def _with_panel(failures: dict[str, Any], panel: PanelTally) -> dict[str, Any]:
    """The run's failures with each panel judge's rows lost to failed calls or unreadable
    answers (as ``"<metric> (<judge>)"``): a judge that fails fails the run, even where the
    panel scored the row with the other judges."""
    if not panel.metrics:
        return failures
    extra = panel.failures()
    causes = Counter(failures["causes"]) + Counter(extra["causes"])
    return {"by_metric": {**failures["by_metric"], **extra["by_metric"]},
            "causes": dict(causes.most_common()),
            "unreadable": {**failures["unreadable"], **extra["unreadable"]}}
