"""Spans written by OpenLLMetry (Traceloop): one attribute per message field, indexed.

- ``gen_ai.prompt.{N}.role`` / ``.content`` / ``.tool_call_id`` and
  ``gen_ai.prompt.{N}.tool_calls.{K}.id`` / ``.name`` / ``.arguments``: the input;
- ``gen_ai.completion.{N}.role`` / ``.content`` / ``.finish_reason`` / ``.tool_calls.{K}.*``:
  the output;
- ``llm.request.functions.{K}.name`` / ``.description`` / ``.parameters`` (JSON): the tools.

(Newer OpenLLMetry releases, 0.62 for one, write the 1.37 attributes instead: see
``_otlp_semconv``.) A span is OpenLLMetry's when it holds such indexed attributes, ``llm.request.type``
(``chat``, ``completion``) or ``traceloop.span.kind``. A ``traceloop.span.kind`` ``tool``
span's ``traceloop.entity.output`` is the result of the tool ``traceloop.entity.name``.

Example:
    >>> step = Step(0, "s1", "")
    >>> read({"llm.request.type": "chat", "gen_ai.prompt.0.role": "user",
    ...       "gen_ai.prompt.0.content": "Hi", "gen_ai.completion.0.role": "assistant",
    ...       "gen_ai.completion.0.content": "Hello!"}, [], step)
    True
    >>> step.inputs, step.outputs
    ([{'role': 'user', 'content': 'Hi'}], [{'role': 'assistant', 'content': 'Hello!'}])
"""

from __future__ import annotations

import re
from typing import Any

from ._otlp_step import Step, indexed, json_value, message_text, openai_call, text

__all__ = ["FIX", "NAME", "read"]

NAME = "OpenLLMetry (Traceloop)"
FIX = "record message content in the traces (TRACELOOP_TRACE_CONTENT=true, the default)"
_PREFIXES = ("gen_ai.prompt.", "gen_ai.completion.")
_INDEXED = re.compile(r"gen_ai\.(?:prompt|completion)\.\d+\.")
_MODEL_CALLS = ("chat", "completion")


def read(attrs: dict[str, Any], events: list[dict[str, Any]], step: Step) -> bool:
    """Fill ``step`` from an OpenLLMetry span; False when the span is not one."""
    request = attrs.get("llm.request.type")
    kind = attrs.get("traceloop.span.kind")
    flat = any(k.startswith(_PREFIXES) and _INDEXED.match(k) for k in attrs)
    if not flat and request is None and kind is None:
        return False
    step.convention = NAME
    if kind == "tool" and not flat:
        step.kind = "tool"
        if attrs.get("traceloop.entity.output") is not None:
            out = json_value(attrs["traceloop.entity.output"], loose=True)
            if isinstance(out, dict) and "output" in out:  # {"output": ..., "kwargs": ...}
                out = out["output"]
            step.tool_result = (None, attrs.get("traceloop.entity.name"), text(out))
        return True
    if not flat and request not in _MODEL_CALLS:
        return True  # a workflow or task span: nothing of the conversation
    step.kind = "inference"
    step.inputs = _messages(indexed(attrs, "gen_ai.prompt."), "user", step.span_id)
    step.outputs = _messages(indexed(attrs, "gen_ai.completion."), "assistant", step.span_id)
    if not step.inputs and not step.outputs:
        step.missing = "no gen_ai.prompt.N.content or gen_ai.completion.N.content attributes"
    tools = [_tool(t) for t in indexed(attrs, "llm.request.functions.")]
    if tools:
        step.tools = tools
    return True


def _messages(items: list[dict[str, Any]], role: str, span_id: str) -> list[dict[str, Any]]:
    """The OpenAI-form messages of a list's items (an item with nothing in it is left out)."""
    out = [_message(m, role, f"{span_id}.{role[0]}{n}") for n, m in enumerate(items)]
    return [m for m, f in zip(out, items) if m.get("content") or m.get("tool_calls") or
            "role" in f]


def _message(fields: dict[str, Any], role: str, where: str) -> dict[str, Any]:
    if not isinstance(fields.get("role", role), str):
        raise TypeError("role is not text")
    role = fields.get("role") or role
    if role == "tool":
        return {"role": "tool", "tool_call_id": str(fields.get("tool_call_id")),
                "content": message_text(fields.get("content"))}
    calls = [openai_call(c.get("id"), c.get("name"), c.get("arguments"), f"{where}.{k}")
             for k, c in enumerate(indexed(fields, "tool_calls.")) if c.get("name")]
    if not calls and fields.get("function_call.name"):  # the older single function call
        calls = [openai_call(fields.get("function_call.id"), fields["function_call.name"],
                             fields.get("function_call.arguments"), f"{where}.0")]
    content = fields.get("content")
    if isinstance(content, str) and content.startswith("[{"):  # a list of parts, as JSON
        parts = json_value(content, loose=True)
        content = parts if isinstance(parts, list) else content
    return {"role": role, "content": message_text(content),
            **({"tool_calls": calls} if calls else {})}


def _tool(fields: dict[str, Any]) -> dict[str, Any]:
    params = json_value(fields.get("parameters"), loose=True)
    return {"type": "function", "function": {
        "name": fields.get("name"),
        **({"description": fields["description"]} if fields.get("description") else {}),
        **({"parameters": params} if params is not None else {})}}
