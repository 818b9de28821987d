"""Metrics: the protocol, the registry, the planner, and the built-in metrics.

Example:
    >>> from assay.metrics import get_metric
    >>> get_metric("f1_score").value_range
    (0.0, 1.0)
"""

# Each subpackage registers its built-in metrics where they are defined (``register``), in
# this order: the order of ``assay metrics``.
from . import judge, rag, embedding, lexical, safety, agent, conversation  # noqa: F401  # isort: skip
from ._base import (
    UNREADABLE,
    Metric,
    MetricResult,
    Unreadable,
    call_failure_cause,
    mean_aggregate,
    unreadable_kind,
    unscored_reason_key,
)
from ._common import UNANSWERABLE, FieldMetric, answerable_flag, is_unanswerable
from ._context import ScoreContext
from ._defaults import REQUIRED_MEMBERS, with_defaults
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
from ._plugins import METRICS_GROUP, MetricInfo, MetricRegistry, metric_kind
from ._registry import (
    AUTO_AGENT_METRICS,
    AUTO_CONVERSATION_METRICS,
    AUTO_METRICS,
    REGISTRY,
    MetricPlanner,
    Plan,
    get_metric,
    list_metrics,
    plan_metrics,
    register,
    similar_metric_names,
)
from ._settings import (
    CORE_SETTINGS,
    Fence,
    InjectionDetector,
    InjectionMode,
    JudgeStyle,
    Lang,
    Reasons,
    ScoringSettings,
    Setting,
    declared_settings,
    family_settings,
)
from ._table import FamilyTable, TableCell
from .safety import SafetyMode

__all__ = [
    "AUTO_AGENT_METRICS",
    "AUTO_CONVERSATION_METRICS",
    "AUTO_METRICS",
    "CORE_SETTINGS",
    "METRICS_GROUP",
    "REGISTRY",
    "REQUIRED_MEMBERS",
    "UNANSWERABLE",
    "UNREADABLE",
    "BaseFamily",
    "FamilyTable",
    "FamilyTally",
    "Fence",
    "FieldMetric",
    "InjectionDetector",
    "InjectionMode",
    "JudgeStyle",
    "Lang",
    "Metric",
    "MetricFamily",
    "MetricInfo",
    "MetricPlanner",
    "MetricRegistry",
    "MetricResult",
    "Plan",
    "Reasons",
    "RowNote",
    "SafetyMode",
    "ScoreContext",
    "ScoringSettings",
    "Setting",
    "TableCell",
    "Unreadable",
    "answerable_flag",
    "call_failure_cause",
    "comparison_tables",
    "declared_settings",
    "families_for",
    "family_options",
    "family_settings",
    "get_metric",
    "is_unanswerable",
    "list_metrics",
    "mean_aggregate",
    "metric_kind",
    "plan_metrics",
    "register",
    "register_family",
    "registered_families",
    "row_notes",
    "similar_metric_names",
    "summary_notes",
    "summary_tables",
    "unreadable_kind",
    "unscored_reason_key",
    "with_defaults",
]

# The pairwise family lives with the custom metrics (its metrics are metric files); it is
# registered here so that a run's pairwise notes do not depend on what was imported first.
from . import custom  # noqa: F401

# isort: split
# Registered last, so that the panel's table comes after the metric families' tables.
from . import _panel_table  # noqa: F401
