"""The metric registry (one name = registry key, result column and CLI name) and the planner.

Example:
    >>> from assay.data import Row
    >>> rows = [Row(id="1", line=1, question="Q?", answer="A.", context="C.")]
    >>> plan = plan_metrics(rows, "auto")
    >>> [m.name for m in plan.metrics]  # doctest: +NORMALIZE_WHITESPACE
    ['coherence', 'fluency', 'groundedness', 'relevance', 'groundedness_claims', 'faithfulness',
     'retrieval_score', 'hate_unfairness', 'sexual', 'violence', 'self_harm']
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from ..data import Row
from ..errors import ConfigError, DataError
from ._base import Metric
from .embedding import SemanticSimilarity
from .judge import COHERENCE, FLUENCY, GROUNDEDNESS, RELEVANCE, SIMILARITY
from .lexical import BleuScore, ExactMatch, F1Score, RougeL
from .rag import (
    AnswerCorrectness,
    ContextPrecision,
    ContextRecall,
    Faithfulness,
    GroundednessClaims,
    RetrievalScore,
)
from .safety import HATE_UNFAIRNESS, REFUSAL, SELF_HARM, SEXUAL, VIOLENCE

__all__ = ["AUTO_METRICS", "REGISTRY", "Plan", "get_metric", "plan_metrics", "register"]

REGISTRY: dict[str, Metric] = {}

#: What ``--metrics auto`` runs, in order, when the rows' fields allow it.
AUTO_METRICS = (
    "coherence", "fluency", "groundedness", "relevance", "groundedness_claims", "faithfulness",
    "retrieval_score", "context_precision", "context_recall", "similarity",
    "semantic_similarity", "answer_correctness", "f1_score",
    # Risk and safety: they need only an answer. ``refusal`` is not here: it is for
    # over-refusal datasets (``--metrics refusal``).
    "hate_unfairness", "sexual", "violence", "self_harm",
)


def register(metric: Metric) -> Metric:
    """Add a metric to the registry (built-ins are registered the same way as plugins)."""
    if not metric.name.isidentifier():
        raise ConfigError(f"Got metric name {metric.name!r}. Must be a Python identifier.")
    REGISTRY[metric.name] = metric
    return metric


for _m in (COHERENCE, FLUENCY, GROUNDEDNESS, RELEVANCE, SIMILARITY,
           GroundednessClaims(), Faithfulness(), RetrievalScore(), ContextPrecision(),
           ContextRecall(),
           AnswerCorrectness(), SemanticSimilarity(), F1Score(), ExactMatch(), BleuScore(),
           RougeL(), HATE_UNFAIRNESS, SEXUAL, VIOLENCE, SELF_HARM, REFUSAL):
    register(_m)  # type: ignore[arg-type]


def get_metric(name: str) -> Metric:
    """The registered metric called ``name``; a ConfigError lists the known names otherwise."""
    try:
        return REGISTRY[name]
    except KeyError:
        raise ConfigError(f"Unknown metric {name!r}. Known metrics: {', '.join(sorted(REGISTRY))}"
                          ) from None


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
    A metric with a ``check_rows`` method (custom template metrics) must find every field its
    template uses in every row: otherwise a DataError lists each row and field (``source``
    names the file), before any judge call.
    """
    unavailable = unavailable or {}
    if isinstance(metrics, str) and metrics.strip() == "auto":
        return _auto(rows, unavailable)
    names = [m.strip() for m in metrics.split(",")] if isinstance(metrics, str) else list(metrics)
    chosen: list[Metric] = []
    skipped: list[str] = []
    problems: list[str] = []
    for item in names:
        if not item:
            continue
        metric = get_metric(item) if isinstance(item, str) else item
        if metric.name in unavailable:
            raise ConfigError(f"{metric.name} cannot run: {unavailable[metric.name]}")
        check_rows = getattr(metric, "check_rows", None)
        if check_rows is not None:
            problems.extend(check_rows(rows, source))
        why = _why_not(metric, rows)
        if why:
            skipped.append(f"{metric.name}: skipped, {why}")
        elif metric.name not in {m.name for m in chosen}:
            chosen.append(metric)
    if problems:
        raise DataError(problems)
    if not chosen:
        raise ConfigError("None of the requested metrics applies to this dataset:\n  "
                          + "\n  ".join(skipped))
    return Plan(chosen, skipped)


def _auto(rows: Sequence[Row], unavailable: Mapping[str, str]) -> Plan:
    chosen: list[Metric] = []
    skipped: list[str] = []
    for name in AUTO_METRICS:
        metric = REGISTRY[name]
        why = _why_not(metric, rows)
        if why:
            skipped.append(f"{name}: skipped, {why}")
        elif name in unavailable:
            skipped.append(f"{name}: skipped, {unavailable[name]}")
        else:
            chosen.append(metric)
    for name, metric in REGISTRY.items():
        if name not in AUTO_METRICS:
            skipped.append(f"{name}: not in the auto set; add it with --metrics {name}")
    return Plan(chosen, skipped)


def _why_not(metric: Metric, rows: Sequence[Row]) -> str | None:
    reasons = [metric.applies(r) for r in rows]
    if any(r is None for r in reasons):
        return None
    first = next((r for r in reasons if r), "there are no rows")
    return f"no row can be scored ({first})"
