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
from ._registry import (
    AUTO_METRICS,
    REGISTRY,
    MetricPlanner,
    Plan,
    get_metric,
    plan_metrics,
    register,
)

__all__ = [
           "AUTO_METRICS",
           "REGISTRY",
           "FieldMetric",
           "InjectionDetector",
           "InjectionMode",
           "JudgeStyle",
           "Lang",
           "Metric",
           "MetricPlanner",
           "MetricResult",
           "Plan",
           "SafetyMode",
           "ScoreContext",
           "call_failure_cause",
           "get_metric",
           "mean_aggregate",
           "plan_metrics",
           "register",
]
