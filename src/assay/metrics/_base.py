"""The Metric protocol, its per-row result and the default aggregation.

Example:
    >>> r = MetricResult.unscored("row has no context")
    >>> r.value is None, r.error
    (True, 'row has no context')
    >>> mean_aggregate([MetricResult(value=4.0), MetricResult(value=2.0), r])
    {'mean': 3.0, 'scored': 2, 'unscored': 1}
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields
from typing import TYPE_CHECKING, Any, Literal, Protocol, get_args, runtime_checkable

from pydantic import BaseModel, Field, field_validator, model_validator

from .._secrets import mask_secrets
from ..data import Row
from ..errors import ConfigError

if TYPE_CHECKING:
    from ..embeddings import Embedder
    from ..judges import Judge

__all__ = ["UNREADABLE", "InjectionDetector", "InjectionMode", "JudgeStyle", "Lang", "Metric",
           "MetricResult", "Reasons", "SafetyMode", "ScoreContext", "Unreadable", "mean_aggregate",
           "unreadable_kind"]

#: The languages of the rubric templates.
Lang = Literal["en", "zh"]
#: How rubric metrics ask: ``auto`` (verdicts on a local judge, where they rank better),
#: ``rating`` (a 1-5 number) or ``verdict`` (Yes/No, P(yes) mapped onto the scale).
JudgeStyle = Literal["auto", "rating", "verdict"]
#: How the severity metrics ask: one shared request per row, or one per harm category.
SafetyMode = Literal["combined", "separate"]
#: What a run does with a row whose texts address the evaluator (``assay.run`` explains each).
InjectionMode = Literal["mask", "flag", "unscored", "fail"]
#: What finds such rows: the patterns and the learned detector, or the patterns alone.
InjectionDetector = Literal["learned", "patterns"]
#: What could not be read, for an unscored result that counts as a failure of the run (as a
#: failed call does, unlike "does not apply"): the judge ``answer`` (empty, not JSON, the wrong
#: shape, out of range), an answer ``cut`` at ``max_tokens``, or the metric's ``template``
#: (it could not render for the row).
Unreadable = Literal["answer", "cut", "template"]
#: The ``details`` key that marks such a result (its value: an :data:`Unreadable`).
UNREADABLE = "unreadable"
#: Which rows get the judge's reason: every row, none, or (``auto``) on a local judge the rows
#: that fail the metric plus a small sample, on a remote one every row.
Reasons = Literal["auto", "always", "never"]


class MetricResult(BaseModel):
    """One metric's outcome for one row.

    ``value`` is ``None`` when the row is unscored, and then ``error`` says why: never a NaN
    without a reason, never a made-up 0. ``weighted`` is the probability-weighted score where the
    judge gave token probabilities. ``details`` holds metric-specific evidence. ``error`` is
    masked of secrets (it may quote what a provider or a target answered, e.g. a refused key):
    every result file, store and report shows it as masked here.

    Example:
        >>> MetricResult.unscored("judge call failed: Bearer abcdefgh12345678 refused").error
        'judge call failed: Bearer *** refused'
    """

    value: float | None = None
    weighted: float | None = None
    reason: str | None = None
    error: str | None = None
    details: dict[str, Any] = Field(default_factory=dict)

    @field_validator("error")
    @classmethod
    def _masked(cls, error: str | None) -> str | None:
        return None if error is None else mask_secrets(error)

    @model_validator(mode="after")
    def _unscored_has_reason(self) -> MetricResult:
        if self.value is None and not self.error:
            raise ValueError("an unscored result needs an error saying why")
        return self

    @classmethod
    def unscored(cls, why: str, **details: Any) -> MetricResult:
        """An unscored result with its reason (and optional evidence such as the raw answer)."""
        return cls(value=None, error=why, details=details)

    @classmethod
    def unreadable(cls, why: str, what: Unreadable = "answer", **details: Any) -> MetricResult:
        """An unscored result whose judge answer (or template) could not be read: a failure
        of the run, counted with failed calls against ``--max-failed-share``.

        Example:
            >>> r = MetricResult.unreadable("judge answer is not a valid 1-5 score",
            ...                             raw_answer='{"score": 9}')
            >>> r.details, unreadable_kind(r)
            ({'raw_answer': '{"score": 9}', 'unreadable': 'answer'}, 'answer')
        """
        return cls(value=None, error=why, details={**details, UNREADABLE: what})


_CHOICES: dict[str, tuple[str, ...]] = {
    "lang": get_args(Lang), "style": get_args(JudgeStyle), "safety_mode": get_args(SafetyMode),
    "on_injection": get_args(InjectionMode), "injection_detector": get_args(InjectionDetector),
    "reasons": get_args(Reasons)}


@dataclass(frozen=True)
class ScoreContext:
    """What a metric may use while scoring: the (managed) judge and embedder, and the run's
    settings that change how metrics ask (each checked against its allowed values).

    Example:
        >>> ScoreContext(style="verdict").safety_mode
        'combined'
        >>> ScoreContext(style="both")
        Traceback (most recent call last):
        ...
        assay.errors.ConfigError: Got style='both'. Must be one of ['auto', 'rating', 'verdict'].
    """

    judge: Judge | None = None
    lang: Lang = "en"
    embedder: Embedder | None = None
    style: JudgeStyle = "auto"
    safety_mode: SafetyMode = "combined"
    on_injection: InjectionMode = "mask"
    injection_detector: InjectionDetector = "learned"
    reasons: Reasons = "always"

    def __post_init__(self) -> None:
        for f in fields(self):
            choices = _CHOICES.get(f.name)
            value = getattr(self, f.name)
            if choices is not None and value not in choices:
                raise ConfigError(f"Got {f.name}={value!r}. Must be one of {list(choices)}.")


#: A conversation metric wraps a turn's reason: "assistant turn 2 could not be rated: ...".
_TURN_PREFIX = re.compile(r"^assistant turn \d+ could not be \w+: ")
#: How the reason of a result lost to a failed call starts.
_CALL_FAILURES = ("judge call failed", "embedding call failed", "target call failed")


def call_failure_cause(error: str | None) -> str | None:
    """The cause of a result left unscored because a judge, embedding or agent target call
    failed (its kind, up to the second colon, without the provider's message), or None for any other
    reason ("does not apply", an unparsable answer). A conversation turn's prefix is skipped.

    Example:
        >>> call_failure_cause("judge call failed: HTTP 401: Error code: 401 - bad key")
        'judge call failed: HTTP 401'
        >>> call_failure_cause("assistant turn 2 could not be rated: judge call failed: "
        ...                    "server error (500): boom (gave up after 6 attempts)")
        'judge call failed: server error (500)'
        >>> call_failure_cause("judge answer does not start with Yes or No (asked twice)") is None
        True
    """
    if not isinstance(error, str):
        return None
    inner = _TURN_PREFIX.sub("", error)
    if not inner.startswith(_CALL_FAILURES):
        return None
    return ":".join(inner.split(":")[:2])[:120]


def unreadable_kind(result: MetricResult | Mapping[str, Any] | None) -> str | None:
    """What could not be read (an :data:`Unreadable`) for an unscored result marked so (a
    :class:`MetricResult` or its record), else None: a scored result, "does not apply", a
    failed call.

    Example:
        >>> unreadable_kind({"value": None, "error": "x", "details": {"unreadable": "cut"}})
        'cut'
        >>> unreadable_kind(MetricResult.unscored("does not apply: no context")) is None
        True
    """
    details: Any
    if isinstance(result, MetricResult):
        value, details = result.value, result.details
    elif isinstance(result, Mapping):
        value, details = result.get("value"), result.get("details")
    else:
        return None
    kind = details.get(UNREADABLE) if value is None and isinstance(details, Mapping) else None
    return kind if isinstance(kind, str) else None


def unscored_reason_key(error: str) -> str:
    """How unscored reasons are grouped in summaries: a failed judge or embedding call by its
    cause (:func:`call_failure_cause`), any other reason by its text; at most 120 characters.

    Example:
        >>> unscored_reason_key("judge call failed: HTTP 401: Error code: 401 - bad key")
        'judge call failed: HTTP 401'
        >>> unscored_reason_key("does not apply: no context")
        'does not apply: no context'
    """
    return call_failure_cause(error) or error[:120]


def mean_aggregate(results: Sequence[MetricResult]) -> dict[str, Any]:
    """Mean of the scored values, with scored / unscored counts (mean is None if none scored)."""
    values = [r.value for r in results if r.value is not None]
    out: dict[str, Any] = {"mean": round(sum(values) / len(values), 4) if values else None,
                           "scored": len(values), "unscored": len(results) - len(values)}
    weighted = [r.weighted for r in results if r.weighted is not None]
    if weighted:
        out["mean_weighted"] = round(sum(weighted) / len(weighted), 4)
    return out


@runtime_checkable
class Metric(Protocol):
    """A metric: scores one row at a time, then aggregates the results.

    ``required`` names the QA fields it needs; ``conversation`` says whether it also scores
    conversations (``messages``), and ``needs_citations`` whether those need citations.
    """

    name: str
    version: str
    required: frozenset[str]
    conversation: bool
    needs_citations: bool
    higher_is_better: bool
    value_range: tuple[float, float]
    uses_judge: bool

    def applies(self, row: Row) -> str | None:
        """``None`` when the metric can score ``row``, else why it cannot."""
        ...

    async def score(self, row: Row, ctx: ScoreContext) -> MetricResult: ...

    def aggregate(self, results: Sequence[MetricResult]) -> dict[str, Any]: ...
