"""Rubrics over a whole conversation: one judge request per row, a 1-5 score, a reason, and
the assistant turn the reason is about (``details["turn"]``, its index into ``messages``, when
the judge names one).

- ``goal_completion``: did the conversation reach the scenario's ``expected_outcome`` (or, when
  the row gives none, its ``goal``)? A 1-5 scale, not a Yes/No verdict: an outcome is often
  several things (rebook the flight *and* waive the fee), and reaching part of it, or reaching
  it with a wrong detail, is worth telling apart from reaching none of it; the scale is
  ``task_completion``'s, so the two read side by side. The simulator's own ``stop_reason``
  (what the simulated user thought) is not read: the judge's view is independent of it.
- ``knowledge_retention``: the app does not ask again for what the user already told it, and
  does not contradict it later.
- ``role_adherence``: the app's turns stay within the role and instructions of the system
  message the conversation starts with.

Example:
    >>> import asyncio
    >>> from assay.data import Row, Turn
    >>> from assay.judges import FakeJudge
    >>> from assay.metrics import ScoreContext
    >>> row = Row(id="c", line=1, messages=[
    ...     Turn(role="user", content="I'm Ana, booking 4417. Move it to Friday."),
    ...     Turn(role="assistant", content="Done: booking 4417 is on Friday."),
    ...     Turn(role="user", content="Thanks. Is breakfast included?"),
    ...     Turn(role="assistant", content="Yes. What was your booking number again?")])
    >>> judge = FakeJudge('{"score": 3, "reason": "Asks for the booking number again.", '
    ...                   '"turn": 3}')
    >>> r = asyncio.run(KNOWLEDGE_RETENTION.score(row, ScoreContext(judge=judge)))
    >>> r.value, r.reason, r.details["turn"]
    (3.0, 'Asks for the booking number again.', 3)
    >>> GOAL_COMPLETION.applies(row)
    'row has no expected_outcome or goal: goal_completion judges the conversation against one'
"""

from __future__ import annotations

from typing import Any

from ...data import Row
from .._base import MetricResult, ScoreContext
from .._register import register
from ..judge import RubricMetric
from ._transcript import (
    NAMED_TURN_SCHEMA,
    ConversationView,
    instructions_of,
    parse_named_turn,
    place_turn,
    scenario_text,
    scenario_text_problem,
)

__all__ = ["GOAL_COMPLETION", "KNOWLEDGE_RETENTION", "ROLE_ADHERENCE", "ConversationRubricMetric"]


class ConversationRubricMetric(RubricMetric):
    """A 1-5 rubric over a whole conversation (``parts``: the texts its template reads, of
    ``conversation``, ``instructions``, ``goal`` and ``expected_outcome``; see
    :class:`ConversationView`). The run's ``reasons`` setting applies as to every rubric; an
    answer with a reason may name a turn, which is kept when it is an assistant turn."""

    def __init__(self, name: str, parts: tuple[str, ...]) -> None:
        super().__init__(name, {"messages"}, conversation=True, max_tokens=200)
        self.parts = parts

    def applies(self, row: Row) -> str | None:
        messages = row.messages
        if messages is None:
            return f"row has no messages: {self.name} scores conversations"
        if "expected_outcome" in self.parts:
            for field in ("expected_outcome", "goal"):
                if (problem := scenario_text_problem(row, field)) is not None:
                    return f"row's {problem.removeprefix('its ')}"
            if scenario_text(row, "expected_outcome") is None and scenario_text(row, "goal") is None:
                return (f"row has no expected_outcome or goal: {self.name} judges the "
                        "conversation against one")
            if not any(t.role == "assistant" for t in messages):
                return "conversation has no assistant turn: the app did nothing to judge"
            return None
        if "instructions" in self.parts and instructions_of(row) is None:
            return (f"conversation does not start with a system message: {self.name} judges "
                    "the app's turns against it")
        if not any(row.request_before(i) is not None for i, _ in row.assistant_turns()):
            return "conversation has no assistant turn with text after a user turn"
        return None

    async def score(self, row: Row, ctx: ScoreContext) -> MetricResult:
        why = self.applies(row)
        if why:
            return MetricResult.unscored(f"does not apply: {why}")
        view = ConversationView.of(row)
        texts: dict[str, str | None] = {"conversation": view.transcript,
                                        "instructions": view.instructions, "goal": view.goal,
                                        "expected_outcome": view.expected_outcome}
        result = await self._rate({part: texts[part] for part in self.parts}, ctx)
        if result.value is not None:
            place_turn(result.details, row)
            if "expected_outcome" in self.parts:  # what the outcome was judged against
                result.details["against"] = ("expected_outcome" if view.expected_outcome
                                             else "goal")
        return result

    reasoned_schema = NAMED_TURN_SCHEMA  # the answer may name the turn its reason is about

    def parse_reasoned(self, text: str) -> tuple[int, str, dict[str, Any]] | None:
        """``(score, reason, {"turn": N})`` (no turn when the answer named none), or None."""
        named = parse_named_turn(text)
        if named is None:
            return None
        score, reason, turn = named
        return score, reason, ({"turn": turn} if turn is not None else {})


GOAL_COMPLETION = ConversationRubricMetric(
    "goal_completion", ("goal", "expected_outcome", "conversation"))
KNOWLEDGE_RETENTION = ConversationRubricMetric("knowledge_retention", ("conversation",))
ROLE_ADHERENCE = ConversationRubricMetric("role_adherence", ("instructions", "conversation"))


for _metric in (GOAL_COMPLETION, KNOWLEDGE_RETENTION, ROLE_ADHERENCE):
    register(_metric)
