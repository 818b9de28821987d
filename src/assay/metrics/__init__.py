"""Metrics: the protocol, the registry, the planner, and the built-in metrics.

Example:
    >>> from assay.metrics import get_metric
    >>> get_metric("f1_score").value_range
    (0.0, 1.0)
"""

from ._base import (
    Metric,
    MetricResult,
    ScoreContext,
    call_failure_cause,
    mean_aggregate,
    unscored_reason_key,
)
from ._common import FieldMetric
from ._family import (
    BaseFamily,
    FamilyTally,
    MetricFamily,
    RowNote,
    comparison_tables,
    families_for,
    family_options,
    register_family,
    registered_families,
    row_notes,
    summary_notes,
    summary_tables,
)
from ._registry import (
    AUTO_METRICS,
    REGISTRY,
    MetricPlanner,
    Plan,
    get_metric,
    plan_metrics,
    register,
)
from ._table import FamilyTable, TableCell

__all__ = [
           "AUTO_METRICS",
           "REGISTRY",
           "BaseFamily",
           "FamilyTable",
           "FamilyTally",
           "FieldMetric",
           "Metric",
           "MetricFamily",
           "MetricPlanner",
           "MetricResult",
           "Plan",
           "RowNote",
           "ScoreContext",
           "TableCell",
           "call_failure_cause",
           "comparison_tables",
           "families_for",
           "family_options",
           "get_metric",
           "mean_aggregate",
           "plan_metrics",
           "register",
           "register_family",
           "registered_families",
           "row_notes",
           "summary_notes",
           "summary_tables",
           "unscored_reason_key",
]
