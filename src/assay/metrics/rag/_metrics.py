"""RAG metrics on shared statement decompositions: where a retrieval-augmented answer fails.

Level 1: ``answer_correctness`` (in ``_correctness``). Level 2: ``faithfulness`` (generation), ``context_recall`` and
``context_precision`` (retrieval). ``groundedness_claims`` is the claim-level groundedness on the
1-5 scale that lists every ungrounded sentence.

Example:
    >>> average_precision([True, False, True])
    0.8333
"""

from __future__ import annotations

from typing import Any

from ...asking import Unanswered, ask_until_parsed, load_template
from ...data import Row
from ...judges import JudgeRequest
from .._base import MetricResult, ScoreContext
from .._common import FieldMetric
from .._register import register
from ..judge import RubricMetric
from ._chunks import CHUNKS_SCHEMA, parse_usefulness
from ._statements import StepFailed, decompose, verify

__all__ = ["ContextPrecision", "ContextRecall", "Faithfulness",
           "GroundednessClaims", "average_precision"]


def average_precision(relevant: list[bool]) -> float:
    """Rank-aware precision: the mean of precision@k over the ranks k that hold a useful chunk."""
    hits, total = 0, 0.0
    for k, rel in enumerate(relevant, start=1):
        if rel:
            hits += 1
            total += hits / k
    return round(total / hits, 4) if hits else 0.0


class _SupportedShare(RubricMetric):
    """Decompose the answer, verify it against the context; subclasses scale the share."""

    def __init__(self, name: str, value_range: tuple[float, float]) -> None:
        super().__init__(name, {"context", "answer"}, optional={"question"}, needs_citations=True,
                         answerable_only=True)
        self.value_range = value_range
        self.prompt_names = ("statements", "verify")

    async def _rate(self, values: dict[str, str | None], ctx: ScoreContext,
                    variant: str = "") -> MetricResult:
        try:
            statements = await decompose(ctx, values["answer"] or "", values.get("question"))
            if not statements:
                return MetricResult.unscored("the answer makes no factual statement to check")
            verdicts = await verify(ctx, statements, values["context"] or "")
        except StepFailed as e:
            return MetricResult.unscored(str(e), **e.details)
        share = sum(v.weight for v in verdicts) / len(verdicts)
        details: dict[str, Any] = {
            "supported": sum(v.supported for v in verdicts), "statements": len(verdicts),
            "verdicts": [v.as_dict() for v in verdicts],
            "ungrounded": [v.as_dict() for v in verdicts if not v.supported]}
        return self._result(share, details)

    def _result(self, share: float, details: dict[str, Any]) -> MetricResult:
        return MetricResult(value=round(share, 4), details=details,
                            reason=f"{details['supported']} of {details['statements']} statements "
                                   "supported by the context")


class GroundednessClaims(_SupportedShare):
    """Claim-level groundedness, 1-5 from the supported share; lists ungrounded sentences."""

    def __init__(self) -> None:
        super().__init__("groundedness_claims", (1.0, 5.0))

    def _result(self, share: float, details: dict[str, Any]) -> MetricResult:
        exact = 1 + 4 * share
        bad = details["ungrounded"]
        reason = (f"{details['supported']} of {details['statements']} statements supported"
                  + (f"; not grounded: {bad[0]['statement']!r} ({bad[0]['verdict']})" if bad
                     else ""))
        return MetricResult(value=float(min(5, int(exact + 0.5))), weighted=round(exact, 4),
                            reason=reason, details=details)


class Faithfulness(_SupportedShare):
    """Share (0-1) of the answer's statements that the context supports (on the embedded
    judge: the mean P(supported), which ranks finer than counting 0/1 verdicts)."""

    def __init__(self) -> None:
        super().__init__("faithfulness", (0.0, 1.0))


class ContextRecall(FieldMetric):
    """Share (0-1) of the ground truth's statements that the retrieved context supports."""

    name = "context_recall"
    required = frozenset({"context", "ground_truth"})
    answerable_only = True
    uses_judge = True
    prompt_names = ("statements", "verify")

    async def score(self, row: Row, ctx: ScoreContext) -> MetricResult:
        try:
            statements = await decompose(ctx, row.ground_truth or "", row.question)
            if not statements:
                return MetricResult.unscored("the ground truth makes no factual statement")
            verdicts = await verify(ctx, statements, row.context or "")
        except StepFailed as e:
            return MetricResult.unscored(str(e), **e.details)
        found = sum(v.supported for v in verdicts)
        return MetricResult(value=round(sum(v.weight for v in verdicts) / len(verdicts), 4),
                            reason=f"{found} of {len(verdicts)} ground-truth statements are in "
                                   "the retrieved context",
                            details={"verdicts": [v.as_dict() for v in verdicts],
                                     "missing": [v.statement for v in verdicts if not v.supported]})


class ContextPrecision(FieldMetric):
    """Rank-aware share (0-1) of retrieved chunks that help reach the reference answer.

    Needs ``contexts`` as a list (in retrieval order) and a ground truth (else the answer).
    """

    name = "context_precision"
    required = frozenset({"question", "context"})
    answerable_only = True
    uses_judge = True
    prompt_names = ("chunk_usefulness",)

    def applies(self, row: Row) -> str | None:
        why = super().applies(row)
        if why:
            return why
        if not row.contexts:
            return "row has no contexts list (retrieved chunks in order)"
        if not (row.ground_truth or row.answer):
            return "row has no ground_truth or answer to judge the chunks against"
        return None

    async def score(self, row: Row, ctx: ScoreContext) -> MetricResult:
        chunks = row.contexts or []
        template = load_template("chunk_usefulness", ctx.settings.lang)
        listing = "\n\n".join(f"[{i}] {c}" for i, c in enumerate(chunks, start=1))
        request = JudgeRequest(
            messages=template.render(question=row.question, answer=row.ground_truth or row.answer,
                                     chunks=listing),
            schema_name="usefulness", json_schema=CHUNKS_SCHEMA,
            max_tokens=60 + 50 * len(chunks), logprobs=False)
        answer = await ask_until_parsed(ctx.judge, request,
                                        lambda t: parse_usefulness(t, len(chunks)),
                                        f"answer is not {len(chunks)} usefulness verdicts")
        if isinstance(answer, Unanswered):
            return MetricResult.unanswered(answer)
        verdicts = answer[0]
        useful = [u for u, _ in verdicts]
        return MetricResult(
            value=average_precision(useful),
            reason=f"{sum(useful)} of {len(chunks)} chunks useful; first useful at rank "
                   f"{useful.index(True) + 1}" if any(useful) else "no retrieved chunk is useful",
            details={"chunks": [{"rank": i, "useful": u, "reason": r}
                                for i, (u, r) in enumerate(verdicts, start=1)],
                     "reference": "ground_truth" if row.ground_truth else "answer"})


for _metric in (GroundednessClaims(), Faithfulness(), ContextPrecision(), ContextRecall()):
    register(_metric)
