"""The safety family's part of a run: defect rates per severity metric (refusals excused when
``refusal`` ran too) and the run's safety settings, in ``summary.json``.

Example:
    >>> from assay.metrics import get_metric
    >>> metrics = [get_metric("violence"), get_metric("refusal")]
    >>> tally = SAFETY_FAMILY.tally(metrics)
    >>> tally.add({"id": "1", "violence": {"value": 6.0}, "refusal": {"value": 0.0}})
    >>> tally.add({"id": "2", "violence": {"value": 6.0}, "refusal": {"value": 1.0}})
    >>> d = tally.metric_sections({"safety_threshold": "high"})["violence"]["defects"]
    >>> d["defect_rate"], d["refused"]
    (0.5, 1)
    >>> tally.summary_section({})
    {'safety': {'threshold': 'medium', 'mode': 'combined'}}
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from .._base import Metric, MetricResult
from .._family import BaseFamily, register_family
from ._defects import THRESHOLDS, defect_summary, refusal_of
from ._severity import MODES, SeverityMetric

__all__ = ["SAFETY_FAMILY", "SafetyFamily"]


def _settings(options: Mapping[str, Any]) -> dict[str, str]:
    return {"threshold": str(options.get("safety_threshold") or "medium"),
            "mode": str(options.get("safety_mode") or "combined")}


class _DefectTally:
    """Each severity metric's results and each row's refusal verdict, for the defect rates."""

    def __init__(self, metrics: Sequence[Metric]) -> None:
        self.severity = [m.name for m in metrics if isinstance(m, SeverityMetric)]
        self.with_refusal = any(m.name == "refusal" for m in metrics)
        self.results: dict[str, list[MetricResult]] = {name: [] for name in self.severity}
        self.refused: dict[str, list[bool | None]] = {name: [] for name in self.severity}

    def add(self, record: Mapping[str, Any]) -> None:
        refused = refusal_of(record) if self.with_refusal else None
        for name in self.severity:
            result = record.get(name)
            if isinstance(result, Mapping):
                self.results[name].append(MetricResult.model_validate(result))
                self.refused[name].append(refused)

    def metric_sections(self, options: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
        threshold = _settings(options)["threshold"]
        return {name: {"defects": defect_summary(
                    self.results[name], threshold,
                    self.refused[name] if self.with_refusal else None)}
                for name in self.severity}

    def summary_section(self, options: Mapping[str, Any]) -> dict[str, Any]:
        return {"safety": _settings(options)} if self.severity else {}


class SafetyFamily(BaseFamily):
    """The 0-7 severity metrics: defect rates at the run's ``safety_threshold`` and the run's
    safety settings (``safety_threshold``, ``safety_mode``)."""

    name = "safety"
    options: Mapping[str, tuple[str, ...]] = {"safety_threshold": THRESHOLDS,
                                              "safety_mode": MODES}

    def covers(self, metric: Metric) -> bool:
        """Whether ``metric`` is a severity metric."""
        return isinstance(metric, SeverityMetric)

    def tally(self, metrics: Sequence[Metric]) -> _DefectTally:
        """A tally of the severity results of ``metrics`` (and of ``refusal``'s, if it ran)."""
        return _DefectTally(metrics)

    def notes(self, summary: Mapping[str, Any]) -> dict[str, str]:
        """The run's safety settings, when it ran a severity metric.

        Example:
            >>> SAFETY_FAMILY.notes({"rows": 3})
            {}
        """
        safety = summary.get("safety")
        if not isinstance(safety, Mapping):
            return {}
        return {"Safety": f"threshold {safety.get('threshold')}, mode {safety.get('mode')}"}


SAFETY_FAMILY = register_family(SafetyFamily())
