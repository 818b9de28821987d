"""Spans in the OpenTelemetry GenAI semantic conventions, v1.37 and later (content on span
attributes), and the older ``gen_ai.prompt`` / ``gen_ai.completion`` JSON attributes.

- inference spans (``gen_ai.operation.name`` ``chat``, ``text_completion`` or
  ``generate_content``): ``gen_ai.system_instructions`` and ``gen_ai.input.messages`` are the
  input, ``gen_ai.output.messages`` the output (``text``, ``tool_call`` and
  ``tool_call_response`` parts), ``gen_ai.tool.definitions`` the tools. The same attributes on
  a ``gen_ai.client.inference.operation.details`` event are read too.
- ``execute_tool`` spans: ``gen_ai.tool.call.result`` (opt-in) answers the call
  ``gen_ai.tool.call.id`` (or, without one, the earliest unanswered call of
  ``gen_ai.tool.name``).
- older instrumentations: ``gen_ai.prompt`` / ``gen_ai.completion`` holding a JSON list of
  OpenAI-form messages, or plain text.

Example:
    >>> import json
    >>> say = json.dumps([{"role": "user", "parts": [{"type": "text", "content": "Hi"}]}])
    >>> step = Step(0, "s1", "")
    >>> read({"gen_ai.operation.name": "chat", "gen_ai.input.messages": say}, [], step)
    True
    >>> step.convention, step.kind, step.inputs
    ('GenAI semantic conventions 1.37', 'inference', [{'role': 'user', 'content': 'Hi'}])
"""

from __future__ import annotations

from typing import Any

from ._otlp_step import INFERENCE, Step, attributes, json_value, openai_call, text

__all__ = ["FIX", "NAME", "OLD_NAME", "messages", "read"]

NAME = "GenAI semantic conventions 1.37"
OLD_NAME = "gen_ai.prompt/gen_ai.completion JSON attributes"
#: How to make this convention's spans carry content.
FIX = ("record message content in the traces (e.g. OTEL_INSTRUMENTATION_GENAI_CAPTURE_"
       "MESSAGE_CONTENT=true) so that chat spans carry gen_ai.input.messages")
_DETAILS = "gen_ai.client.inference.operation.details"
_KEYS = ("gen_ai.input.messages", "gen_ai.output.messages", "gen_ai.system_instructions")


def read(attrs: dict[str, Any], events: list[dict[str, Any]], step: Step) -> bool:
    """Fill ``step`` from a span in this convention; False when the span is not one.
    Raises ValueError (or TypeError) for content that is not what the conventions say."""
    op = attrs.get("gen_ai.operation.name")
    if op == "execute_tool":
        step.convention, step.kind = NAME, "tool"
        if "gen_ai.tool.call.result" in attrs:  # opt-in: the next chat input may carry it
            call_id = attrs.get("gen_ai.tool.call.id")
            step.tool_result = (None if call_id is None else str(call_id),
                                attrs.get("gen_ai.tool.name"),
                                text(attrs["gen_ai.tool.call.result"]))
        return True
    for event in events:  # content recorded on the operation-details event
        if event.get("name") == _DETAILS:
            attrs = {**attrs, **attributes(event.get("attributes"))}
    new = any(attrs.get(k) is not None for k in _KEYS)
    old = attrs.get("gen_ai.prompt") is not None or attrs.get("gen_ai.completion") is not None
    if op not in INFERENCE and (op is not None or not (new or old)):
        return False  # an agent span may repeat the conversation: only model calls count
    step.convention, step.kind = NAME if new or not old else OLD_NAME, "inference"
    system = attrs.get("gen_ai.system_instructions")
    if system is not None:
        parts = json_value(system, loose=True)
        parts = parts if isinstance(parts, list) else [{"type": "text", "content": text(parts)}]
        step.inputs.extend(messages([{"role": "system", "parts": parts}], step.span_id))
    for key, older, side in (("gen_ai.input.messages", "gen_ai.prompt", step.inputs),
                             ("gen_ai.output.messages", "gen_ai.completion", step.outputs)):
        if attrs.get(key) is not None:
            side.extend(messages(json_value(attrs[key]), step.span_id))
        elif attrs.get(older) is not None:  # JSON, or plain text
            side.extend(messages(json_value(attrs[older], loose=True), step.span_id))
    if not new and not old:
        step.missing = "no gen_ai.input.messages or gen_ai.output.messages"
    if attrs.get("gen_ai.tool.definitions") is not None:
        step.tools = json_value(attrs["gen_ai.tool.definitions"])
    return True


def messages(raw: Any, span_id: str) -> list[dict[str, Any]]:
    """OpenAI-form messages of a conventions message list (``parts``), or of one already in
    OpenAI form (``content``). Raises ValueError when it is neither.

    Example:
        >>> messages([{"role": "assistant", "parts": [{"type": "tool_call", "id": "c1",
        ...            "name": "f", "arguments": {"x": 1}}]}], "s")[0]["tool_calls"]
        [{'id': 'c1', 'type': 'function', 'function': {'name': 'f', 'arguments': '{"x": 1}'}}]
    """
    if isinstance(raw, str):  # an old plain-text prompt or completion
        return [{"role": "user", "content": raw}]
    if not isinstance(raw, list) or not all(isinstance(m, dict) for m in raw):
        raise ValueError("not a list of messages")
    out: list[dict[str, Any]] = []
    for m in raw:
        if not isinstance(m.get("parts"), list):
            out.append(m)  # OpenAI form, checked by the row reader
            continue
        texts, calls, answers = [], [], 0
        for k, p in enumerate(x for x in m["parts"] if isinstance(x, dict)):
            if p.get("type") == "text" and isinstance(p.get("content"), str):
                texts.append(p["content"])
            elif p.get("type") == "tool_call" and isinstance(p.get("name"), str):
                calls.append(openai_call(p.get("id"), p["name"], p.get("arguments"),
                                         f"{span_id}.{k}"))
            elif p.get("type") == "tool_call_response" and p.get("id") is not None:
                out.append({"role": "tool", "tool_call_id": str(p["id"]),
                            "content": text(p.get("response"))})
                answers += 1
        if texts or calls or not (answers or m.get("role") == "tool"):
            role = "assistant" if m.get("role") in ("model", "assistant") else m.get("role")
            out.append({"role": role, "content": "\n\n".join(texts),
                        **({"tool_calls": calls} if calls else {})})
    return out
