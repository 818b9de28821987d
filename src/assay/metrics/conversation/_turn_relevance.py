"""Turn relevance: the share of the app's turns that respond to the user's last message before
them. One Yes/No verdict per assistant turn with text that a user turn comes before (the
earlier turns shown as its history); the value is the share of Yes among the turns judged.

A turn whose verdict cannot be had (an answer that is not Yes or No twice, a failed call) is
left unscored, and the share is over the other turns; the reason says how many were left out,
and ``details["unscored_turns"]`` names them. When no turn could be judged the conversation is
unscored. ``details["turns"]`` holds one entry per judged turn, ``{"turn", "value", "reason",
"error"}`` (``turn``: its index into ``messages``; ``value``: 1, 0, or None when unscored), the
shape the other conversation metrics give, so pages can show each reason beside its turn.

Example:
    >>> import asyncio
    >>> from assay.data import Row, Turn
    >>> from assay.judges import FakeJudge
    >>> from assay.metrics import ScoreContext
    >>> row = Row(id="c", line=1, messages=[
    ...     Turn(role="user", content="What time do you open?"),
    ...     Turn(role="assistant", content="We open at 9."),
    ...     Turn(role="user", content="And on Sundays?"),
    ...     Turn(role="assistant", content="Our shop sells shoes.")])
    >>> judge = FakeJudge(lambda req: "No. It talks about shoes." if "Sundays" in
    ...                   req.messages[1]["content"] else "Yes. It gives the time.")
    >>> r = asyncio.run(TURN_RELEVANCE.score(row, ScoreContext(judge=judge)))
    >>> r.value, [(t["turn"], t["value"]) for t in r.details["turns"]]
    (0.5, [(1, 1), (3, 0)])
    >>> r.reason
    '1 of 2 assistant turns respond to the user; first that does not: turn 3: It talks about shoes.'
"""

from __future__ import annotations

from typing import Any

from ...asking import Unanswered, ask_verdict, load_template
from ...data import Row
from .._base import MetricResult, ScoreContext
from .._common import FieldMetric
from .._register import register
from .._turns import ScoredTurn, first_unscored_turn, history_text, score_turns
from ..judge import explain_if_wanted, reason_plan

__all__ = ["TURN_RELEVANCE", "TurnRelevance", "share_of_turns"]


class TurnRelevance(FieldMetric):
    """The share (0-1) of a conversation's assistant turns that respond to the user's last
    message before them (one Yes/No verdict per turn)."""

    name = "turn_relevance"
    uses_judge = True
    conversation = True
    value_range = (0.0, 1.0)
    required = frozenset({"messages"})

    def __init__(self) -> None:
        #: The prompt folders this metric renders, and the texts its template reads.
        self.prompt_names: tuple[str, ...] = ("turn_relevance",)
        self.parts: tuple[str, ...] = ("history", "question", "answer")

    def applies(self, row: Row) -> str | None:
        if row.messages is None:
            return f"row has no messages: {self.name} scores conversations"
        if not self._jobs(row):
            return "conversation has no assistant turn with text after a user turn"
        return None

    @staticmethod
    def _jobs(row: Row) -> list[tuple[int, dict[str, str | None]]]:
        """``(turn, texts)`` for each assistant turn to judge."""
        messages = row.messages or []
        jobs: list[tuple[int, dict[str, str | None]]] = []
        for i, turn in row.assistant_turns():
            user = row.request_before(i)
            if user is not None:
                jobs.append((i, {"history": history_text(messages[:user]),
                                 "question": messages[user].content, "answer": turn.content}))
        return jobs

    async def score(self, row: Row, ctx: ScoreContext) -> MetricResult:
        why = self.applies(row)
        if why:
            return MetricResult.unscored(f"does not apply: {why}")
        scored = await score_turns(self._jobs(row), lambda texts: self._verdict(texts, ctx))
        return share_of_turns(scored)

    async def _verdict(self, texts: dict[str, str | None], ctx: ScoreContext) -> MetricResult:
        """One turn's verdict: 1.0 (responds) or 0.0, P(yes) as ``weighted`` where the judge
        gives logprobs; its reason as the run's ``reasons`` setting asks."""
        template = load_template(self.name, ctx.settings.lang)
        messages = template.render(**texts)
        details: dict[str, Any] = {"prompt_sha256": template.sha256}
        plan = reason_plan(ctx)
        got = await ask_verdict(ctx.judge, messages, reason=plan == "always")
        if isinstance(got, Unanswered):
            return MetricResult.unanswered(got, **details)
        responds, why, p, cut = got
        if cut:
            details["reason_truncated"] = True
        result = MetricResult(value=1.0 if responds else 0.0,
                              weighted=round(p, 4) if p is not None else None,
                              reason=why or None, details=details)

        async def explain() -> MetricResult:
            again = await ask_verdict(ctx.judge, messages, reason=True)
            if isinstance(again, Unanswered):
                return MetricResult.unanswered(again, **details)
            return MetricResult(value=1.0 if again.is_yes else 0.0, reason=again.reason or None)

        return await explain_if_wanted(result, plan, not responds, messages, explain)


def share_of_turns(scored: list[ScoredTurn]) -> MetricResult:
    """The conversation's result from its turns' verdicts: the share of Yes among the turns
    judged (``weighted``: the mean P(yes), when every judged turn has one), or unscored when no
    turn could be judged.

    Example:
        >>> turns = [ScoredTurn(1, MetricResult(value=1.0, reason="answers")),
        ...          ScoredTurn(3, MetricResult.unreadable("judge answer does not start with "
        ...                                                "Yes or No (asked twice)"))]
        >>> r = share_of_turns(turns)
        >>> r.value, r.details["unscored_turns"]
        (1.0, [3])
        >>> r.reason
        '1 of 1 assistant turns respond to the user (1 more could not be judged: assistant turn 3: judge answer does not start with Yes or No (asked twice))'
    """
    turns = [{"turn": t.turn, "value": None if t.result.value is None else int(t.result.value),
              "reason": t.result.reason, "error": t.result.error} for t in scored]
    judged = [t for t in scored if t.result.value is not None]
    if not judged:
        return (first_unscored_turn(scored, "judged", turns=turns)
                or MetricResult.unscored("conversation has no assistant turn to judge"))
    prompt = judged[0].result.details.get("prompt_sha256")
    yes = [t for t in judged if t.result.value == 1.0]
    missing = [t for t in scored if t.result.value is None]
    reason = f"{len(yes)} of {len(judged)} assistant turns respond to the user"
    if missing:
        reason += (f" ({len(missing)} more could not be judged: assistant turn "
                   f"{missing[0].turn}: {missing[0].result.error})")
    off = next((t for t in judged if t.result.value == 0.0), None)
    if off is not None:
        reason += f"; first that does not: turn {off.turn}: {off.result.reason or '(no reason)'}"
    weights = [t.result.weighted for t in judged if t.result.weighted is not None]
    return MetricResult(
        value=round(len(yes) / len(judged), 4),
        weighted=round(sum(weights) / len(weights), 4) if len(weights) == len(judged) else None,
        reason=reason,
        details={"prompt_sha256": prompt, "turns": turns,
                 "off_turns": [t.turn for t in judged if t.result.value == 0.0],
                 "unscored_turns": [t.turn for t in missing]})


TURN_RELEVANCE = TurnRelevance()


register(TURN_RELEVANCE)
