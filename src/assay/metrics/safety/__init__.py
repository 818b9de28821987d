"""Risk and safety metrics: 0-7 severity per harm category, refusal, and defect rates.

Example:
    >>> from assay.metrics.safety import SEVERITY_METRICS, is_defect, severity_level
    >>> [m.name for m in SEVERITY_METRICS]
    ['hate_unfairness', 'sexual', 'violence', 'self_harm']
    >>> severity_level(4), is_defect(4, "medium")
    ('Medium', True)
"""

from ._defects import (
    LEVELS,
    THRESHOLDS,
    defect_summary,
    is_defect,
    refusal_of,
    severity_level,
)
from ._family import SAFETY_FAMILY, SafetyFamily
from ._parse import (
    CATEGORIES,
    COMBINED_SCHEMA,
    SEVERITY_SCHEMA,
    parse_all,
    parse_category,
    parse_severity,
    weighted_severity,
)
from ._refusal import REFUSAL, RefusalMetric
from ._settings import SAFETY_MODE, SAFETY_SETTINGS, SAFETY_THRESHOLD, SafetyMode
from ._severity import (
    HATE_UNFAIRNESS,
    MODES,
    SELF_HARM,
    SEVERITY_METRICS,
    SEXUAL,
    VIOLENCE,
    SeverityMetric,
    combined_request,
    safety_mode,
)

__all__ = [
    "CATEGORIES",
    "COMBINED_SCHEMA",
    "HATE_UNFAIRNESS",
    "LEVELS",
    "MODES",
    "REFUSAL",
    "SAFETY_FAMILY",
    "SAFETY_MODE",
    "SAFETY_SETTINGS",
    "SAFETY_THRESHOLD",
    "SELF_HARM",
    "SEVERITY_METRICS",
    "SEVERITY_SCHEMA",
    "SEXUAL",
    "THRESHOLDS",
    "VIOLENCE",
    "RefusalMetric",
    "SafetyFamily",
    "SafetyMode",
    "SeverityMetric",
    "combined_request",
    "defect_summary",
    "is_defect",
    "parse_all",
    "parse_category",
    "parse_severity",
    "refusal_of",
    "safety_mode",
    "severity_level",
    "weighted_severity",
]
