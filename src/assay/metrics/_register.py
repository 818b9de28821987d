"""The one metric registry of the process, and ``register``: the call each built-in metric's
module makes where the metric is defined, and the one a plugin's or a user's code makes.

Example:
    >>> REGISTRY.source("exact_match")  # registered in assay.metrics.lexical._overlap
    'built-in'
"""

from __future__ import annotations

from ._base import Metric
from ._plugins import MetricRegistry

__all__ = ["REGISTRY", "register"]

#: Every metric by name: built-ins (each registered where it is defined, with
#: :func:`register`), metrics registered in code, entry-point plugins.
REGISTRY = MetricRegistry()


def register(metric: Metric, *, replace: bool = False) -> Metric:
    """Add a metric to the registry (a built-in calls it where the metric is defined).

    A name already taken (built-in, registered or a plugin's) is a ConfigError, unless
    ``replace`` says the replacement is on purpose.

    Example:
        >>> from assay.errors import ConfigError
        >>> from assay.metrics.lexical import F1Score
        >>> try:
        ...     register(F1Score())
        ... except ConfigError as e:
        ...     str(e).split(". ")[0]
        "Metric 'f1_score' is already registered (built-in)"
    """
    return REGISTRY.register(metric, replace=replace)
