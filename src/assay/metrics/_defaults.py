"""The members every metric must have, and the defaults of the optional ones: a plugin's bare
object is completed with :class:`~._base.Metric`'s own (:func:`with_defaults`)."""

from __future__ import annotations

import functools

from ..errors import ConfigError
from ._base import Metric, MetricResult, mean_aggregate  # noqa: F401 - the example's names

__all__ = ["REQUIRED_MEMBERS", "with_defaults"]


#: The members every metric must have (a plugin's object is refused without one).
REQUIRED_MEMBERS = ("name", "version", "required", "conversation", "needs_citations",
                    "higher_is_better", "value_range", "uses_judge", "applies", "score",
                    "aggregate")
#: The optional attributes and methods, whose defaults are :class:`Metric`'s own.
_OPTIONAL_ATTRIBUTES = ("uses_embedder", "embedder_optional", "family", "source", "kind")
_OPTIONAL_METHODS = ("unavailable_reason", "check_rows")


def with_defaults(metric: object) -> Metric:
    """``metric`` with each optional member of :class:`Metric` it lacks set to the protocol's
    default, so that callers read ``metric.uses_embedder`` and call
    ``metric.unavailable_reason()`` whatever the metric's class declares.

    Example:
        >>> class Minimal:
        ...     name, version, required = "minimal", "1", frozenset({"answer"})
        ...     conversation = needs_citations = uses_judge = False
        ...     higher_is_better, value_range = True, (0.0, 1.0)
        ...     def applies(self, row): return None
        ...     async def score(self, row, ctx): return MetricResult(value=1.0)
        ...     def aggregate(self, results): return mean_aggregate(results)
        >>> m = with_defaults(Minimal())
        >>> m.uses_embedder, m.family, m.kind, m.unavailable_reason(), m.check_rows([])
        (False, None, None, None, [])
        >>> isinstance(m, Metric)
        True

    Raises:
        ConfigError: the metric lacks an optional member and takes no new attribute (its
            class has ``__slots__``): the class must then declare it.
    """
    missing = [n for n in (*_OPTIONAL_ATTRIBUTES, *_OPTIONAL_METHODS) if not hasattr(metric, n)]
    try:
        for name in missing:
            default = getattr(Metric, name)
            # a method's default is bound to the metric (a partial pickles, for Ray workers)
            object.__setattr__(metric, name, functools.partial(default, metric)
                               if name in _OPTIONAL_METHODS else default)
    except (AttributeError, TypeError):
        raise ConfigError(
            f"Metric {getattr(metric, 'name', metric)!r} lacks {', '.join(missing)} and takes no "
            "new attribute (__slots__). Fix: declare them in its class (see "
            "assay.metrics.Metric for their defaults).") from None
    return metric  # type: ignore[return-value]
