"""The typed ``summary.json``: :class:`RunSummary` with one :class:`MetricSummary` per metric.

``summary.json`` is written from these models (``model_dump(mode="json")``, keys the run did
not set left out), and carries ``schema_version``. Sections that a metric family adds (the
safety ``defects``, a custom metric's ``labels``, pairwise win rates, RAG ``diagnosis``) are
kept as extra keys: the models allow them. The JSON Schema is in ``docs/summary.schema.json``
(:func:`summary_json_schema`): ``tests/test_summary_schema.py`` fails while the committed
file is stale, and writes it again when run with ``ASSAY_WRITE_SCHEMA=1``.

Example:
    >>> from assay.run import evaluate
    >>> result = evaluate([{"answer": "Paris", "ground_truth": "Paris"},
    ...                    {"answer": "Lyon", "ground_truth": "Paris"}], metrics="exact_match")
    >>> typed = result.run_summary
    >>> typed.schema_version, typed.metrics["exact_match"].mean, typed.metrics["exact_match"].ci95
    (1, 0.5, (0.0, 1.0))
    >>> result.summary["metrics"]["exact_match"]["se"]
    0.5
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from ._cost_summary import CostSummary
from ._latency_summary import LatencySummary

__all__ = ["SCHEMA_VERSION", "MetricSummary", "RunSummary", "summary_json_schema",
           "typed_summary"]

log = logging.getLogger("assay")

#: Version of the ``summary.json`` layout. 1: the first typed one, with ``se`` and ``ci95``
#: (summaries written before it have no ``schema_version``; they read as 0).
SCHEMA_VERSION = 1


class MetricSummary(BaseModel):
    """One metric's aggregate: its mean over the scored rows with the mean's standard error and
    95% bootstrap interval (over ``scored`` rows), the scored and unscored counts, and why rows
    were unscored. A family's own keys (``defects``, ``labels``, win rates, ...) are kept.

    Example:
        >>> m = MetricSummary(mean=0.5, se=0.5, ci95=(0.0, 1.0), scored=2, unscored=0)
        >>> m.model_dump(mode="json", exclude_unset=True)
        {'mean': 0.5, 'se': 0.5, 'ci95': [0.0, 1.0], 'scored': 2, 'unscored': 0}
    """

    model_config = ConfigDict(extra="allow")

    mean: float | None = Field(None, description="Mean of the scored values; null if none.")
    se: float | None = Field(None, description=(
        "Standard error of the mean (sample sd / sqrt(scored)); null under 2 scored rows."))
    ci95: tuple[float, float] | None = Field(None, description=(
        "95% percentile-bootstrap interval of the mean [low, high] (2000 resamples of the "
        "scored rows, seed 0); null under 2 scored rows."))
    ci_note: str | None = Field(None, description=(
        "Why se / ci95 are null, or that a normal interval replaced the bootstrap."))
    scored: int | None = Field(None, description="Rows with a value (the interval's n).")
    unscored: int | None = Field(None, description="Rows left unscored, each with a reason.")
    mean_weighted: float | None = Field(None, description=(
        "Mean of the probability-weighted scores, where the judge gave token probabilities."))
    unscored_reasons: dict[str, int] | None = Field(None, description=(
        "Unscored rows by reason (a failed call by its cause)."))
    unreadable: int | None = Field(None, description=(
        "Of the unscored rows, those whose judge answer could not be read (empty, not JSON, "
        "the wrong shape, out of range, cut at max_tokens) or whose template could not "
        "render: failures, counted against --max-failed-share."))
    retest: RetestSummary | None = Field(None, description=(
        "Test-retest figures of a judge metric asked several times per row (--repeat)."))


class RetestSummary(BaseModel):
    """A judge metric asked several times per row (``--repeat K``): how often the judge gives
    a row the same score again, and how far its scores spread."""

    model_config = ConfigDict(extra="allow")

    repeats: int = Field(description="K: how many times the metric was asked per row.")
    rows: int = Field(description="Rows with two scored repeats or more (the figures' n).")
    agreement: float | None = Field(None, description=(
        "Share of those rows whose scored repeats are all equal; left out for values that are "
        "not whole numbers (agreement_note says so)."))
    agreement_note: str | None = None
    within_row_sd: float | None = Field(None, description=(
        "Mean over those rows of the sample standard deviation of their repeats (left out "
        "for labels)."))
    alpha: float | None = Field(None, description=(
        "Krippendorff's alpha with each repeat as a rater; null when undefined "
        "(alpha_note says why)."))
    alpha_level: str | None = Field(None, description="interval (numbers) or nominal (labels).")
    alpha_note: str | None = None
    unscored_repeats: int = Field(0, description=(
        "Repeats left unscored in rows that their other repeats scored."))
    failed_repeats: int = Field(0, description=(
        "Of those, repeats whose call failed or whose answer could not be read (counted "
        "against --max-failed-share)."))
    failed_repeat_causes: dict[str, int] | None = Field(None, description=(
        "The failed repeats' call failures by cause."))


class MetricFailures(BaseModel):
    """One metric's rows lost to failed judge or embedding calls, or to answers that could
    not be read."""

    failed: int = Field(description="Rows lost to failed calls.")
    unreadable: int = Field(0, description=(
        "Rows whose judge answer could not be read or whose template could not render."))
    applicable: int
    share: float = Field(description=(
        "(failed + unreadable) / applicable; for a metric asked K times per row, "
        "(K x (failed + unreadable) + failed_repeats) / (K x applicable)."))
    failed_repeats: int | None = Field(None, description=(
        "Repeats (--repeat) whose call failed or whose answer could not be read, in rows "
        "that the other repeats scored."))


class CallFailures(BaseModel):
    """Rows lost to failed calls (per metric, and by cause) or to unreadable answers (per
    metric, by reason)."""

    by_metric: dict[str, MetricFailures]
    causes: dict[str, int]
    unreadable: dict[str, dict[str, int]] = Field(default_factory=dict, description=(
        "Per metric, the reasons its judge answers could not be read, with their rows."))


class UnknownLanguage(BaseModel):
    """Rows with a text the learned detector reads (answer, assistant turn, pairwise baseline)
    in a language the injection defence does not know (it knows en, zh, es, fr, de, pt, ja,
    ko, ru): it is thinner there."""

    rows: int = Field(description="Rows with such a text (each marked injection_language).")
    languages: dict[str, int] = Field(description=(
        "Rows per language (ISO 639-1 code, as py3langid identifies it)."))


class InjectionSummary(BaseModel):
    """What was done with texts addressed to the evaluator, and how many rows had them."""

    mode: str
    flagged_rows: int
    kinds: dict[str, int]
    unknown_language: UnknownLanguage | None = Field(None, description=(
        "Rows whose judged texts are in a language the detector does not know."))


class ServiceUsage(BaseModel):
    """A judge's or embedder's id and counters (requests, tokens, retries, ...)."""

    model_config = ConfigDict(extra="allow")

    id: str | None = None


class JudgeUsage(ServiceUsage):
    """The judge's id and counters; the token counts, typed (the rest as they come)."""

    prompt_tokens: int | None = Field(None, description=(
        "Prompt tokens sent to the judge (answers from assay's own cache not counted)."))
    completion_tokens: int | None = Field(None, description="Tokens the judge generated.")
    processed_prompt_tokens: int | None = Field(None, description=(
        "Of prompt_tokens, those the judge's backend computed (the rest came from its prompt "
        "cache); absent when the backend does not say."))


class PanelJudgeAgreement(BaseModel):
    """One judge of a panel on one metric: its agreement with the panel's values."""

    alpha: float | None = Field(None, description=(
        "Krippendorff's alpha between this judge's values and the panel's; null when "
        "undefined (alpha_note says why)."))
    alpha_note: str | None = None
    scored: int = Field(description="Rows this judge scored.")
    failed: int = Field(description="Rows this judge lost to failed calls.")


class PanelMetricAgreement(BaseModel):
    """How the judges of a panel agree on one metric."""

    level: str = Field(description="interval (numeric scores) or nominal (labels).")
    rows: int = Field(description="Rows the panel was asked.")
    alpha: float | None = Field(None, description=(
        "Krippendorff's alpha across the judges (a failed answer is a missing value); null "
        "when undefined (alpha_note says why)."))
    alpha_note: str | None = None
    judges: dict[str, PanelJudgeAgreement]


class PanelSummary(BaseModel):
    """A panel of judges: agreement per judge metric, and what each judge did and cost."""

    model_config = ConfigDict(extra="allow")

    agreement: dict[str, PanelMetricAgreement]
    usage: dict[str, dict[str, Any]] | None = Field(None, description=(
        "Per judge: requests, cache_hits, prompt_tokens, completion_tokens, failed, retries, "
        "rate_limited, and cost_usd (null where the judge's price is unknown)."))


class RunSummary(BaseModel):
    """A run's ``summary.json``: what ran on which data, each metric's aggregate, failures,
    injection counts, the judge's usage and the time taken. A family's sections (``safety``
    settings, RAG ``diagnosis``) and keys added later (``run_id``, a calibration's agreement)
    are kept.

    Example:
        >>> s = RunSummary(rows=1, rows_done=1, complete=True, dataset="<rows>", lang="en",
        ...                metrics={"f1_score": MetricSummary(mean=1.0, scored=1, unscored=0)})
        >>> s.schema_version, s.metrics["f1_score"].se is None
        (0, True)
    """

    model_config = ConfigDict(extra="allow")

    schema_version: int = Field(0, description=(
        f"Layout version ({SCHEMA_VERSION} now); 0 for summaries written before versions."))
    rows: int = Field(description="Rows in the dataset.")
    rows_done: int = Field(description="Rows with a record (fewer when interrupted).")
    complete: bool
    dataset: str
    dataset_sha256: str | None = None
    metric_versions: dict[str, str] = Field(default_factory=dict)
    prompt_sha256: dict[str, str] = Field(default_factory=dict)
    lang: str
    metrics: dict[str, MetricSummary]
    failures: CallFailures | None = None
    injection: InjectionSummary | None = None
    skipped: list[str] = Field(default_factory=list)
    judge: JudgeUsage | None = None
    embeddings: ServiceUsage | None = None
    panel: PanelSummary | None = Field(None, description=(
        "With a panel of judges: each judge's agreement with the panel and its usage."))
    cost: CostSummary | None = Field(None, description=(
        "What the judge calls cost: total, per metric, per judge (null dollars when a price "
        "is unknown, with the reason)."))
    latency: LatencySummary | None = Field(None, description=(
        "Seconds per row, p50 / p95, of the judge (and per judge metric) and of the app; "
        "absent when no row called either."))
    elapsed_s: float | None = None
    run_id: str | None = None
    config: str | None = Field(None, description=(
        "The config file (pyproject.toml [tool.assay] or assay.toml) that gave `assay run` "
        "option values; absent when none did."))

    def as_json(self) -> dict[str, Any]:
        """The summary as ``summary.json`` holds it (keys the run did not set left out)."""
        return self.model_dump(mode="json", exclude_unset=True)


def typed_summary(summary: Mapping[str, Any]) -> dict[str, Any]:
    """A run's summary checked through :class:`RunSummary`, stamped with the current
    ``schema_version``, as the plain JSON mapping that ``summary.json`` holds. A summary that
    does not fit (a plugin's aggregate of the wrong types) is kept as it is, with a warning:
    a finished run is never lost to its summary's shape.

    Example:
        >>> s = typed_summary({"rows": 0, "rows_done": 0, "complete": True, "dataset": "d",
        ...                    "lang": "en", "metrics": {}})
        >>> s["schema_version"]
        1
    """
    stamped = {"schema_version": SCHEMA_VERSION, **summary}
    try:
        return RunSummary.model_validate(stamped).as_json()
    except ValidationError as e:  # e.g. a plugin's aggregate with a text mean: keep the run
        log.warning("the run's summary does not fit RunSummary (%s); written as it is",
                    "; ".join(f"{'.'.join(map(str, err['loc']))}: {err['msg']}"
                              for err in e.errors()[:3]))
        return stamped


def summary_json_schema() -> dict[str, Any]:
    """The JSON Schema of ``summary.json`` (as committed in ``docs/summary.schema.json``).

    Example:
        >>> summary_json_schema()["title"]
        'RunSummary'
    """
    schema = RunSummary.model_json_schema()
    return {"$schema": "https://json-schema.org/draft/2020-12/schema", **schema}

