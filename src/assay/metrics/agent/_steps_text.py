"""An agent conversation as the judged agent rubrics read it: the user's request, the system
instructions, the declared tools, the trajectory of calls and results, the tool results alone,
and the final answer, each compact plain text.

A long tool result is cut to :data:`RESULT_CHARS` characters (the cut is marked) so that one
large payload cannot crowd the rest of the trajectory out of a small judge's context.

Example:
    >>> from assay.data import Row, ToolCall, ToolSpec, Turn
    >>> call = ToolCall(id="c1", name="weather", arguments_text='{"city": "Oslo"}')
    >>> row = Row(id="a", line=1, messages=[
    ...     Turn(role="system", content="Answer in one sentence."),
    ...     Turn(role="user", content="Weather in Oslo?"),
    ...     Turn(role="assistant", content="", tool_calls=[call]),
    ...     Turn(role="tool", content='{"temp_c": 3}', tool_call_id="c1"),
    ...     Turn(role="assistant", content="It is 3 °C in Oslo.")],
    ...     tools=[ToolSpec(name="weather", description="Current weather.",
    ...                     parameters={"type": "object", "required": ["city"],
    ...                                 "properties": {"city": {"type": "string"}}})])
    >>> view = AgentView.of(row)
    >>> print(view.trajectory)
    1. call weather {"city": "Oslo"}
       result: {"temp_c": 3}
    >>> view.answer, view.instructions, view.tools
    ('It is 3 °C in Oslo.', 'Answer in one sentence.', 'weather(city: string): Current weather.')
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ...data import Row, ToolSpec

__all__ = ["RESULT_CHARS", "AgentView", "final_answer", "is_agent_row"]

#: The most characters of one tool result shown to the judge.
RESULT_CHARS = 800


def is_agent_row(row: Row) -> bool:
    """A conversation that calls a tool or declares tools it could call."""
    return row.kind == "conversation" and (bool(row.tool_calls()) or bool(row.tools))


def final_answer(row: Row) -> str | None:
    """The conversation's final answer: its last message, when that is an assistant turn with
    text (None for a conversation that ends on a call or a tool result)."""
    last = row.messages[-1] if row.messages else None
    return last.content if last is not None and last.role == "assistant" and last.has_text else None


def _cut(text: str, limit: int = RESULT_CHARS) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else f"{text[:limit]} …[cut, {len(text)} characters]"


def _tool_line(spec: ToolSpec) -> str:
    """``name(arg: type, optional?: type): description``."""
    params: dict[str, Any] = spec.parameters or {}
    props: dict[str, Any] = params.get("properties") or {}
    required = set(params.get("required") or [])
    args = ", ".join(f"{name}{'' if name in required else '?'}: "
                     f"{(schema or {}).get('type', 'any') if isinstance(schema, dict) else 'any'}"
                     for name, schema in props.items())
    return f"{spec.name}({args})" + (f": {spec.description}" if spec.description else "")


@dataclass(frozen=True)
class AgentView:
    """The texts of one agent conversation (``None`` where the conversation has none)."""

    request: str | None
    instructions: str | None
    tools: str | None
    trajectory: str
    tool_results: str | None
    answer: str | None

    @classmethod
    def of(cls, row: Row) -> AgentView:
        """Read ``row`` (a conversation). The final answer is the last message when it is an
        assistant turn with text; the trajectory is every later step after the first user turn,
        numbered calls with their results, and user or assistant texts in between."""
        messages = row.messages or []
        results = {t.tool_call_id: t.content for t in messages if t.role == "tool"}
        final = messages[-1] if final_answer(row) is not None else None
        users = [t.content for t in messages if t.role == "user"]
        request = (users[0] if len(users) == 1 else
                   "\n".join(f"({n}) {u}" for n, u in enumerate(users, start=1)) or None)
        first_user = next((i for i, t in enumerate(messages) if t.role == "user"), len(messages))
        lines: list[str] = []
        shown: list[str] = []
        step = 0
        for i, turn in enumerate(messages):
            if i <= first_user or turn is final or turn.role in ("system", "tool"):
                continue
            if turn.content.strip():
                lines.append(f"{turn.role}: {_cut(turn.content)}")
            for call in turn.tool_calls or []:
                step += 1
                lines.append(f"{step}. call {call.name} {_cut(call.arguments_text, 400)}")
                result = results.get(call.id)
                lines.append(f"   result: {_cut(result) if result is not None else '(none)'}")
                if result is not None:
                    shown.append(f"{call.name} {_cut(call.arguments_text, 200)} -> "
                                 f"{_cut(result)}")
        system = "\n".join(t.content for t in messages if t.role == "system" and t.content)
        return cls(request=request, instructions=system or None,
                   tools="\n".join(_tool_line(s) for s in row.tools or []) or None,
                   trajectory="\n".join(lines) or "(no steps: the agent answered directly)",
                   tool_results="\n".join(shown) or None,
                   answer=final_answer(row))
