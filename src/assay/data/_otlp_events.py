"""Spans in the span-event style of the GenAI semantic conventions 1.27 to 1.36.

The model call's messages are events on its span (OTLP JSON: ``span["events"] = [{"name",
"timeUnixNano", "attributes"}]``), in order:

- ``gen_ai.system.message``, ``gen_ai.user.message``, ``gen_ai.assistant.message`` (``content``,
  ``tool_calls`` in OpenAI form) and ``gen_ai.tool.message`` (``id``: the call it answers,
  ``content``): the input;
- ``gen_ai.choice`` (``index``, ``finish_reason``, ``message`` ``{content, tool_calls}``): the
  output.

The event body is either a JSON string in ``gen_ai.event.content`` (the Azure SDKs) or
individual attributes (``content``, ``role``, ``tool_calls``, ``id``, ``message``); both are
read. Content may be text, OpenAI parts or Azure's ``{"text": {"value"}}``.

Example:
    >>> events = [{"name": "gen_ai.user.message", "attributes": [{"key": "gen_ai.event.content",
    ...            "value": {"stringValue": '{"content": "Hi"}'}}]},
    ...           {"name": "gen_ai.choice", "attributes": [{"key": "message",
    ...            "value": {"stringValue": '{"content": "Hello!"}'}}]}]
    >>> step = Step(0, "s1", "")
    >>> read({"gen_ai.operation.name": "chat"}, events, step)
    True
    >>> step.inputs, step.outputs
    ([{'role': 'user', 'content': 'Hi'}], [{'role': 'assistant', 'content': 'Hello!'}])
"""

from __future__ import annotations

from typing import Any

from ._otlp_step import INFERENCE, Step, attributes, json_value, message_text, openai_call

__all__ = ["FIX", "NAME", "read"]

NAME = "GenAI semantic conventions 1.27-1.36 span events"
FIX = ("record message content in the traces (e.g. OTEL_INSTRUMENTATION_GENAI_CAPTURE_"
       "MESSAGE_CONTENT=true, or AZURE_TRACING_GEN_AI_CONTENT_RECORDING_ENABLED=true) so that "
       "the gen_ai.*.message events carry their content")
_ROLES = {"gen_ai.system.message": "system", "gen_ai.user.message": "user",
          "gen_ai.assistant.message": "assistant", "gen_ai.tool.message": "tool"}
_CHOICE = "gen_ai.choice"


def read(attrs: dict[str, Any], events: list[dict[str, Any]], step: Step) -> bool:
    """Fill ``step`` from a span whose messages are events; False when it has none."""
    named = [e for e in events if e.get("name") in _ROLES or e.get("name") == _CHOICE]
    if not named:
        return False
    step.convention, step.kind = NAME, "inference"
    for k, event in enumerate(named):
        body = _body(event)
        where = f"{step.span_id}.e{k}"
        if event["name"] == _CHOICE:
            msg = json_value(body.get("message"), loose=True)
            msg = msg if isinstance(msg, dict) else {"content": msg}
            tool_calls = msg.get("tool_calls", body.get("tool_calls"))
            step.outputs.append(_message("assistant", msg.get("content"), tool_calls, where))
        else:
            role = _ROLES[event["name"]]
            if role == "tool":
                call_id = body.get("id", body.get("tool_call_id"))
                step.inputs.append({"role": "tool", "tool_call_id": str(call_id),
                                    "content": message_text(body.get("content"))})
            else:
                step.inputs.append(_message(role, body.get("content"), body.get("tool_calls"),
                                            where))
    if not any(m.get("content") or m.get("tool_calls") for m in step.inputs + step.outputs):
        step.missing = "events without content"
    if attrs.get("gen_ai.tool.definitions") is not None:  # when the span carries it too
        step.tools = json_value(attrs["gen_ai.tool.definitions"])
    if attrs.get("gen_ai.operation.name") not in (*INFERENCE, None):
        step.kind = "other"  # an agent span repeating the conversation
    return True


def _body(event: dict[str, Any]) -> dict[str, Any]:
    """The event's fields: its attributes, with the JSON of ``gen_ai.event.content`` merged."""
    attrs = attributes(event.get("attributes"))
    payload = json_value(attrs.pop("gen_ai.event.content", None), loose=True)
    if isinstance(payload, dict):
        attrs.update(payload)
    elif payload is not None:
        attrs["content"] = payload
    if isinstance(event.get("body"), dict):  # the log-record form, when a bridge copied it
        attrs.update(event["body"])
    return attrs


def _message(role: str, content: Any, tool_calls: Any, where: str) -> dict[str, Any]:
    """One OpenAI-form message; ``tool_calls`` in OpenAI form (a list, or its JSON)."""
    calls = json_value(tool_calls) if tool_calls is not None else []
    if not isinstance(calls, list):
        raise TypeError("tool_calls is not a list")
    out_calls = []
    for j, c in enumerate(x for x in calls if isinstance(x, dict)):
        fn = c["function"] if isinstance(c.get("function"), dict) else c
        out_calls.append(openai_call(c.get("id"), fn.get("name"), fn.get("arguments"),
                                     f"{where}.{j}"))
    return {"role": role, "content": message_text(content),
            **({"tool_calls": out_calls} if out_calls else {})}
