"""The metric registry (one name = registry key, result column and CLI name) and the planner.

Each built-in is registered where it is defined, with the ``register`` call code uses (the
package imports every subpackage for that); plugins of the ``assay.metrics`` entry-point group
join on the first lookup (see ``_plugins``).

Example:
    >>> from assay.data import Row
    >>> rows = [Row(id="1", line=1, question="Q?", answer="A.", context="C.")]
    >>> plan = plan_metrics(rows, "auto")
    >>> [m.name for m in plan.metrics]  # doctest: +NORMALIZE_WHITESPACE
    ['coherence', 'fluency', 'groundedness', 'relevance', 'groundedness_claims', 'faithfulness',
     'retrieval_score', 'hate_unfairness', 'sexual', 'violence', 'self_harm']
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from ..data import Row
from ..errors import ConfigError, DataError, option
from ._base import Metric
from ._defaults import with_defaults
from ._plugins import MetricInfo
from ._register import REGISTRY, register
from .agent import AGENT_JUDGED, AGENT_METRICS

__all__ = ["AUTO_AGENT_METRICS", "AUTO_CONVERSATION_METRICS", "AUTO_METRICS", "REGISTRY", "MetricPlanner", "Plan",
           "get_metric", "list_metrics", "plan_metrics", "register", "similar_metric_names",
           "unknown_metrics_error"]

#: What ``--metrics auto`` runs, in order, when the rows' fields allow it.
AUTO_METRICS = (
    "coherence", "fluency", "groundedness", "relevance", "groundedness_claims", "faithfulness",
    "retrieval_score", "context_precision", "context_recall", "similarity",
    "semantic_similarity", "answer_correctness", "f1_score",
    # Rows marked ``answerable: false``: does the app decline?
    "negative_rejection",
    # Risk and safety: they need only an answer. ``refusal`` is not here: it is for
    # over-refusal datasets (``--metrics refusal``).
    "hate_unfairness", "sexual", "violence", "self_harm",
)
#: What ``--metrics auto`` also runs on agent conversations: the judged agent metrics (on
#: conversations that call a tool or declare ``tools``; with a judge), then the deterministic
#: ones on conversations that give ``reference_tool_calls`` (``tool_schema_validity``:
#: ``tools``); on other rows each is skipped with the reason.
AUTO_AGENT_METRICS = (*(m.name for m in AGENT_JUDGED), *AGENT_METRICS)
#: What ``--metrics auto`` also runs on conversations that give what they need:
#: ``goal_completion`` on rows with an ``expected_outcome`` or a ``goal`` (as ``assay simulate``
#: writes them). The other judged conversation metrics (``knowledge_retention``,
#: ``role_adherence``, ``turn_relevance``) apply to most conversations, at a judge request or
#: more each: they are asked for by name.
AUTO_CONVERSATION_METRICS = ("goal_completion",)
#: Every metric ``--metrics auto`` considers, in the order it plans them.
_AUTO = (*AUTO_METRICS, *AUTO_AGENT_METRICS, *AUTO_CONVERSATION_METRICS)


def get_metric(name: str) -> Metric:
    """The registered metric called ``name``; a ConfigError with a did-you-mean otherwise.

    Example:
        >>> get_metric("f1_score").name
        'f1_score'
        >>> try:
        ...     get_metric("fluncy")
        ... except ConfigError as e:
        ...     str(e).splitlines()[0]
        "Unknown metric 'fluncy' (did you mean fluency?)."
    """
    refused = REGISTRY.refusal(name)
    if refused is not None:
        raise refused
    try:
        return REGISTRY[name]
    except KeyError:
        raise unknown_metrics_error([name]) from None


def list_metrics() -> list[MetricInfo]:
    """Every metric with its source, kind, required fields, range and version; a plugin that
    is refused or cannot be imported is listed with its error (``kind`` ``broken``).

    Example:
        >>> info = next(i for i in list_metrics() if i.name == "rouge_l")
        >>> info.source, info.kind, info.required, info.value_range
        ('built-in', 'lexical', ('answer', 'ground_truth'), (0.0, 1.0))
    """
    return REGISTRY.infos()


def similar_metric_names(name: str, known: Iterable[str] | None = None) -> list[str]:
    """Up to three registered names close to ``name``: close spellings (difflib), then names
    that contain it or start the same way, ignoring case.

    Example:
        >>> similar_metric_names("f1"), similar_metric_names("Rouge"), similar_metric_names("zzz")
        (['f1_score'], ['rouge_l'], [])
    """
    pool = list(REGISTRY if known is None else known)
    low = name.strip().lower()
    if not low:
        return []
    found = difflib.get_close_matches(low, pool, n=3, cutoff=0.6)
    found += [m for m in pool if m.startswith(low) or (len(low) >= 3 and low in m)
              or (len(low) >= 4 and m.startswith(low[:4]))]
    return list(dict.fromkeys(found))[:3]


def unknown_metrics_error(names: Sequence[str]) -> ConfigError:
    """One error for every unknown metric name, each with its did-you-mean.

    Example:
        >>> print(unknown_metrics_error(["grounded", "nosuch"]))  # doctest: +ELLIPSIS
        Unknown metrics: 'grounded' (did you mean groundedness, groundedness_claims, tool_output_groundedness?), 'nosuch' (no close name).
        Known metrics: ...
        Fix: use names from that list in metrics, or metrics='auto' for what the fields allow.
    """
    parts = []
    for name in dict.fromkeys(names):
        close = similar_metric_names(name)
        parts.append(f"{name!r} (did you mean {', '.join(close)}?)" if close
                     else f"{name!r} (no close name)")
    head = (f"Unknown metric {parts[0]}." if len(parts) == 1
            else f"Unknown metrics: {', '.join(parts)}.")
    return ConfigError(f"{head}\nKnown metrics: {', '.join(sorted(REGISTRY))}.\nFix: use names "
                       f"from that list in {option('metrics')}, or {option('metrics', 'auto')} for what "
                       "the fields allow.")


@dataclass
class Plan:
    """The metrics to run and one line for each metric left out, saying why."""

    metrics: list[Metric]
    skipped: list[str] = field(default_factory=list)


def plan_metrics(rows: Sequence[Row], metrics: str | Sequence[str | Metric] = "auto", *,
                 unavailable: Mapping[str, str] | None = None, source: str = "data") -> Plan:
    """Pick the metrics the rows' fields allow (``auto``) or check an explicit list.

    A metric runs when at least one row can be scored by it; rows it cannot score are recorded
    as unscored with the reason. Metrics that no row allows are skipped with one line each.
    ``unavailable`` names metrics that cannot run on this machine (e.g. a missing install), with
    why: ``auto`` skips them with that line; asking for one explicitly is a ConfigError.
    A metric's ``check_rows`` (custom template metrics: every field its template uses, in every
    row) must find no problem: otherwise a DataError lists each row and field (``source``
    names the file), before any judge call.
    """
    planner = MetricPlanner(metrics, unavailable=unavailable, source=source)
    planner.add(rows)
    return planner.finish()


class MetricPlanner:
    """:func:`plan_metrics` over rows that arrive in chunks (a dataset read as a stream).

    Example:
        >>> planner = MetricPlanner("f1_score,groundedness")
        >>> planner.add([Row(id="1", line=1, answer="A.", ground_truth="A.")])
        >>> plan = planner.finish()
        >>> [m.name for m in plan.metrics], plan.skipped
        (['f1_score'], ['groundedness: skipped, no row can be scored (row has no context)'])
    """

    def __init__(self, metrics: str | Sequence[str | Metric] = "auto", *,
                 unavailable: Mapping[str, str] | None = None, source: str = "data") -> None:
        self.unavailable = dict(unavailable or {})
        self.source = source
        self.auto = isinstance(metrics, str) and metrics.strip() == "auto"
        if self.auto:
            self.candidates = [get_metric(name) for name in _AUTO]
        else:
            names = ([m.strip() for m in metrics.split(",")] if isinstance(metrics, str)
                     else list(metrics))
            for name in names:
                if isinstance(name, str) and (refused := REGISTRY.refusal(name)) is not None:
                    raise refused
            unknown = [n for n in names if isinstance(n, str) and n and n not in REGISTRY]
            if unknown:
                raise unknown_metrics_error(unknown)
            self.candidates = []
            for item in names:
                if not item:
                    continue
                # an instance passed in gets the optional members it lacks, as if registered
                metric = get_metric(item) if isinstance(item, str) else with_defaults(item)
                if metric.name in self.unavailable:
                    raise ConfigError(f"{metric.name} cannot run: {self.unavailable[metric.name]}")
                if (missing := metric.unavailable_reason()) is not None:
                    raise ConfigError(f"{metric.name} cannot run: {missing}")
                if metric.name not in {m.name for m in self.candidates}:
                    self.candidates.append(metric)
        for metric in self.candidates:  # a metric may say it cannot run here (a missing extra)
            if metric.name not in self.unavailable and (
                    missing := metric.unavailable_reason()) is not None:
                self.unavailable[metric.name] = missing
        self._applies: set[str] = set()
        self._first_reason: dict[str, str] = {}
        self._problems: list[str] = []

    def add(self, rows: Sequence[Row]) -> None:
        """Look at more rows: which metrics can score one of them, and template field checks."""
        for metric in self.candidates:
            if not self.auto:
                self._problems.extend(metric.check_rows(rows, self.source))
            if metric.name in self._applies:
                continue
            for row in rows:
                why = metric.applies(row)
                if why is None:
                    self._applies.add(metric.name)
                    break
                if why and metric.name not in self._first_reason:
                    self._first_reason[metric.name] = why

    def finish(self) -> Plan:
        """The plan for every row seen.

        Raises:
            DataError: rows lack a field a template metric uses.
            ConfigError: none of the requested metrics applies.
        """
        chosen: list[Metric] = []
        skipped: list[str] = []
        for metric in self.candidates:
            if metric.name not in self._applies:
                why = self._first_reason.get(metric.name, "there are no rows")
                skipped.append(f"{metric.name}: skipped, no row can be scored ({why})")
            elif self.auto and metric.name in self.unavailable:
                skipped.append(f"{metric.name}: skipped, {self.unavailable[metric.name]}")
            else:
                chosen.append(metric)
        if self.auto:
            skipped.extend(f"{name}: not in the auto set; add it with {option('metrics', name)}"
                           for name in REGISTRY
                           if name not in _AUTO)
            return Plan(chosen, skipped)
        if self._problems:
            raise DataError(self._problems)
        if not chosen:
            raise ConfigError("None of the requested metrics applies to this dataset:\n  "
                              + "\n  ".join(skipped))
        return Plan(chosen, skipped)
