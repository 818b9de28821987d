"""What one span of a GenAI trace says, whatever convention wrote it, and the OTLP JSON value
helpers the convention readers share.

A :class:`Step` is the compact, already-decoded reading of one span: OpenAI-form messages
(the span's input and output), tool definitions, a tool result or retrieved documents. A trace
keeps its steps only, never the raw span, so that a large export file is read in bounded
memory (see ``_otlp``).

Example:
    >>> attrs = [{"key": "n", "value": {"intValue": "3"}},
    ...          {"key": "xs", "value": {"arrayValue": {"values": [{"stringValue": "a"}]}}}]
    >>> attributes(attrs)
    {'n': 3, 'xs': ['a']}
    >>> indexed({"p.1.role": "user", "p.0.role": "system", "p.0.content": "Be brief."}, "p.")
    [{'role': 'system', 'content': 'Be brief.'}, {'role': 'user'}]
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

__all__ = ["INFERENCE", "Step", "attributes", "indexed", "json_value", "message_text",
           "openai_call", "text", "value"]

#: ``gen_ai.operation.name`` values of an inference (model call) span.
INFERENCE = ("chat", "text_completion", "generate_content")
_SCALARS = ("stringValue", "boolValue", "intValue", "doubleValue", "bytesValue")


@dataclass(slots=True)
class Step:
    """One span's reading. ``kind``: ``inference`` (a model call: ``inputs`` is the history it
    was given, system prompt included; ``outputs`` its answer), ``tool`` (``tool_result`` =
    (call id or None, tool name or None, result text)), ``retrieval`` (``documents``, each
    ``{"content", "id"?, "score"?}``) or ``other``. ``missing`` says what an inference span of
    a detected convention lacked (no message content, usually); ``error``, why an inference
    span whose status is ERROR failed (it then has no output)."""

    start: int
    span_id: str
    convention: str
    kind: str = "other"
    inputs: list[dict[str, Any]] = field(default_factory=list)
    outputs: list[dict[str, Any]] = field(default_factory=list)
    tools: Any = None
    tool_result: tuple[str | None, str | None, str] | None = None
    documents: list[dict[str, Any]] = field(default_factory=list)
    missing: str = ""
    error: str = ""  # the span's status message when the call failed (status ERROR)


def value(v: Any) -> Any:
    """The Python value of one OTLP ``AnyValue`` (``intValue`` is a string in OTLP JSON)."""
    if not isinstance(v, dict):
        return None
    for key in _SCALARS:
        if key in v:
            return v[key] if key != "intValue" or isinstance(v[key], int) else (
                int(v[key]) if str(v[key]).lstrip("-").isdigit() else None)
    if isinstance(v.get("arrayValue"), dict):
        return [value(x) for x in v["arrayValue"].get("values") or []]
    if isinstance(v.get("kvlistValue"), dict):
        return attributes(v["kvlistValue"].get("values"))
    return None


def attributes(raw: Any) -> dict[str, Any]:
    """OTLP ``[{"key", "value": AnyValue}]`` as ``{key: value}``."""
    out: dict[str, Any] = {}
    for kv in raw if isinstance(raw, list) else []:
        if isinstance(kv, dict) and isinstance(kv.get("key"), str):
            out[kv["key"]] = value(kv.get("value"))
    return out


def json_value(value: Any, *, loose: bool = False) -> Any:
    """A JSON attribute decoded (it is usually a string); ValueError when it does not parse,
    unless ``loose`` (then the text itself)."""
    try:
        return json.loads(value) if isinstance(value, str) else value
    except ValueError:
        if loose:
            return value
        raise


def text(value: Any) -> str:
    """``value`` as text: itself when a string, else its JSON."""
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def message_text(content: Any) -> str:
    """The text of a message's content in any usual shape: a string, OpenAI parts
    (``[{"type": "text", "text"}]``), conventions parts (``{"type": "text", "content"}``) or
    Azure's ``{"text": {"value"}}``.

    Example:
        >>> message_text([{"type": "text", "text": "a"}, {"text": {"value": "b"}}])
        'a\\n\\nb'
    """
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n\n".join(t for t in (message_text(p) for p in content) if t)
    if isinstance(content, dict):
        inner = content.get("text", content.get("content", content.get("value")))
        return message_text(inner) if inner is not None else ""
    return text(content)


def openai_call(call_id: Any, name: Any, arguments: Any, fallback_id: str) -> dict[str, Any]:
    """One OpenAI-form tool call; ``arguments`` as text (JSON when given decoded)."""
    return {"id": str(call_id if call_id not in (None, "") else fallback_id),
            "type": "function",
            "function": {"name": str(name), "arguments": text(arguments if arguments
                                                                not in (None, "") else {})}}


def indexed(attrs: dict[str, Any], prefix: str) -> list[dict[str, Any]]:
    """The flattened list ``prefix{N}.rest`` of ``attrs`` as ``[{rest: value}]`` in ``N``
    order (OpenLLMetry and OpenInference write lists this way)."""
    items: dict[int, dict[str, Any]] = {}
    for key, v in attrs.items():
        if not key.startswith(prefix):
            continue
        n, _, rest = key[len(prefix):].partition(".")
        if n.isdigit() and rest:
            items.setdefault(int(n), {})[rest] = v
    return [items[n] for n in sorted(items)]
