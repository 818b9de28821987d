"""A row's input fields as the run store keeps them, so reports need no dataset file.

Example:
    >>> from assay.data import Row, Turn
    >>> row_inputs(Row(id="q1", line=1, question="Who?", answer="Ada.", extra={"topic": "x"}))
    {'question': 'Who?', 'answer': 'Ada.', 'extra': {'topic': 'x'}}
    >>> row_inputs(Row(id="c1", line=2, messages=[Turn(role="user", content="Hi")]))
    {'messages': [{'role': 'user', 'content': 'Hi'}]}
"""

from __future__ import annotations

from typing import Any

from ._models import Row, Turn

__all__ = ["row_inputs"]

_FIELDS = ("question", "context", "contexts", "answer", "ground_truth")


def row_inputs(row: Row) -> dict[str, Any]:
    """``{field: value}`` with the fields ``row`` has: ``question``, ``context``, ``contexts``
    (the retrieved chunks, when given as a list), ``answer``, ``ground_truth``, ``messages``
    (``[{"role", "content", "citations", "tool_calls", "tool_call_id"}]``, defaults left out;
    tool calls in OpenAI's shape, so the stored row reads back as a dataset line),
    ``tools`` (OpenAI function tools), ``reference_tool_calls`` and ``extra``. Empty values are
    left out. JSON-ready: the shape ``Store.add_rows(..., inputs=...)`` stores."""
    fields: dict[str, Any] = {}
    for name in _FIELDS:
        value = getattr(row, name)
        if value not in (None, "", []):
            fields[name] = list(value) if isinstance(value, list) else value
    if row.messages is not None:
        fields["messages"] = [_turn_inputs(t) for t in row.messages]
    if row.tools is not None:
        fields["tools"] = [t.openai() for t in row.tools]
    if row.reference_tool_calls is not None:
        fields["reference_tool_calls"] = [r.model_dump(mode="json", exclude_defaults=True)
                                          for r in row.reference_tool_calls]
    if row.extra:
        fields["extra"] = dict(row.extra)
    return fields


def _turn_inputs(turn: Turn) -> dict[str, Any]:
    """One message as stored: its fields, defaults left out, tool calls in OpenAI's shape."""
    stored = turn.model_dump(mode="json", exclude_defaults=True)
    if turn.tool_calls:
        stored["tool_calls"] = [c.openai() for c in turn.tool_calls]
    return stored
