"""The evaluable items: QA rows and conversations.

Example:
    >>> row = Row(id="1", line=1, question="Who?", answer="Ada.")
    >>> row.kind, sorted(row.fields())
    ('qa', ['answer', 'question'])
"""

from __future__ import annotations

import json
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

__all__ = ["Citation", "ReferenceCall", "Row", "ToolCall", "ToolSpec", "Turn"]


class Citation(BaseModel):
    """A retrieved document that an assistant turn was grounded on."""

    model_config = ConfigDict(extra="allow")
    id: str | None = None
    title: str | None = None
    content: str


class ToolCall(BaseModel):
    """One function call an assistant turn made. ``arguments_text`` is the raw arguments string
    as the agent wrote it: text that is not a JSON object is the agent's mistake, scored by the
    agent metrics, not an input error.

    Example:
        >>> ToolCall(id="c1", name="f", arguments_text='{"x": 1}').arguments()
        {'x': 1}
        >>> ToolCall(id="c2", name="f", arguments_text="{x: 1}").arguments() is None
        True
        >>> ToolCall(id="c1", name="f", arguments_text='{"x": 1}').openai()
        {'id': 'c1', 'type': 'function', 'function': {'name': 'f', 'arguments': '{"x": 1}'}}
    """

    id: str
    name: str
    arguments_text: str = "{}"

    def openai(self) -> dict[str, Any]:
        """The OpenAI chat-completions shape, which the dataset reader takes back."""
        return {"id": self.id, "type": "function",
                "function": {"name": self.name, "arguments": self.arguments_text}}

    def arguments(self) -> dict[str, Any] | None:
        """The arguments as an object, or None when the text is not a JSON object."""
        try:
            value = json.loads(self.arguments_text)
        except (ValueError, RecursionError):
            return None
        return value if isinstance(value, dict) else None


class ToolSpec(BaseModel):
    """A tool the agent could call (an OpenAI function tool): ``parameters`` is its JSON Schema.

    Example:
        >>> ToolSpec(name="f", parameters={"type": "object"}).openai()
        {'type': 'function', 'function': {'name': 'f', 'parameters': {'type': 'object'}}}
    """

    name: str
    description: str | None = None
    parameters: dict[str, Any] | None = None

    def openai(self) -> dict[str, Any]:
        """The OpenAI chat-completions shape ``{"type": "function", "function": {...}}``."""
        return {"type": "function", "function": self.model_dump(exclude_none=True)}


class ReferenceCall(BaseModel):
    """An expected call: ``arguments`` by name; ``accept`` lists the acceptable values of an
    argument and overrides ``arguments`` for it (``None`` in it: the argument may be left out).

    Example:
        >>> ref = ReferenceCall(name="f", arguments={"city": "Paris"},
        ...                     accept={"max_price": [200, None]})
        >>> ref.acceptable("city"), ref.acceptable("max_price"), ref.acceptable("x")
        (['Paris'], [200, None], None)
    """

    name: str
    arguments: dict[str, Any] = Field(default_factory=dict)
    accept: dict[str, list[Any]] = Field(default_factory=dict)

    def argument_names(self) -> list[str]:
        """Every argument the reference names, in ``arguments`` then ``accept`` order."""
        return list(dict.fromkeys([*self.arguments, *self.accept]))

    def acceptable(self, name: str) -> list[Any] | None:
        """The acceptable values of argument ``name``, or None when the reference has none."""
        if name in self.accept:
            return list(self.accept[name])
        return [self.arguments[name]] if name in self.arguments else None


class Turn(BaseModel):
    """One message of a conversation; assistant turns may carry citations and tool calls
    (``content`` is then ``""`` when the message had none), tool turns the ``tool_call_id``
    they answer."""

    role: Literal["system", "user", "assistant", "tool"]
    content: str
    citations: list[Citation] = Field(default_factory=list)
    tool_calls: list[ToolCall] | None = None
    tool_call_id: str | None = None

    @property
    def has_text(self) -> bool:
        """False for an assistant turn that only calls tools (no text to rate)."""
        return not (self.tool_calls and not self.content.strip())


class Row(BaseModel):
    """One evaluable item: a QA row (question/answer/...) or a conversation (``messages``).

    ``id`` is the row's own ``id`` field when it has one, else its line number in the file.
    ``contexts`` keeps the retrieved chunks as a list when the input gave one; ``context`` is
    always their joined text. Unknown input fields are kept in ``extra``.
    """

    id: str
    line: int
    question: str | None = None
    context: str | None = None
    contexts: list[str] | None = None
    answer: str | None = None
    ground_truth: str | None = None
    messages: list[Turn] | None = None
    tools: list[ToolSpec] | None = None
    reference_tool_calls: list[ReferenceCall] | None = None
    extra: dict[str, Any] = Field(default_factory=dict)

    @property
    def kind(self) -> Literal["qa", "conversation"]:
        """``conversation`` when the row has messages, else ``qa``."""
        return "conversation" if self.messages is not None else "qa"

    def fields(self) -> set[str]:
        """Names of the evaluable fields present (non-empty), e.g. ``{'question', 'answer'}``.

        For conversations: ``messages``, plus ``citations`` when any assistant turn has some,
        ``tool_calls`` when any calls a tool, ``tools`` and ``reference_tool_calls`` when given
        (an empty reference list is given: the agent should call nothing).
        """
        if self.messages is not None:
            present = {"messages"}
            if any(t.citations for t in self.messages if t.role == "assistant"):
                present.add("citations")
            if any(t.tool_calls for t in self.messages):
                present.add("tool_calls")
            if self.tools is not None:
                present.add("tools")
            if self.reference_tool_calls is not None:
                present.add("reference_tool_calls")
            if self.ground_truth:
                present.add("ground_truth")
            return present
        names = ("question", "context", "answer", "ground_truth")
        return {n for n in names if getattr(self, n) not in (None, "")}

    def assistant_turns(self) -> list[tuple[int, Turn]]:
        """(index, turn) of every assistant turn of a conversation that has text to rate (a
        turn that only calls tools is left out); empty for QA rows."""
        return [(i, t) for i, t in enumerate(self.messages or [])
                if t.role == "assistant" and t.has_text]

    def tool_calls(self) -> list[ToolCall]:
        """The predicted trajectory: every assistant turn's tool calls, in order.

        Example:
            >>> call = ToolCall(id="c1", name="f")
            >>> row = Row(id="1", line=1, messages=[Turn(role="user", content="Go"),
            ...     Turn(role="assistant", content="", tool_calls=[call]),
            ...     Turn(role="tool", content="ok", tool_call_id="c1"),
            ...     Turn(role="assistant", content="Done.")])
            >>> [c.name for c in row.tool_calls()], [i for i, _ in row.assistant_turns()]
            (['f'], [3])
        """
        return [c for t in self.messages or [] if t.role == "assistant"
                for c in t.tool_calls or []]

    def tool_schema(self, name: str) -> dict[str, Any] | None:
        """The JSON Schema of the parameters of the declared tool ``name``, or None."""
        spec = next((t for t in self.tools or [] if t.name == name), None)
        return None if spec is None else spec.parameters

    def request_before(self, turn: int) -> int | None:
        """Index of the last user message before message ``turn`` (what that turn answers),
        or None when no user spoke first.

        Example:
            >>> row = Row(id="1", line=1, messages=[Turn(role="user", content="Hi"),
            ...     Turn(role="assistant", content="Hello"), Turn(role="assistant", content="?")])
            >>> row.request_before(1), row.request_before(2), row.request_before(0)
            (0, 0, None)
        """
        messages = self.messages or []
        return next((j for j in range(turn - 1, -1, -1) if messages[j].role == "user"), None)

    def user_request(self, turn: int) -> str | None:
        """The text of :meth:`request_before` ``turn``, or None."""
        j = self.request_before(turn)
        return None if j is None or self.messages is None else self.messages[j].content
