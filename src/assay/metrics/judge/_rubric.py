"""Judge metrics scored 1-5 against a rubric template: one judge request per row (or per turn).

Example:
    >>> import asyncio
    >>> from assay.data import Row
    >>> from assay.judges import FakeJudge
    >>> from assay.metrics import ScoreContext
    >>> row = Row(id="1", line=1, question="Weight?", answer="1.3 kg.", context="It weighs 1.3 kg.")
    >>> ctx = ScoreContext(judge=FakeJudge('{"score": 5, "reason": "Stated in the context."}'))
    >>> asyncio.run(GROUNDEDNESS.score(row, ctx)).value
    5.0
"""

from __future__ import annotations

from typing import Any

from ...asking import (
    RATING_SCHEMA,
    SCORE_SCHEMA,
    Unanswered,
    ask_until_parsed,
    ask_verdict,
    load_template,
    parse_rating,
    parse_score,
    scale_probability,
    weighted_rating,
)
from ...data import Row
from ...judges import JudgeCapabilities, JudgeRequest
from .._base import MetricResult, ScoreContext
from .._common import FieldMetric
from .._register import register
from .._turns import history_text, mean_of_turns, score_turns
from ._reasons import PASS_SCORE, explain_if_wanted, reason_plan

__all__ = [
    "COHERENCE",
    "FLUENCY",
    "GROUNDEDNESS",
    "RELEVANCE",
    "SIMILARITY",
    "RubricMetric",
    "prefers_verdicts",
]


def prefers_verdicts(capabilities: JudgeCapabilities) -> bool:
    """Whether ``style="auto"`` asks this judge Yes/No verdicts rather than 1-5 ratings: a
    local judge is a small embedded model, which ranks answers far better by P(yes) of one
    token than by the number it writes (docs/guides/judges.md, "How it judges groundedness").

    Example:
        >>> prefers_verdicts(JudgeCapabilities(local=True)), prefers_verdicts(JudgeCapabilities())
        (True, False)
    """
    return capabilities.local


#: Tokens for a score-only answer (``{"score": 4}``): enough, with room for spacing.
SCORE_MAX_TOKENS = 12


class RubricMetric(FieldMetric):
    """A 1-5 judge metric: renders the metric's rubric template and asks for ``{score, reason}``.

    Conversations are scored per assistant turn (the preceding user turn as the question, the
    turn's citations as the context); the conversation's value is the mean over scored turns.
    """

    uses_judge = True
    value_range = (1.0, 5.0)

    def __init__(self, name: str, required: set[str], *, optional: set[str] | None = None,
                 conversation: bool = True, needs_citations: bool = False,
                 max_tokens: int = 160, verdict: bool = False,
                 answerable_only: bool = False) -> None:
        self.name = name
        self.answerable_only = answerable_only
        self.required = frozenset(required)
        self.optional = frozenset(optional or ())
        self.conversation = conversation
        self.needs_citations = needs_citations
        self.max_tokens = max_tokens
        self.verdict = verdict
        #: The prompt files this metric renders (``prompts/<name>/v1/``).
        self.prompt_names: tuple[str, ...] = (name,)

    def style_for(self, ctx: ScoreContext) -> str:
        """``verdict`` (P(yes) mapped to 1-5) or ``rating`` (a 1-5 number) for this run.

        ``auto`` uses verdicts on a judge that :func:`prefers_verdicts` (a local one) for
        metrics that have a verdict rubric, where they measured better, and ratings elsewhere.
        """
        if ctx.settings.style == "auto":
            local = ctx.judge is not None and prefers_verdicts(ctx.judge.capabilities)
            return "verdict" if self.verdict and local else "rating"
        return "verdict" if ctx.settings.style == "verdict" and self.verdict else "rating"

    async def score(self, row: Row, ctx: ScoreContext) -> MetricResult:
        if row.kind == "conversation":
            return await self._score_conversation(row, ctx)
        fields = self.required | self.optional
        return await self._rate({f: getattr(row, f) for f in fields}, ctx)

    async def _rate(self, values: dict[str, str | None], ctx: ScoreContext,
                    variant: str = "") -> MetricResult:
        if self.style_for(ctx) == "verdict" and not variant:
            return await self._verdict(values, ctx)
        template = load_template(self.name, ctx.settings.lang, variant=variant)
        messages = template.render(**values)
        details: dict[str, Any] = {"prompt_sha256": template.sha256}
        if variant:
            details["rubric"] = variant
        plan = reason_plan(ctx)
        if plan == "always":
            return await self._rating_with_reason(messages, ctx, details)
        request = JudgeRequest(messages=messages, schema_name="score", json_schema=SCORE_SCHEMA,
                               max_tokens=SCORE_MAX_TOKENS)
        answer = await ask_until_parsed(ctx.judge, request, parse_score,
                                        "judge answer is not a valid 1-5 score")
        if isinstance(answer, Unanswered):
            return MetricResult.unanswered(answer, **details)
        score, resp = answer
        result = MetricResult(value=float(score), weighted=weighted_rating(resp.logprobs),
                              details=details)
        return await explain_if_wanted(
            result, plan, score < PASS_SCORE, messages,
            lambda: self._rating_with_reason(messages, ctx, dict(details)))

    #: The JSON schema of a rating asked with its reason; :meth:`parse_reasoned` reads it.
    reasoned_schema: dict[str, Any] = RATING_SCHEMA

    def parse_reasoned(self, text: str) -> tuple[int, str, dict[str, Any]] | None:
        """``(score, reason, details to add)`` from a rating asked with its reason, or None
        when it is not a valid one (strict: :func:`parse_rating`). A subclass whose template
        asks for more (a turn) overrides this and :attr:`reasoned_schema`.

        Example:
            >>> FLUENCY.parse_reasoned('{"score": 4, "reason": "Reads well."}')
            (4, 'Reads well.', {})
        """
        rated = parse_rating(text)
        return None if rated is None else (rated[0], rated[1], {})

    async def _rating_with_reason(self, messages: list[dict[str, str]], ctx: ScoreContext,
                                  details: dict[str, Any]) -> MetricResult:
        request = JudgeRequest(messages=messages, schema_name="rating",
                               json_schema=self.reasoned_schema, max_tokens=self.max_tokens)
        answer = await ask_until_parsed(ctx.judge, request, self.parse_reasoned,
                                        "judge answer is not a valid 1-5 rating")
        if isinstance(answer, Unanswered):
            return MetricResult.unanswered(answer, **details)
        (score, reason, more), resp = answer
        return MetricResult(value=float(score), weighted=weighted_rating(resp.logprobs),
                            reason=reason, details={**details, **more})

    async def _verdict(self, values: dict[str, str | None], ctx: ScoreContext) -> MetricResult:
        template = load_template(self.name, ctx.settings.lang, variant="verdict")
        messages = template.render(**values)
        details: dict[str, Any] = {"prompt_sha256": template.sha256, "style": "verdict"}
        plan = reason_plan(ctx)
        answer = await ask_verdict(ctx.judge, messages, reason=plan == "always")
        if isinstance(answer, Unanswered):
            return MetricResult.unanswered(answer, **details)
        is_yes, reason, p, cut = answer
        if cut:
            details["reason_truncated"] = True
        if p is None:  # no probabilities: the verdict alone, at the ends of the scale
            result = MetricResult(value=5.0 if is_yes else 1.0, reason=reason or None,
                                  details={**details, "verdict": is_yes})
        else:
            value, exact = scale_probability(p)
            result = MetricResult(value=float(value), weighted=exact, reason=reason or None,
                                  details={**details, "verdict": is_yes, "p_yes": round(p, 4)})

        async def explain() -> MetricResult:
            got = await ask_verdict(ctx.judge, messages, reason=True)
            if isinstance(got, Unanswered):
                return MetricResult.unanswered(got, **details)
            if got.reason_truncated:
                result.details["reason_truncated"] = True
            return MetricResult(value=result.value, reason=got.reason or None)

        return await explain_if_wanted(result, plan, (result.value or 0.0) < PASS_SCORE,
                                       messages, explain)

    async def _score_conversation(self, row: Row, ctx: ScoreContext) -> MetricResult:
        jobs: list[tuple[int, dict[str, str | None]]] = []
        for i, turn in row.assistant_turns():
            if self.needs_citations and not turn.citations:
                continue
            context = "\n\n".join(
                f"[{c.id or j + 1}] {c.title + ': ' if c.title else ''}{c.content}"
                for j, c in enumerate(turn.citations)) or None
            jobs.append((i, {"question": row.user_request(i), "answer": turn.content,
                             "context": context}))
        if not jobs:
            return MetricResult.unscored("conversation has no assistant turn to score")
        scored = await score_turns(jobs, lambda values: self._rate(values, ctx))
        turns = [{"turn": t.turn, "value": t.result.value, "weighted": t.result.weighted,
                  "reason": t.result.reason, "error": t.result.error} for t in scored]
        return mean_of_turns(scored, {"turns": turns})


class ConversationRelevance(RubricMetric):
    """Relevance: the QA rubric for QA rows; for conversations, each assistant turn against the
    user's request read with the earlier turns, and, when the row has a ``ground_truth``, the
    last assistant turn against it with a second rubric. The value is the mean over turns."""

    def __init__(self) -> None:
        # Not on rows marked answerable: false: the right answer there declines, and a
        # decline does not address the question the way the rubric asks.
        super().__init__("relevance", {"question", "context", "answer"}, conversation=True,
                         answerable_only=True)

    async def _score_conversation(self, row: Row, ctx: ScoreContext) -> MetricResult:
        messages = row.messages or []
        turns = row.assistant_turns()
        jobs: list[tuple[int, tuple[dict[str, str | None], str]]] = []
        for n, (i, turn) in enumerate(turns):
            user = row.request_before(i)
            if user is None:
                continue
            history = history_text(messages[:user])
            values: dict[str, str | None] = {"history": history,
                                             "question": messages[user].content,
                                             "answer": turn.content}
            variant = "conversation"
            if row.ground_truth and n == len(turns) - 1:
                values["ground_truth"] = row.ground_truth
                variant = "conversation_gt"
            jobs.append((i, (values, variant)))
        if not jobs:
            return MetricResult.unscored("conversation has no assistant turn after a user turn")
        scored = await score_turns(jobs, lambda job: self._rate(job[0], ctx, job[1]))
        turn_details = [{"turn": t.turn, "rubric": variant, "value": t.result.value,
                         "reason": t.result.reason, "error": t.result.error}
                        for t, (_, (_, variant)) in zip(scored, jobs)]
        return mean_of_turns(scored, {"turns": turn_details})


GROUNDEDNESS = RubricMetric("groundedness", {"context", "answer"}, optional={"question"},
                            needs_citations=True, verdict=True, answerable_only=True)
RELEVANCE = ConversationRelevance()
COHERENCE = RubricMetric("coherence", {"question", "answer"})
FLUENCY = RubricMetric("fluency", {"answer"})
SIMILARITY = RubricMetric("similarity", {"question", "answer", "ground_truth"}, conversation=False,
                          answerable_only=True)


for _metric in (COHERENCE, FLUENCY, GROUNDEDNESS, RELEVANCE, SIMILARITY):
    register(_metric)
