"""An example assay plugin: one lexical metric and one judge, registered through entry points.

Example:
    >>> import asyncio
    >>> from assay.data import Row
    >>> row = Row(id="1", line=1, answer="It weighs 1.3 kg packed.")
    >>> asyncio.run(AnswerLength(limit=4).score(row, None)).value
    0.8
"""

from __future__ import annotations

from assay.data import Row
from assay.errors import ConfigError
from assay.judges import Accept, JudgeCapabilities, JudgeRequest, JudgeResponse
from assay.metrics import FieldMetric, MetricResult, ScoreContext

__all__ = ["AnswerLength", "ConstantJudge", "constant_judge"]


class AnswerLength(FieldMetric):
    """1.0 when the answer has at most ``limit`` words, else ``limit / words`` (0-1).

    An empty answer is an answer (the app said nothing): it scores 1.0.
    """

    name = "answer_length"
    version = "1"
    kind = "lexical"
    required = frozenset({"answer"})
    empty_is_given = frozenset({"answer"})
    value_range = (0.0, 1.0)

    def __init__(self, limit: int = 40) -> None:
        self.limit = limit

    async def score(self, row: Row, ctx: ScoreContext | None) -> MetricResult:
        words = len((row.answer or "").split())
        value = 1.0 if words <= self.limit else self.limit / words
        return MetricResult(value=round(value, 4), reason=f"{words} words (limit {self.limit})")


class ConstantJudge:
    """A judge that gives every rating request the same score: a baseline, not an evaluation.

    Example:
        >>> import asyncio
        >>> req = JudgeRequest(messages=[{"role": "user", "content": "x"}], schema_name="rating")
        >>> asyncio.run(ConstantJudge(4).complete(req)).text
        '{"score": 4, "reason": "constant judge"}'
    """

    max_concurrency: int | None = None
    #: What the judge can do: no token probabilities, runs in-process, costs nothing.
    capabilities = JudgeCapabilities(token_logprobs=False, json_schema=False, local=True,
                                     input_price=0.0, output_price=0.0)

    def __init__(self, score: int) -> None:
        self.score = score
        self.id = f"constant:{score}"

    async def complete(self, request: JudgeRequest, *,
                       accept: Accept | None = None) -> JudgeResponse:
        text = f'{{"score": {self.score}, "reason": "constant judge"}}'
        return JudgeResponse(text=text, model=self.id)

    async def aclose(self) -> None:
        return None


def constant_judge(rest: str) -> ConstantJudge:
    """The judge factory of the ``constant`` prefix: ``constant:4`` rates every row 4."""
    try:
        return ConstantJudge(int(rest or "3"))
    except ValueError:
        raise ConfigError(f"Got judge 'constant:{rest}'. The score must be a whole number, "
                          "e.g. constant:4.") from None
