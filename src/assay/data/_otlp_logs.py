"""GenAI events sent as OTLP log records (``resourceLogs``), as the instrumentations of the
semantic conventions 1.28 to 1.36 do (the Events API): the same ``gen_ai.*.message`` and
``gen_ai.choice`` events as on spans, with their fields in the record's ``body``, tied to a
model-call span by ``traceId`` and ``spanId``; and the newer
``gen_ai.client.inference.operation.details`` event (the conventions 1.37 and later, e.g.
opentelemetry-instrumentation-openai-v2 with ``..._CAPTURE_MESSAGE_CONTENT=EVENT_ONLY``), whose
attributes are the model call's (``gen_ai.input.messages``, ... as structured values).

A Collector writing traces and logs to one file gives lines of both; the events of a span fill
its content when the span itself carries none (see ``_otlp_trace``).

Example:
    >>> rec = {"resourceLogs": [{"scopeLogs": [{"logRecords": [{
    ...     "traceId": "t1", "spanId": "s1", "timeUnixNano": "5", "eventName": "gen_ai.user.message",
    ...     "body": {"kvlistValue": {"values": [{"key": "content", "value": {"stringValue": "Hi"}}]}}}]}]}]}
    >>> [(t, s, e["name"], e["body"]) for t, s, e in log_events(rec)]
    [('t1', 's1', 'gen_ai.user.message', {'content': 'Hi'})]
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ._otlp_ids import hex_ids
from ._otlp_step import attributes, value

__all__ = ["DETAILS", "EVENT_NAMES", "is_log_export", "log_events", "log_records"]

#: The event of the conventions 1.37 and later that holds a whole model call
#: (``gen_ai.input.messages``, ``gen_ai.output.messages``, ... as its attributes).
DETAILS = "gen_ai.client.inference.operation.details"

#: The GenAI events read from log records.
EVENT_NAMES = frozenset({"gen_ai.system.message", "gen_ai.user.message",
                         "gen_ai.assistant.message", "gen_ai.tool.message", "gen_ai.choice",
                         DETAILS})


def is_log_export(rec: dict[str, Any]) -> bool:
    """Whether a record is an OTLP logs export (it holds a ``resourceLogs`` list)."""
    return isinstance(rec.get("resourceLogs"), list)


def log_records(rec: dict[str, Any]) -> Iterator[Any]:
    """Every log record of one logs export, its ids in hex (records that are not objects
    included)."""
    for rl in rec["resourceLogs"]:
        for sl in (rl.get("scopeLogs") if isinstance(rl, dict) else None) or []:
            for lr in (sl.get("logRecords") if isinstance(sl, dict) else None) or []:
                yield hex_ids(lr)


def log_events(rec: dict[str, Any]) -> Iterator[tuple[str, str, dict[str, Any]]]:
    """(trace id, span id, event) for each GenAI event of a logs export; the event in the
    form of a span event (``name``, ``timeUnixNano``, ``attributes``) plus its decoded
    ``body``. Records of other events, or without a trace and span, are passed over."""
    for lr in log_records(rec):
        if not isinstance(lr, dict):
            continue
        tid, sid = lr.get("traceId"), lr.get("spanId")
        if not isinstance(tid, str) or not tid or not isinstance(sid, str) or not sid:
            continue
        name = lr.get("eventName") or attributes(lr.get("attributes")).get("event.name")
        if name not in EVENT_NAMES:
            continue
        body = value(lr.get("body"))
        yield tid, sid, {"name": name, "timeUnixNano": lr.get("timeUnixNano"),
                         "attributes": lr.get("attributes"),
                         "body": body if isinstance(body, dict) else {"content": body}}
