"""Metrics: the protocol, the registry, the planner, and the built-in metrics.

Example:
    >>> from assay.metrics import get_metric
    >>> get_metric("f1_score").value_range
    (0.0, 1.0)
"""

from ._base import (
    InjectionDetector,
    InjectionMode,
    JudgeStyle,
    Lang,
    Metric,
    MetricResult,
    SafetyMode,
    ScoreContext,
    call_failure_cause,
    mean_aggregate,
)
from ._common import FieldMetric
from ._plugins import METRICS_GROUP, MetricInfo, MetricRegistry, metric_kind
from ._registry import (
    AUTO_METRICS,
    REGISTRY,
    MetricPlanner,
    Plan,
    get_metric,
    list_metrics,
    plan_metrics,
    register,
)

__all__ = [
    "AUTO_METRICS",
    "METRICS_GROUP",
    "REGISTRY",
    "FieldMetric",
    "InjectionDetector",
    "InjectionMode",
    "JudgeStyle",
    "Lang",
    "Metric",
    "MetricInfo",
    "MetricPlanner",
    "MetricRegistry",
    "MetricResult",
    "Plan",
    "SafetyMode",
    "ScoreContext",
    "call_failure_cause",
    "get_metric",
    "list_metrics",
    "mean_aggregate",
    "metric_kind",
    "plan_metrics",
    "register",
]
