"""The Metric protocol, its per-row result and the default aggregation; the MetricFamily
protocol (a metric names its family, a family covers metrics: the two live here together).

Example:
    >>> r = MetricResult.unscored("row has no context")
    >>> r.value is None, r.error
    (True, 'row has no context')
    >>> mean_aggregate([MetricResult(value=4.0), MetricResult(value=2.0), r])
    {'mean': 3.0, 'scored': 2, 'unscored': 1}
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Literal, NamedTuple, Protocol, runtime_checkable

from pydantic import BaseModel, Field, field_validator, model_validator

from .._secrets import mask_secrets
from ..asking import Unanswered
from ..data import Row
from ._context import ScoreContext
from ._settings import Setting
from ._table import FamilyTable
from ._unscored import call_failure_cause, unscored_reason_key

__all__ = ["UNREADABLE", "FamilyTally", "Metric", "MetricFamily",
           "MetricResult", "RowNote", "ScoreContext", "Unreadable", "call_failure_cause",
           "mean_aggregate", "unreadable_kind", "unscored_reason_key"]

#: What could not be read, for an unscored result that counts as a failure of the run (as a
#: failed call does, unlike "does not apply"): the judge ``answer`` (empty, not JSON, the wrong
#: shape, out of range), an answer ``cut`` at ``max_tokens``, or the metric's ``template``
#: (it could not render for the row).
Unreadable = Literal["answer", "cut", "template"]
#: The ``details`` key that marks such a result (its value: an :data:`Unreadable`).
UNREADABLE = "unreadable"


class MetricResult(BaseModel):
    """One metric's outcome for one row.

    ``value`` is ``None`` when the row is unscored, and then ``error`` says why: never a NaN
    without a reason, never a made-up 0. ``weighted`` is the probability-weighted score where the
    judge gave token probabilities. ``details`` holds metric-specific evidence. ``error`` is
    masked of secrets (it may quote what a provider or a target answered, e.g. a refused key):
    every result file, store and report shows it as masked here. ``repeats``: a judge metric
    asked several times (``assay run --repeat K``), each repeat's value in order (``None``
    for one left unscored); ``value`` is then their mean. ``None`` (and left out of the
    record) when the metric was asked once.

    Example:
        >>> MetricResult.unscored("judge call failed: Bearer abcdefgh12345678 refused").error
        'judge call failed: Bearer *** refused'
    """

    value: float | None = None
    weighted: float | None = None
    reason: str | None = None
    error: str | None = None
    details: dict[str, Any] = Field(default_factory=dict)
    repeats: list[float | None] | None = None

    @field_validator("error")
    @classmethod
    def _masked(cls, error: str | None) -> str | None:
        return None if error is None else mask_secrets(error)

    @model_validator(mode="after")
    def _unscored_has_reason(self) -> MetricResult:
        if self.value is None and not self.error:
            raise ValueError("an unscored result needs an error saying why")
        return self

    def as_record(self) -> dict[str, Any]:
        """The result as a row record holds it: ``model_dump()`` with ``repeats`` left out
        when the metric was asked once; built directly for a plain result with no details
        (most lexical results), where there is nothing nested to serialise.

        Example:
            >>> r = MetricResult(value=0.5)
            >>> r.as_record() == r.model_dump(exclude={"repeats"}), list(r.as_record())
            (True, ['value', 'weighted', 'reason', 'error', 'details'])
            >>> MetricResult(value=0.5, repeats=[0.0, 1.0]).as_record()["repeats"]
            [0.0, 1.0]
        """
        if self.details or type(self) is not MetricResult or self.repeats is not None:
            return self.model_dump(exclude=None if self.repeats is not None else {"repeats"})
        return {"value": self.value, "weighted": self.weighted, "reason": self.reason,
                "error": self.error, "details": {}}

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

    @classmethod
    def unanswered(cls, got: Unanswered, **details: Any) -> MetricResult:
        """The unscored result of an ask that got no usable answer
        (:class:`~assay.asking.Unanswered`): unscored after a failed call; unreadable, with
        the raw answer, after an answer cut at ``max_tokens`` or one that did not parse.

        Example:
            >>> r = MetricResult.unanswered(Unanswered("not a score (asked twice)", "answer",
            ...                                        "maybe 4"), prompt_sha256="ab")
            >>> r.error, r.details["raw_answer"], unreadable_kind(r)
            ('not a score (asked twice)', 'maybe 4', 'answer')
            >>> failed = MetricResult.unanswered(Unanswered("judge call failed: 503", "call"))
            >>> failed.error, unreadable_kind(failed)
            ('judge call failed: 503', None)
        """
        if got.failure == "call":
            return cls.unscored(got.reason, **details)
        return cls.unreadable(got.reason, got.failure, raw_answer=got.raw_answer or "",
                              **details)


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

    Required: ``name``, ``version``, ``required`` (the QA fields it needs), ``conversation``
    (whether it also scores conversations, ``messages``), ``needs_citations`` (whether those
    need citations), ``higher_is_better``, ``value_range``, ``uses_judge``, ``applies(row)``,
    ``async score(row, ctx)`` and ``aggregate(results)``.

    Optional, with their defaults here: a metric that leaves one out gets the default when it
    is registered or planned (:func:`with_defaults`); :class:`~assay.metrics.FieldMetric`
    subclasses this protocol, so the built-ins inherit them.

    - ``uses_embedder`` (False): it calls ``ctx.embedder``;
    - ``embedder_optional`` (False): it still scores without one (the run then starts none
      when the embedder cannot be had);
    - ``family`` (None): the :class:`~assay.metrics.MetricFamily` it belongs to, when no
      registered family covers it;
    - ``source`` (``""``): where it was defined (a metric file's path), for messages;
    - ``kind`` (None): what ``assay metrics`` shows (None: its family, or what it uses);
    - ``unavailable_reason()`` (None): why it cannot run on this machine (a missing extra);
    - ``check_rows(rows, source)`` (no problems): a problem per row that lacks what it needs,
      found before any judge call.
    """

    name: str
    version: str
    required: frozenset[str]
    conversation: bool
    needs_citations: bool
    higher_is_better: bool
    value_range: tuple[float, float]
    uses_judge: bool
    uses_embedder: bool = False
    embedder_optional: bool = False
    family: MetricFamily | None = None
    source: str = ""
    kind: str | None = None

    def applies(self, row: Row) -> str | None:
        """``None`` when the metric can score ``row``, else why it cannot."""
        ...

    async def score(self, row: Row, ctx: ScoreContext) -> MetricResult: ...

    def aggregate(self, results: Sequence[MetricResult]) -> dict[str, Any]: ...

    def unavailable_reason(self) -> str | None:
        """Why the metric cannot run on this machine, or None (by default it can)."""
        return None

    def check_rows(self, rows: Sequence[Row], source: str = "data") -> list[str]:
        """One problem per row of ``rows`` (read from ``source``) that lacks what the metric
        needs (none by default)."""
        return []


class RowNote(NamedTuple):
    """What a family says about one row: a short ``text`` (a table cell) and the ``values``
    behind it (shown beside it, formatted by the reader).

    Example:
        >>> RowNote("retrieval", {"context_recall": 0.25}).text
        'retrieval'
    """

    text: str
    values: dict[str, Any]


@runtime_checkable
class FamilyTally(Protocol):
    """A family's running view of one run: fed every record, then asked for its sections."""

    def add(self, record: Mapping[str, Any]) -> None:
        """Count one row's record (``{"id", <metric>: result dict, ..., <row details>}``)."""
        ...

    def metric_sections(self, options: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
        """``{metric: {key: value}}`` to add to those metrics' aggregates in the summary, with
        the run's ``options`` (``{field of ScoringOptions: value}``)."""
        ...

    def summary_section(self, options: Mapping[str, Any]) -> dict[str, Any]:
        """Top-level keys the family adds to ``summary.json`` (may be empty)."""
        ...


@runtime_checkable
class MetricFamily(Protocol):
    """What a family of metrics contributes to a run, beyond each metric's own aggregate.

    ``options``: the scoring settings the family declares and reads, each a
    :class:`~assay.metrics.Setting` (name, default, allowed values, doc). A registered
    family's settings are checked with the core ones when a run starts; a metric reads them
    from its context (``ctx.settings.family(name)``), the family's tally from its ``options``
    mapping.
    """

    name: str
    options: Sequence[Setting[Any]]

    def covers(self, metric: Metric) -> bool:
        """Whether ``metric`` belongs to the family."""
        ...

    def row_details(self, record: Mapping[str, Any]) -> dict[str, Any]:
        """Keys to add to a row's record once its metrics are scored (may be empty)."""
        ...

    def tally(self, metrics: Sequence[Metric]) -> FamilyTally:
        """A fresh tally for a run of ``metrics`` (all of the run's, the family's and others)."""
        ...

    def notes(self, summary: Mapping[str, Any]) -> dict[str, str]:
        """``{heading: text}`` lines that describe the family's sections of ``summary``, for
        the report and the web UI (empty when the summary has none)."""
        ...

    def row_notes(self, record: Mapping[str, Any]) -> dict[str, RowNote]:
        """``{heading: note}`` for one row's record, from the keys :meth:`row_details` added,
        for the report and the web UI (empty when the record has none)."""
        ...

    def tables(self, summary: Mapping[str, Any]) -> list[FamilyTable]:
        """The family's tables of one run's ``summary`` (e.g. defect rates)."""
        ...

    def comparison_tables(self, a: Mapping[str, Any],
                          b: Mapping[str, Any]) -> list[FamilyTable]:
        """The family's tables comparing the summaries of runs ``a`` and ``b``."""
        ...
