"""Shared behaviour of the built-in metrics: the field check and the default aggregate.

Example:
    >>> from assay.data import Row
    >>> class M(FieldMetric):
    ...     name, required = "m", frozenset({"answer", "context"})
    >>> M().applies(Row(id="1", line=1, answer="a"))
    'row has no context'

    A metric that scores an empty answer (it is an answer: the app said nothing) names the
    field in ``empty_is_given``; only a missing field (``None``) then makes it not apply:

    >>> class Lexical(FieldMetric):
    ...     name, required = "lex", frozenset({"answer"})
    ...     empty_is_given = frozenset({"answer"})
    >>> Lexical().applies(Row(id="1", line=1, answer="")) is None
    True
    >>> Lexical().applies(Row(id="1", line=1, question="Q?"))
    'row has no answer'

    A metric that compares the answer with the ground truth or the context says
    ``answerable_only``: a row marked ``answerable: false`` is not for it:

    >>> Lexical.answerable_only = True
    >>> Lexical().applies(Row(id="1", line=1, answer="", extra={"answerable": False}))
    'row is marked answerable: false (the right answer declines: there is no answer to compare or rate; negative_rejection scores it)'
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..data import Row
from ._base import Metric, MetricResult, ScoreContext, mean_aggregate

__all__ = ["UNANSWERABLE", "FieldMetric", "answerable_flag", "is_unanswerable"]

#: Why a metric that reads the answer against the ground truth or the context (or rates how
#: well it answers) does not apply to a row marked ``answerable: false``.
UNANSWERABLE = ("row is marked answerable: false (the right answer declines: there is no "
                "answer to compare or rate; negative_rejection scores it)")
_FALSE, _TRUE = ("false", "no", "0"), ("true", "yes", "1")


def answerable_flag(row: Row) -> bool | None:
    """The row's ``answerable`` field (an extra field, as ``assay generate`` writes it): True or
    False, also from the text a CSV cell holds; None when the row has none (or another value).

    Example:
        >>> answerable_flag(Row(id="1", line=1, answer="a", extra={"answerable": "FALSE"}))
        False
        >>> answerable_flag(Row(id="1", line=1, answer="a")) is None
        True
    """
    value = row.extra.get("answerable")
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().lower() in (*_FALSE, *_TRUE):
        return value.strip().lower() in _TRUE
    return None


def is_unanswerable(row: Row) -> bool:
    """Whether the row is marked ``answerable: false``: a question its documents cannot answer.

    Example:
        >>> is_unanswerable(Row(id="1", line=1, answer="a", extra={"answerable": False}))
        True
    """
    return answerable_flag(row) is False


class FieldMetric(Metric):
    """Base for metrics whose applicability depends only on the fields a row has (the
    :class:`Metric` protocol's optional members come with their defaults)."""

    name: str = ""
    version: str = "1"
    required: frozenset[str] = frozenset()
    conversation: bool = False
    needs_citations: bool = False
    higher_is_better: bool = True
    value_range: tuple[float, float] = (0.0, 1.0)
    uses_judge: bool = False
    #: Required fields for which an empty string counts as given (``Row.fields`` leaves empty
    #: fields out): the metric scores it rather than not applying.
    empty_is_given: frozenset[str] = frozenset()
    #: It reads the answer against the ground truth or the context, so it does not apply to a
    #: row marked ``answerable: false`` (:data:`UNANSWERABLE`).
    answerable_only: bool = False

    def applies(self, row: Row) -> str | None:
        if self.answerable_only and row.extra and is_unanswerable(row):
            return UNANSWERABLE
        if row.kind == "conversation":
            if not self.conversation:
                return "metric scores QA rows only, not conversations"
            if self.needs_citations and "citations" not in row.fields():
                return "conversation has no citations on its assistant turns"
            return None
        given = row.fields() | {f for f in self.empty_is_given if getattr(row, f, None) == ""}
        missing = sorted(self.required - given)
        if missing:
            return f"row has no {' or '.join(missing)}"
        return None

    async def score(self, row: Row, ctx: ScoreContext) -> MetricResult:  # pragma: no cover
        raise NotImplementedError

    def aggregate(self, results: Sequence[MetricResult]) -> dict[str, Any]:
        return mean_aggregate(results)
