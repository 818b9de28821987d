"""Spans in the OpenInference conventions (Arize Phoenix and its instrumentations), told by
their ``openinference.span.kind``:

- ``LLM``: ``llm.input_messages.{N}.message.role`` / ``.content`` (or
  ``.contents.{K}.message_content.text``) / ``.tool_call_id`` /
  ``.tool_calls.{K}.tool_call.id`` / ``.tool_call.function.name`` / ``.arguments`` is the input,
  ``llm.output_messages.{N}.message.*`` the output, ``llm.tools.{K}.tool.json_schema`` the tools;
- ``TOOL``: ``output.value`` is the result of the call to ``tool.name`` (``tool_call.id`` when
  given);
- ``RETRIEVER``: ``retrieval.documents.{K}.document.content`` (``.id``, ``.score``) are the
  documents the next assistant turn is grounded on;
- ``CHAIN``, ``AGENT`` and the rest carry nothing a row needs.

``session.id`` is the conversation id.

Example:
    >>> step = Step(0, "s1", "")
    >>> read({"openinference.span.kind": "RETRIEVER",
    ...       "retrieval.documents.0.document.content": "Paris is in France.",
    ...       "retrieval.documents.0.document.id": "d1"}, [], step)
    True
    >>> step.kind, step.documents
    ('retrieval', [{'content': 'Paris is in France.', 'id': 'd1'}])
"""

from __future__ import annotations

from typing import Any

from ._otlp_step import Step, indexed, json_value, message_text, openai_call, text

__all__ = ["FIX", "NAME", "read"]

NAME = "OpenInference"
FIX = ("record message content in the traces (leave OPENINFERENCE_HIDE_INPUTS, "
       "OPENINFERENCE_HIDE_OUTPUTS, OPENINFERENCE_HIDE_INPUT_MESSAGES and "
       "OPENINFERENCE_HIDE_OUTPUT_MESSAGES unset)")


def read(attrs: dict[str, Any], events: list[dict[str, Any]], step: Step) -> bool:
    """Fill ``step`` from an OpenInference span; False when the span is not one."""
    kind = attrs.get("openinference.span.kind")
    if not isinstance(kind, str):
        return False
    step.convention, kind = NAME, kind.upper()
    if kind == "LLM":
        step.kind = "inference"
        step.inputs = _messages(indexed(attrs, "llm.input_messages."), "user", step.span_id)
        step.outputs = _messages(indexed(attrs, "llm.output_messages."), "assistant",
                                 step.span_id)
        if not step.inputs and not step.outputs:
            step.missing = "no llm.input_messages or llm.output_messages attributes"
        tools = [json_value(t["tool.json_schema"]) for t in indexed(attrs, "llm.tools.")
                 if t.get("tool.json_schema") is not None]
        if tools:
            step.tools = tools
    elif kind == "TOOL":
        step.kind = "tool"
        if attrs.get("output.value") is not None:
            call_id, result = attrs.get("tool_call.id"), attrs["output.value"]
            message = _tool_message(result)
            if message is not None:  # LangChain's ToolMessage, as JSON
                result, call_id = message.get("content"), call_id or message.get("tool_call_id")
            step.tool_result = (None if call_id is None else str(call_id),
                                attrs.get("tool.name"), message_text(result)
                                if message is not None else text(result))
    elif kind == "RETRIEVER":
        step.kind = "retrieval"
        for doc in indexed(attrs, "retrieval.documents."):
            if isinstance(doc.get("document.content"), str):
                step.documents.append({"content": doc["document.content"], **{
                    k: doc[f"document.{k}"] for k in ("id", "score")
                    if doc.get(f"document.{k}") is not None}})
        if not step.documents:
            step.missing = "no retrieval.documents.N.document.content attributes"
    return True


def _tool_message(value: Any) -> dict[str, Any] | None:
    """The fields of a LangChain ``ToolMessage`` serialised as ``output.value``
    (``{"type": "tool", "data": {"content", "tool_call_id", ...}}``), else None."""
    if not isinstance(value, str) or not value.startswith("{"):
        return None
    found = json_value(value, loose=True)
    if isinstance(found, dict) and found.get("type") == "tool" and \
            isinstance(found.get("data"), dict):
        return found["data"]
    return None


def _messages(items: list[dict[str, Any]], role: str, span_id: str) -> list[dict[str, Any]]:
    """The OpenAI-form messages of a list's items (an item with nothing in it is left out)."""
    out = [_message(m, role, f"{span_id}.{role[0]}{n}") for n, m in enumerate(items)]
    return [m for m, f in zip(out, items) if m.get("content") or m.get("tool_calls") or
            "message.role" in f]


def _message(fields: dict[str, Any], role: str, where: str) -> dict[str, Any]:
    """One OpenAI-form message of the ``message.*`` fields of one list item."""
    if not isinstance(fields.get("message.role", role), str):
        raise TypeError("message.role is not text")
    role = fields.get("message.role") or role
    content = fields.get("message.content")
    if content is None:
        parts = indexed(fields, "message.contents.")
        content = [p.get("message_content.text") for p in parts
                   if p.get("message_content.type", "text") == "text"]
        content = [c for c in content if isinstance(c, str)]
    if role == "tool":
        return {"role": "tool", "tool_call_id": str(fields.get("message.tool_call_id")),
                "content": message_text(content)}
    calls = [openai_call(c.get("tool_call.id"), c.get("tool_call.function.name"),
                         c.get("tool_call.function.arguments"), f"{where}.{k}")
             for k, c in enumerate(indexed(fields, "message.tool_calls."))
             if c.get("tool_call.function.name")]
    if not calls and fields.get("message.function_call_name"):  # the older function call
        calls = [openai_call(None, fields["message.function_call_name"],
                             fields.get("message.function_call_arguments_json"), f"{where}.0")]
    return {"role": role, "content": message_text(content),
            **({"tool_calls": calls} if calls else {})}
