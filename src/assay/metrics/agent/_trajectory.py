"""The deterministic agent metrics against ``reference_tool_calls``: no judge.

"Same action" is the match of :func:`~assay.metrics.agent.match_call` (names equal, arguments
right under BFCL's rules). Pairs are one to one: a reference call is matched by at most one
predicted call (``M`` below: the size of the largest such pairing). With ``P`` predicted and
``R`` reference calls:

============================  ====================================================  ==================
metric                        value                                                 empty trajectories
============================  ====================================================  ==================
tool_call_accuracy            1 when ``M == P == R`` (order free), else 0           both empty: 1
tool_call_f1                  ``2M / (P + R)``                                      both empty: 1
tool_argument_accuracy        of the calls whose name a reference call has, the     no such call:
                              share that match one (every argument right)           unscored
trajectory_exact_match        1 when call ``k`` matches reference ``k`` for all     both empty: 1
                              ``k`` and ``P == R``
trajectory_in_order_match     1 when the reference calls are matched in their       ``R == 0``: 1
                              order, extra calls allowed in between
trajectory_any_order_match    1 when every reference call is matched, any order,    ``R == 0``: 1
                              extra calls allowed (``M == R``)
trajectory_precision          ``M / P``                                             ``P == 0``: unscored
trajectory_recall             ``M / R``                                             ``R == 0``: unscored
============================  ====================================================  ==================

The last five follow Vertex AI's trajectory metrics; where Vertex counts a duplicated action
more than once, these count each reference call once. Precision with no predicted call and
recall with no reference call are undefined: the row is unscored with that reason, not a
made-up 0 or 1.

Example:
    >>> import asyncio
    >>> from assay.data import rows_from_records
    >>> row = rows_from_records([{"messages": [
    ...     {"role": "user", "content": "Weather in Paris?"},
    ...     {"role": "assistant", "content": None, "tool_calls": [{"id": "c1",
    ...      "function": {"name": "weather", "arguments": '{"city": "Lyon"}'}}]},
    ...     {"role": "tool", "tool_call_id": "c1", "content": "12 C"},
    ...     {"role": "assistant", "content": "12 C."}],
    ...     "reference_tool_calls": [{"name": "weather", "arguments": {"city": "Paris"}}]}])[0]
    >>> result = asyncio.run(ToolCallAccuracy().score(row, None))
    >>> result.value, result.reason
    (0.0, "0 of 1 reference call matched: call 1 weather: wrong value for 'city': 'Lyon', expected 'Paris'")
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

from ...data import Row
from .._base import MetricResult, ScoreContext, mean_aggregate
from .._common import FieldMetric
from .._register import register
from ._compare import Comparison, compare_row

__all__ = ["AgentMetric", "ToolArgumentAccuracy", "ToolCallAccuracy", "ToolCallF1",
           "TrajectoryAnyOrderMatch", "TrajectoryExactMatch", "TrajectoryInOrderMatch",
           "TrajectoryPrecision", "TrajectoryRecall"]

#: At most this many findings are named in a result's reason (all are in its details).
_LISTED = 3


def _n(count: int, word: str) -> str:
    """``1 call``, ``2 calls``."""
    return f"{count} {word}{'' if count == 1 else 's'}"


def _summary(c: Comparison) -> str:
    """``k of R reference calls matched``, then the first findings."""
    head = f"{c.matched} of {_n(len(c.references), 'reference call')} matched"
    texts = [f["text"] for f in c.findings()]
    if not texts:
        return head
    more = f" (+{len(texts) - _LISTED} more)" if len(texts) > _LISTED else ""
    return f"{head}: {'; '.join(texts[:_LISTED])}{more}"


class AgentMetric(FieldMetric):
    """Base of the agent metrics: conversations that give the fields in ``required``."""

    version = "1"
    conversation = True
    required = frozenset({"messages", "reference_tool_calls"})

    def applies(self, row: Row) -> str | None:
        if row.messages is None:
            return "row has no messages (the metric scores conversations with tool calls)"
        missing = sorted(self.required - row.fields())
        return f"row has no {' or '.join(missing)}" if missing else None

    async def score(self, row: Row, ctx: ScoreContext | None) -> MetricResult:
        return self.from_comparison(compare_row(row))

    def from_comparison(self, c: Comparison) -> MetricResult:  # pragma: no cover
        """The result of one row's comparison (each metric its own)."""
        raise NotImplementedError


def _binary(ok: bool, why: str, details: dict[str, Any]) -> MetricResult:
    return MetricResult(value=1.0 if ok else 0.0, reason=why, details=details)


class ToolCallAccuracy(AgentMetric):
    """1 when the predicted calls match the reference calls one to one (order free), else 0.
    ``details.findings`` names each mismatch, extra and missing call; the aggregate adds
    ``findings``: how many scored rows have each kind of finding."""

    name = "tool_call_accuracy"

    def aggregate(self, results: Sequence[MetricResult]) -> dict[str, Any]:
        """The mean, plus ``findings`` ``{kind: rows}`` (most frequent first).

        Example:
            >>> wrong = MetricResult(value=0.0, details={"findings": [
            ...     {"kind": "wrong_value"}, {"kind": "wrong_value"}, {"kind": "extra_call"}]})
            >>> ToolCallAccuracy().aggregate([wrong, MetricResult(value=1.0)])["findings"]
            {'extra_call': 1, 'wrong_value': 1}
        """
        counts: Counter[str] = Counter()
        for r in results:
            if r.value is not None:
                counts.update({str(f["kind"]) for f in r.details.get("findings") or []
                               if isinstance(f, dict) and isinstance(f.get("kind"), str)})
        ranked = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
        return {**mean_aggregate(results), "findings": dict(ranked)}

    def from_comparison(self, c: Comparison) -> MetricResult:
        ok = c.matched == len(c.calls) == len(c.references)
        why = ("no call expected and none made" if not c.calls and not c.references
               else _summary(c))
        return _binary(ok, why, c.details())


class ToolCallF1(AgentMetric):
    """F1 of the matched calls: ``2M / (P + R)``; 1 when no call was expected and none made."""

    name = "tool_call_f1"

    def from_comparison(self, c: Comparison) -> MetricResult:
        total = len(c.calls) + len(c.references)
        if total == 0:
            return MetricResult(value=1.0, reason="no call expected and none made",
                                details=c.details())
        return MetricResult(value=round(2 * c.matched / total, 4), reason=_summary(c),
                            details=c.details())


class ToolArgumentAccuracy(AgentMetric):
    """Of the predicted calls whose name a reference call has, the share that match one of
    those reference calls (every argument right); unscored when no call has such a name."""

    name = "tool_argument_accuracy"

    def from_comparison(self, c: Comparison) -> MetricResult:
        named = [i for i, call in enumerate(c.calls)
                 if any(r.name == call.name for r in c.references)]
        if not named:
            return MetricResult.unscored("no predicted call names a tool of the reference "
                                         "calls", **c.details())
        wrong: list[str] = []
        for i in named:
            options = [c.mismatches[i][j] for j, r in enumerate(c.references)
                       if r.name == c.calls[i].name]
            if all(options):
                closest = min(options, key=len)
                wrong.append(f"call {i + 1} {c.calls[i].name}: "
                             + "; ".join(m.text() for m in closest))
        right = len(named) - len(wrong)
        why = (f"{right} of {_n(len(named), 'call')} to reference tools "
               f"{'has' if len(named) == 1 else 'have'} every argument right")
        if wrong:
            why += ": " + "; ".join(wrong[:_LISTED])
        return MetricResult(value=round(right / len(named), 4), reason=why,
                            details={**c.details(), "argument_errors": wrong})


class TrajectoryExactMatch(AgentMetric):
    """1 when the predicted trajectory is the reference, call by call, in order (Vertex AI)."""

    name = "trajectory_exact_match"

    def from_comparison(self, c: Comparison) -> MetricResult:
        ok = c.exact()
        if ok:
            why = f"{_n(len(c.calls), 'call')}, each matching the reference call at its place"
        else:
            k = next((k for k in range(min(len(c.calls), len(c.references)))
                      if not c.fits(k, k)), None)
            why = (f"{_n(len(c.calls), 'call')}, {len(c.references)} expected" if k is None
                   else f"call {k + 1} {c.calls[k].name} does not match reference call "
                        f"{k + 1} {c.references[k].name}")
            why += "; " + _summary(c)
        return _binary(ok, why, c.details())


class TrajectoryInOrderMatch(AgentMetric):
    """1 when every reference call is matched in the reference's order, extra calls allowed."""

    name = "trajectory_in_order_match"

    def from_comparison(self, c: Comparison) -> MetricResult:
        ok = c.in_order()
        why = ("the reference calls are all made, in order" if ok
               else "the reference calls are not all made in order; " + _summary(c))
        return _binary(ok, why, c.details())


class TrajectoryAnyOrderMatch(AgentMetric):
    """1 when every reference call is matched by its own call, in any order, extras allowed."""

    name = "trajectory_any_order_match"

    def from_comparison(self, c: Comparison) -> MetricResult:
        ok = c.any_order()
        return _binary(ok, _summary(c), c.details())


class TrajectoryPrecision(AgentMetric):
    """Matched predicted calls / predicted calls; unscored when no call was made."""

    name = "trajectory_precision"

    def from_comparison(self, c: Comparison) -> MetricResult:
        if not c.calls:
            return MetricResult.unscored("no predicted tool calls: precision is undefined",
                                         **c.details())
        return MetricResult(value=round(c.matched / len(c.calls), 4),
                            reason=f"{c.matched} of {_n(len(c.calls), 'call')} match a "
                                   "reference call",
                            details=c.details())


class TrajectoryRecall(AgentMetric):
    """Matched reference calls / reference calls; unscored when none is expected."""

    name = "trajectory_recall"

    def from_comparison(self, c: Comparison) -> MetricResult:
        if not c.references:
            return MetricResult.unscored("no reference tool calls: recall is undefined",
                                         **c.details())
        return MetricResult(value=round(c.matched / len(c.references), 4),
                            reason=_summary(c), details=c.details())


for _metric in (ToolCallAccuracy(), ToolCallF1(), ToolArgumentAccuracy(), TrajectoryExactMatch(),
                TrajectoryInOrderMatch(), TrajectoryAnyOrderMatch(), TrajectoryPrecision(),
                TrajectoryRecall()):
    register(_metric)
