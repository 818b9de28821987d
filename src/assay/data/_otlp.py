"""OpenTelemetry GenAI traces, exported as OTLP JSON, as conversation rows.

A record holding ``resourceSpans`` is one OTLP export (``{"resourceSpans": [{"resource",
"scopeSpans": [{"spans": [...]}]}]}``), a whole ``.json`` file or one line of a ``.jsonl``
file. The spans of every export in the file are grouped by ``traceId``; each trace becomes one
conversation record in OpenAI form, checked like any other row. Its id is the root span's
``gen_ai.conversation.id`` when the file's traces do not share it, else the trace id.

What is read, in span start order (the GenAI semantic conventions, v1.37 and later, with the
older ``gen_ai.prompt`` / ``gen_ai.completion`` JSON attributes as a fallback):

- inference spans (``gen_ai.operation.name`` ``chat``, ``text_completion`` or
  ``generate_content``): the first one's ``gen_ai.system_instructions`` and
  ``gen_ai.input.messages`` give the opening turns; every one's ``gen_ai.output.messages`` gives
  assistant turns (``text`` and ``tool_call`` parts); a later one's ``tool_call_response``
  parts give the results of calls not answered yet; ``gen_ai.tool.definitions`` gives ``tools``.
- ``execute_tool`` spans: ``gen_ai.tool.call.result`` (opt-in in the conventions) answers the
  call ``gen_ai.tool.call.id`` (or the earliest unanswered call of ``gen_ai.tool.name``).
- ``assay.reference_tool_calls`` (a JSON string on any span, or the resource): the row's
  ``reference_tool_calls``. Traces rarely carry it; without it, reference metrics are skipped.

Spans that cannot be used (no trace id, content that is not JSON) are left out and counted in
one warning; a trace with no user message is a problem (file, line, trace id, fix).

Example:
    >>> attrs = [{"key": "n", "value": {"intValue": "3"}},
    ...          {"key": "xs", "value": {"arrayValue": {"values": [{"stringValue": "a"}]}}}]
    >>> attributes(attrs)
    {'n': 3, 'xs': ['a']}
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterable, Iterator
from typing import Any

__all__ = ["attributes", "is_export", "traces_as_records"]

log = logging.getLogger("assay.data")
_INFERENCE = ("chat", "text_completion", "generate_content")
_SCALARS = ("stringValue", "boolValue", "intValue", "doubleValue", "bytesValue")
_FIX_CONTENT = ("record message content in the traces (e.g. OTEL_INSTRUMENTATION_GENAI_CAPTURE_"
                "MESSAGE_CONTENT=true) so that chat spans carry gen_ai.input.messages")
_warned: set[str] = set()


def is_export(rec: dict[str, Any]) -> bool:
    """Whether a record is an OTLP trace export (it holds a ``resourceSpans`` list)."""
    return isinstance(rec.get("resourceSpans"), list)


def _value(v: Any) -> Any:
    """The Python value of one OTLP ``AnyValue`` (``intValue`` is a string in OTLP JSON)."""
    if not isinstance(v, dict):
        return None
    for key in _SCALARS:
        if key in v:
            return v[key] if key != "intValue" or isinstance(v[key], int) else (
                int(v[key]) if str(v[key]).lstrip("-").isdigit() else None)
    if isinstance(v.get("arrayValue"), dict):
        return [_value(x) for x in v["arrayValue"].get("values") or []]
    if isinstance(v.get("kvlistValue"), dict):
        return attributes(v["kvlistValue"].get("values"))
    return None


def attributes(raw: Any) -> dict[str, Any]:
    """OTLP ``[{"key", "value": AnyValue}]`` as ``{key: value}``."""
    out: dict[str, Any] = {}
    for kv in raw if isinstance(raw, list) else []:
        if isinstance(kv, dict) and isinstance(kv.get("key"), str):
            out[kv["key"]] = _value(kv.get("value"))
    return out


def _json(value: Any, *, loose: bool = False) -> Any:
    """A JSON attribute decoded (it is usually a string); ValueError when it does not parse,
    unless ``loose`` (then the text itself)."""
    try:
        return json.loads(value) if isinstance(value, str) else value
    except ValueError:
        if loose:
            return value
        raise


def _text(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def _messages(raw: Any, span_id: str) -> list[dict[str, Any]]:
    """OpenAI-form messages of a conventions message list (``parts``), or of one already in
    OpenAI form (``content``). Raises ValueError when it is neither."""
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
                calls.append({"id": str(p.get("id") or f"{span_id}.{k}"), "type": "function",
                              "function": {"name": p["name"],
                                           "arguments": _text(p.get("arguments") or {})}})
            elif p.get("type") == "tool_call_response" and p.get("id") is not None:
                out.append({"role": "tool", "tool_call_id": str(p["id"]),
                            "content": _text(p.get("response"))})
                answers += 1
        if texts or calls or not (answers or m.get("role") == "tool"):
            role = "assistant" if m.get("role") in ("model", "assistant") else m.get("role")
            out.append({"role": role, "content": "\n\n".join(texts),
                        **({"tool_calls": calls} if calls else {})})
    return out


class _Trace:
    """The spans of one trace, turned into one conversation record."""

    def __init__(self, trace_id: str, line: int) -> None:
        self.trace_id, self.line = trace_id, line
        self.spans: list[tuple[int, dict[str, Any], dict[str, Any]]] = []
        self.resource: dict[str, Any] = {}
        self.replayed = 0  # how many messages the next inference span's input repeats

    def record(self, skipped: list[str]) -> dict[str, Any]:
        messages: list[dict[str, Any]] = []
        pending: list[tuple[str, str]] = []  # (call id, name) not answered yet
        rec: dict[str, Any] = {"trace_id": self.trace_id}
        refs = self.resource.get("assay.reference_tool_calls")
        started = False
        for _, span, attrs in sorted(self.spans, key=lambda s: s[0]):
            span_id = str(span.get("spanId") or "?")
            refs = attrs.get("assay.reference_tool_calls", refs)
            if attrs.get("gen_ai.conversation.id") and not span.get("parentSpanId"):
                rec["conversation_id"] = str(attrs["gen_ai.conversation.id"])
            op = attrs.get("gen_ai.operation.name")
            try:
                if op in _INFERENCE:
                    started = self._inference(attrs, span_id, started, messages, pending, rec)
                elif op == "execute_tool":
                    self._tool(attrs, messages, pending)
            except (ValueError, TypeError) as e:
                skipped.append(f"trace {self.trace_id} span {span_id}: {e}")
        if refs is not None:
            try:
                rec["reference_tool_calls"] = _json(refs)
            except ValueError:
                rec["reference_tool_calls"] = refs  # reported by the row reader
        return {**rec, "messages": messages}

    def _inference(self, attrs: dict[str, Any], span_id: str, started: bool,
                   messages: list[dict[str, Any]], pending: list[tuple[str, str]],
                   rec: dict[str, Any]) -> bool:
        inputs = self._side(attrs, "gen_ai.input.messages", "gen_ai.prompt", span_id)
        outputs = self._side(attrs, "gen_ai.output.messages", "gen_ai.completion", span_id)
        if "tools" not in rec and attrs.get("gen_ai.tool.definitions") is not None:
            rec["tools"] = _json(attrs["gen_ai.tool.definitions"])
        if not started:
            system = attrs.get("gen_ai.system_instructions")
            if system is not None:
                parts = _json(system, loose=True)
                parts = parts if isinstance(parts, list) else [{"type": "text",
                                                                "content": _text(parts)}]
                messages.extend(_messages([{"role": "system", "parts": parts}], span_id))
            for m in inputs:
                self._add(m, messages, pending)
        else:  # the history again: only its tool results, and user messages past the last
            for k, m in enumerate(inputs):  # span's input and output are new
                if m.get("role") == "tool" or (m.get("role") == "user" and k >= self.replayed):
                    self._add(m, messages, pending)
        self.replayed = len(inputs) + len(outputs)
        for m in outputs:
            self._add({**m, "role": "tool" if m.get("role") == "tool" else "assistant"},
                      messages, pending)
        return started or bool(inputs)

    @staticmethod
    def _side(attrs: dict[str, Any], key: str, old: str, span_id: str) -> list[dict[str, Any]]:
        """The messages of ``key`` (JSON), else of the older ``old`` (JSON or plain text)."""
        if attrs.get(key) is not None:
            return _messages(_json(attrs[key]), span_id)
        return [] if attrs.get(old) is None else _messages(_json(attrs[old], loose=True),
                                                            span_id)

    def _tool(self, attrs: dict[str, Any], messages: list[dict[str, Any]],
              pending: list[tuple[str, str]]) -> None:
        if "gen_ai.tool.call.result" not in attrs:
            return  # the result is opt-in: the next chat span's input may carry it
        call_id, name = attrs.get("gen_ai.tool.call.id"), attrs.get("gen_ai.tool.name")
        match = next((c for c, n in pending if c == str(call_id)), None) or \
            next((c for c, n in pending if n == name), None)  # calls logged without ids
        if match is not None:
            self._add({"role": "tool", "tool_call_id": match,
                       "content": _text(attrs["gen_ai.tool.call.result"])}, messages, pending)

    @staticmethod
    def _add(m: dict[str, Any], messages: list[dict[str, Any]],
             pending: list[tuple[str, str]]) -> None:
        """Append ``m``; a tool result only when it answers a pending call (once)."""
        if m.get("role") == "tool":
            answered = next((p for p in pending if p[0] == m.get("tool_call_id")), None)
            if answered is None:
                return
            pending.remove(answered)
        for call in m.get("tool_calls") or []:
            if isinstance(call, dict) and isinstance(call.get("function"), dict):
                pending.append((str(call.get("id")), str(call["function"].get("name"))))
        messages.append(m)


def traces_as_records(records: Iterable[tuple[int, dict[str, Any]]], source: str,
                      problems: list[str]) -> Iterator[tuple[int, dict[str, Any]]]:
    """``records`` with every OTLP export taken out and, at the end, one conversation record
    per trace of those exports (line: the first line holding one of its spans).

    Example:
        >>> say = json.dumps([{"role": "user", "parts": [{"type": "text", "content": "Hi"}]}])
        >>> span = {"traceId": "t1", "attributes": [{"key": k, "value": {"stringValue": v}}
        ...     for k, v in [("gen_ai.operation.name", "chat"), ("gen_ai.input.messages", say)]]}
        >>> export = {"resourceSpans": [{"scopeSpans": [{"spans": [span]}]}]}
        >>> list(traces_as_records([(1, {"answer": "x"}), (2, export)], "d.jsonl", []))
        [(1, {'answer': 'x'}), (2, {'trace_id': 't1', 'messages': [{'role': 'user', 'content': 'Hi'}], 'id': 't1'})]
    """
    traces: dict[str, _Trace] = {}
    skipped: list[str] = []
    for line, rec in records:
        if not is_export(rec):
            yield line, rec
            continue
        for rs in rec["resourceSpans"]:
            rs = rs if isinstance(rs, dict) else {}
            res = rs.get("resource")
            resource = attributes(res.get("attributes") if isinstance(res, dict) else None)
            for ss in rs.get("scopeSpans") or rs.get("instrumentationLibrarySpans") or []:
                for span in (ss.get("spans") if isinstance(ss, dict) else None) or []:
                    tid = span.get("traceId") if isinstance(span, dict) else None
                    if not isinstance(tid, str) or not tid:
                        skipped.append(f"line {line}: a span without a traceId")
                        continue
                    trace = traces.setdefault(tid, _Trace(tid, line))
                    trace.resource.update(resource)
                    start = span.get("startTimeUnixNano") or 0
                    trace.spans.append((int(start) if str(start).isdigit() else 0, span,
                                        attributes(span.get("attributes"))))
    out = [(t, t.record(skipped)) for t in traces.values()]
    shared = [r.get("conversation_id") for _, r in out]
    for trace, rec in out:
        cid = rec.get("conversation_id")
        rec["id"] = cid if cid and shared.count(cid) == 1 else trace.trace_id
        if not any(m.get("role") == "user" for m in rec["messages"]):
            problems.append(f"{source} line {trace.line} (trace {trace.trace_id}): no user "
                            f"message in the trace's chat spans. Fix: {_FIX_CONTENT}.")
            continue
        yield trace.line, rec
    if skipped:
        _warn(f"{source}: {len(skipped):,} span{'s' if len(skipped) != 1 else ''} could not "
              f"be read and {'were' if len(skipped) != 1 else 'was'} left out (the first: "
              f"{skipped[0]}).")


def _warn(message: str) -> None:
    """Log ``message`` once (a streamed dataset is read more than once)."""
    if message not in _warned:
        _warned.add(message)
        log.warning("%s", message)
