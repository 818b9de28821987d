"""``negative_rejection``: on a question the documents cannot answer, does the app decline?

A row marked ``answerable: false`` (``assay generate`` writes it on its ``unanswerable``
rows) asks something the documents do not say: the right answer declines for lack of
information. The judge reads the question and the answer and says whether the app gave an
answer of its own (a name, number, date or fact, right or wrong); No means it declined, and the
row scores 1, Yes scores 0. The question is put that way round because the small embedded
judge leans to Yes: asked "did it decline?" it said Yes to answers that did answer (measured on
RGB en_fact, docs/robustness.md). ``weighted`` is P(declined) where the judge gives token
probabilities; ``details["phrase_match"]`` is RGB's phrase match (:func:`is_rejection`), for
comparison. A conversation is judged on its last assistant turn against the request before it.

Rows that are answerable (or say nothing about it) are not for this metric; on rows marked
``answerable: false``, the metrics that compare the answer with the ground truth or the
context do not apply (see :func:`~assay.metrics.is_unanswerable`).

Example:
    >>> import asyncio
    >>> from assay.data import Row
    >>> from assay.judges import FakeJudge
    >>> from assay.metrics import ScoreContext
    >>> row = Row(id="1", line=1, question="When does the Oslo store open on Sundays?",
    ...           answer="The documents don't say.", extra={"answerable": False})
    >>> ctx = ScoreContext(judge=FakeJudge("No. It only says the documents lack the answer."))
    >>> r = asyncio.run(NEGATIVE_REJECTION.score(row, ctx))
    >>> r.value, r.reason, r.details["phrase_match"]
    (1.0, 'It only says the documents lack the answer.', False)
    >>> NEGATIVE_REJECTION.applies(row.model_copy(update={"extra": {"answerable": True}}))
    'row is answerable (answerable: true): negative_rejection scores rows marked answerable: false'
"""

from __future__ import annotations

from typing import Any

from ...asking import Unanswered, ask_verdict, load_template
from ...data import Row
from .._base import MetricResult, ScoreContext
from .._common import FieldMetric, answerable_flag
from .._register import register

__all__ = ["NEGATIVE_REJECTION", "REJECTION_PHRASES", "NegativeRejection", "is_rejection"]

#: RGB's phrases of a decline for lack of information, widened.
REJECTION_PHRASES = ("insufficient information", "not enough information", "can not answer",
                     "cannot answer", "can't answer", "unable to answer", "do not contain",
                     "don't know", "信息不足", "无法回答", "不能回答")


def is_rejection(response: str) -> bool:
    """Does the response decline for lack of information? (RGB's phrase match, widened.)

    Example:
        >>> is_rejection("I can not answer the question because of the insufficient information.")
        True
        >>> is_rejection("The documents do not mention it.")  # a decline the phrases miss
        False
    """
    text = response.lower()
    return any(p in text for p in REJECTION_PHRASES)


class NegativeRejection(FieldMetric):
    """1.0 when the answer to an unanswerable question declines for lack of information, 0.0
    when it answers anyway (a Yes/No verdict of the judge)."""

    name = "negative_rejection"
    uses_judge = True
    conversation = True
    value_range = (0.0, 1.0)
    required = frozenset({"question", "answer"})

    def __init__(self) -> None:
        #: The prompt folders this metric renders.
        self.prompt_names: tuple[str, ...] = ("rejection",)

    def applies(self, row: Row) -> str | None:
        why = super().applies(row)
        if why is not None:
            return why
        flag = answerable_flag(row)
        if flag is None:
            return ("row has no answerable field: negative_rejection scores rows marked "
                    "answerable: false")
        if flag:
            return ("row is answerable (answerable: true): negative_rejection scores rows "
                    "marked answerable: false")
        return None

    async def score(self, row: Row, ctx: ScoreContext) -> MetricResult:
        if row.messages is None:
            return await self.rejection_verdict(row.question or "", row.answer or "", ctx)
        turns = row.assistant_turns()
        if not turns:
            return MetricResult.unscored("conversation has no assistant turn to judge")
        i, turn = turns[-1]
        result = await self.rejection_verdict(row.user_request(i) or "", turn.content, ctx)
        result.details["turn"] = i
        return result

    async def rejection_verdict(self, question: str, answer: str,
                                ctx: ScoreContext) -> MetricResult:
        """The judge's verdict on one answer to ``question``: 1.0 declined, 0.0 answered."""
        template = load_template("rejection", ctx.settings.lang, variant="verdict")
        details: dict[str, Any] = {"prompt_sha256": template.sha256,
                                   "phrase_match": is_rejection(answer)}
        got = await ask_verdict(ctx.judge, template.render(question=question, answer=answer))
        if isinstance(got, Unanswered):
            return MetricResult.unanswered(got, **details)
        answered, reason, p_answered, cut = got
        if cut:
            details["reason_truncated"] = True
        details["declined"] = not answered
        weighted = None if p_answered is None else round(1 - p_answered, 4)
        return MetricResult(value=0.0 if answered else 1.0, weighted=weighted, reason=reason,
                            details=details)


NEGATIVE_REJECTION = NegativeRejection()


register(NEGATIVE_REJECTION)
