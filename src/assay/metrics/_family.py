"""Metric families: how a family of metrics (RAG, safety, a plugin's own) adds to a run's
records and summary, without the runner, the report or the web UI naming it.

A family is any object with the :class:`MetricFamily` members. The built-in families register
themselves when their package is imported; a plugin calls :func:`register_family`, or gives
its metric a ``family`` attribute. The runner asks :func:`families_for` which families cover
the run's metrics, adds each family's :meth:`~MetricFamily.row_details` to every record, feeds
every record to the family's :meth:`~MetricFamily.tally`, and merges that tally's sections
(with the run's options) into ``summary.json``. The report and the web UI show :func:`summary_notes` and
:func:`summary_tables` for a run, :func:`comparison_tables` for two, and :func:`row_notes`
for a row.

Example:
    >>> from assay.metrics import families_for, get_metric
    >>> [f.name for f in families_for([get_metric("faithfulness"), get_metric("violence")])]
    ['rag', 'safety']
    >>> families_for([get_metric("f1_score")])
    []
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from ._base import FamilyTally, Metric, MetricFamily, RowNote
from ._settings import Setting, declare_family_settings
from ._table import FamilyTable

__all__ = ["BaseFamily", "FamilyTally", "MetricFamily", "RowNote", "comparison_tables",
           "families_for", "family_options", "register_family", "registered_families",
           "row_notes", "summary_notes", "summary_tables"]


class _NoTally:
    """A tally that keeps nothing and adds nothing."""

    def add(self, record: Mapping[str, Any]) -> None:
        pass

    def metric_sections(self, options: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
        return {}

    def summary_section(self, options: Mapping[str, Any]) -> dict[str, Any]:
        return {}


class BaseFamily:
    """A family that adds nothing: subclass it and override only what your family adds.

    Example:
        >>> class Lengths(BaseFamily):
        ...     name = "lengths"
        ...     def row_details(self, record):
        ...         return {"answer_chars": len(str(record.get("answer", "")))}
        >>> family = Lengths()
        >>> isinstance(family, MetricFamily), family.row_details({"answer": "Paris"})
        (True, {'answer_chars': 5})
        >>> family.tally([]).summary_section({}), family.notes({})
        ({}, {})
    """

    name = "base"
    options: Sequence[Setting[Any]] = ()

    def covers(self, metric: Metric) -> bool:
        """Whether ``metric`` belongs to the family (by default none does: a metric names its
        family in its ``family`` attribute)."""
        return False

    def row_details(self, record: Mapping[str, Any]) -> dict[str, Any]:
        """Keys to add to a row's record (none by default)."""
        return {}

    def tally(self, metrics: Sequence[Metric]) -> FamilyTally:
        """A tally that adds no section (by default)."""
        return _NoTally()

    def notes(self, summary: Mapping[str, Any]) -> dict[str, str]:
        """Lines about the run (none by default)."""
        return {}

    def row_notes(self, record: Mapping[str, Any]) -> dict[str, RowNote]:
        """Notes about a row (none by default)."""
        return {}

    def tables(self, summary: Mapping[str, Any]) -> list[FamilyTable]:
        """Tables of a run (none by default)."""
        return []

    def comparison_tables(self, a: Mapping[str, Any],
                          b: Mapping[str, Any]) -> list[FamilyTable]:
        """Tables comparing two runs (none by default)."""
        return []


_FAMILIES: list[MetricFamily] = []


def register_family(family: MetricFamily) -> MetricFamily:
    """Add ``family`` to the families the runner, the report and the web UI consult (a family
    registered again under the same name replaces the earlier one). Returns it.

    Example:
        >>> register_family(registered_families()[0]) is registered_families()[0]
        True

    Raises:
        ConfigError: the family's ``options`` are not :class:`~assay.metrics.Setting`
            declarations, or declare a setting that a core setting or another family
            declares already.
    """
    declare_family_settings(family.name, family.options)
    for i, known in enumerate(_FAMILIES):
        if known.name == family.name:
            _FAMILIES[i] = family
            return family
    _FAMILIES.append(family)
    return family


def registered_families() -> list[MetricFamily]:
    """Every registered family, in registration order.

    Example:
        >>> [f.name for f in registered_families()][:2]
        ['rag', 'safety']
    """
    return list(_FAMILIES)


def families_for(metrics: Iterable[Metric]) -> list[MetricFamily]:
    """The families that cover at least one of ``metrics``: registered ones in registration
    order, then any a metric names in its own ``family`` attribute."""
    metrics = list(metrics)
    found = [f for f in _FAMILIES if any(f.covers(m) for m in metrics)]
    for metric in metrics:
        own = metric.family
        if own is not None and all(own.name != f.name for f in found):
            found.append(own)
    return found


def family_options() -> dict[str, tuple[str, ...]]:
    """Every setting a registered family declares, with its allowed values (the declarations
    themselves: :func:`~assay.metrics.family_settings`).

    Example:
        >>> family_options()["safety_threshold"]
        ('low', 'medium', 'high')
    """
    return {family_setting.name: family_setting.choices
            for family in _FAMILIES for family_setting in family.options}


def summary_notes(summary: Mapping[str, Any]) -> dict[str, str]:
    """``{heading: text}`` from every registered family's :meth:`~MetricFamily.notes`.

    Example:
        >>> summary_notes({"safety": {"threshold": "high", "mode": "combined"}})
        {'Safety': 'threshold high, mode combined'}
    """
    out: dict[str, str] = {}
    for family in _FAMILIES:
        out.update(family.notes(summary))
    return out


def row_notes(record: Mapping[str, Any]) -> dict[str, RowNote]:
    """``{heading: note}`` from every registered family's :meth:`~MetricFamily.row_notes`.

    Example:
        >>> row_notes({"id": "1", "diagnosis": {"stage": "none", "faithfulness": 1.0}})
        {'diagnosis': RowNote(text='none', values={'faithfulness': 1.0})}
        >>> row_notes({"id": "1", "f1_score": {"value": 1.0}})
        {}
    """
    out: dict[str, RowNote] = {}
    for family in _FAMILIES:
        out.update(family.row_notes(record))
    return out


def summary_tables(summary: Mapping[str, Any]) -> list[FamilyTable]:
    """Every registered family's tables of a run's ``summary``.

    Example:
        >>> summary_tables({"metrics": {"f1_score": {"mean": 1.0}}})
        []
    """
    return [table for family in _FAMILIES for table in family.tables(summary)]


def comparison_tables(a: Mapping[str, Any], b: Mapping[str, Any]) -> list[FamilyTable]:
    """Every registered family's tables comparing the summaries of runs ``a`` and ``b``."""
    return [table for family in _FAMILIES for table in family.comparison_tables(a, b)]
