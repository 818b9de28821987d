"""The judged agent metrics: a 1-5 rubric of our own per question, one judge request per row
(plus, under ``reasons=auto`` on a local judge, a second one for a failing row's reason).

- ``task_completion``: the user's task was achieved (tool results and the final answer).
- ``intent_resolution``: the final answer understood and resolved what the user wanted.
- ``task_adherence``: the system instructions and the tools' rules were kept.
- ``tool_selection``: the right declared tools at each step.
- ``tool_output_groundedness``: the final answer is supported by what the tools returned.
- ``step_efficiency``: no redundant or looping calls.

They apply to agent conversations (rows whose messages call a tool or that declare ``tools``).
A conversation that ends without a final answer (an agent that looped until it stopped) is
judged as such: the rubric reads :data:`NO_ANSWER` where the answer would be, and such a run
has not completed its task. An answer given without any tool result is judged for
``tool_output_groundedness`` against :data:`NO_TOOL_RESULT` (its claims have no tool behind
them). Only ``tool_output_groundedness`` of a conversation with no final answer does not apply:
there is no claim to ground.

Example:
    >>> import asyncio
    >>> from assay.data import Row, ToolCall, Turn
    >>> from assay.judges import FakeJudge
    >>> from assay.metrics import ScoreContext
    >>> call = ToolCall(id="c1", name="weather", arguments_text='{"city": "Oslo"}')
    >>> row = Row(id="a", line=1, messages=[Turn(role="user", content="Weather in Oslo?"),
    ...     Turn(role="assistant", content="", tool_calls=[call]),
    ...     Turn(role="tool", content='{"temp_c": 3}', tool_call_id="c1"),
    ...     Turn(role="assistant", content="It is 3 °C in Oslo.")])
    >>> judge = FakeJudge('{"score": 5, "reason": "Done as asked."}')
    >>> r = asyncio.run(TASK_COMPLETION.score(row, ScoreContext(judge=judge)))
    >>> r.value, r.reason, len(judge.requests)
    (5.0, 'Done as asked.', 1)
    >>> STEP_EFFICIENCY.applies(Row(id="q", line=1, question="?", answer="!"))
    'row has no messages: the metric scores agent conversations (that call a tool or declare tools)'
"""

from __future__ import annotations

from ...data import Row
from .._base import MetricResult, ScoreContext
from .._register import register
from ..judge import RubricMetric
from ._steps_text import AgentView, final_answer, is_agent_row

__all__ = ["AGENT_JUDGED", "INTENT_RESOLUTION", "NO_ANSWER", "NO_TOOL_RESULT", "STEP_EFFICIENCY",
           "TASK_ADHERENCE", "TASK_COMPLETION", "TOOL_OUTPUT_GROUNDEDNESS", "TOOL_SELECTION",
           "AgentRubricMetric"]

#: What a rubric reads as the answer of a conversation that ends without one.
NO_ANSWER = "(no final answer: the conversation ends after the agent's last step)"
#: What ``tool_output_groundedness`` reads as the tool results when no tool returned anything.
NO_TOOL_RESULT = "(no tool result: the agent called no tool, or no call returned)"


class AgentRubricMetric(RubricMetric):
    """A 1-5 rubric over an agent conversation's texts (``parts``: the :class:`AgentView`
    fields its template reads)."""

    def __init__(self, name: str, parts: tuple[str, ...]) -> None:
        super().__init__(name, {"messages"}, conversation=True, max_tokens=160)
        self.parts = parts

    def applies(self, row: Row) -> str | None:
        if not is_agent_row(row):
            return ("row has no messages: the metric scores agent conversations (that call a "
                    "tool or declare tools)" if row.kind == "qa" else
                    "conversation calls no tool and declares no tools")
        if "tool_results" in self.parts and final_answer(row) is None:
            return "conversation ends without a final assistant answer: no claim to ground"
        return None

    async def score(self, row: Row, ctx: ScoreContext) -> MetricResult:
        why = self.applies(row)
        if why:
            return MetricResult.unscored(f"does not apply: {why}")
        view = AgentView.of(row)
        values = {part: getattr(view, part) for part in self.parts}
        if "answer" in values and values["answer"] is None:
            values["answer"] = NO_ANSWER
        if "tool_results" in values and values["tool_results"] is None:
            values["tool_results"] = NO_TOOL_RESULT
        return await self._rate(values, ctx)


TASK_COMPLETION = AgentRubricMetric("task_completion", ("request", "trajectory", "answer"))
INTENT_RESOLUTION = AgentRubricMetric("intent_resolution", ("request", "trajectory", "answer"))
TASK_ADHERENCE = AgentRubricMetric(
    "task_adherence", ("instructions", "tools", "request", "trajectory", "answer"))
TOOL_SELECTION = AgentRubricMetric("tool_selection", ("tools", "request", "trajectory"))
TOOL_OUTPUT_GROUNDEDNESS = AgentRubricMetric(
    "tool_output_groundedness", ("request", "tool_results", "answer"))
STEP_EFFICIENCY = AgentRubricMetric("step_efficiency", ("request", "trajectory"))

#: Every judged agent metric, in the order ``--metrics auto`` plans them.
AGENT_JUDGED = (TASK_COMPLETION, INTENT_RESOLUTION, TASK_ADHERENCE, TOOL_SELECTION,
                TOOL_OUTPUT_GROUNDEDNESS, STEP_EFFICIENCY)


for _metric in AGENT_JUDGED:
    register(_metric)
