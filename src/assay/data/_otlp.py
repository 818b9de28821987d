"""OpenTelemetry GenAI traces, exported as OTLP JSON, as conversation rows.

A record holding ``resourceSpans`` is one OTLP export (``{"resourceSpans": [{"resource",
"scopeSpans": [{"spans": [...]}]}]}``), a whole ``.json`` file or one line of a ``.jsonl``
file (the Collector's file exporter writes one export per line). The spans of every export
are grouped by ``traceId``; each trace becomes one conversation record in OpenAI form, checked
like any other row. Its id is the root span's ``gen_ai.conversation.id`` (OpenInference:
``session.id``) when the file's traces do not share it, else the trace id.

Each span is read in the convention it is written in, detected from its attributes and events
(one trace may mix them):

- the GenAI semantic conventions 1.37 and later (``gen_ai.input.messages``,
  ``gen_ai.output.messages``, ``gen_ai.system_instructions``, ``execute_tool`` spans), and the
  older ``gen_ai.prompt`` / ``gen_ai.completion`` JSON attributes (see ``_otlp_semconv``);
- the span events of the conventions 1.27 to 1.36 (``gen_ai.user.message``, ...,
  ``gen_ai.choice``; see ``_otlp_events``), and the same events sent as OTLP log records
  (``resourceLogs`` records, which fill the span they name; see ``_otlp_logs``);
- OpenLLMetry's indexed attributes (``gen_ai.prompt.0.content``, ...; ``_otlp_openllmetry``);
- OpenInference (``openinference.span.kind``, ``llm.input_messages.0.message.content``, ...;
  RETRIEVER spans' documents become the row's ``contexts`` and the next assistant turn's
  citations; ``_otlp_openinference``).

``assay.reference_tool_calls`` (a JSON string on any span, or the resource) gives the row's
``reference_tool_calls``. Traces rarely carry it; without it, reference metrics are skipped.

Memory stays bounded by what the conversations hold: an export is read as soon as the reader
gives it and only each span's decoded reading (a :class:`~._otlp_step.Step`) is kept, never
the raw spans. Spans that cannot be read (no trace id, content that is not JSON) are left out
and counted in one warning, as are model-call spans of a detected convention without content;
a trace with no user message is a problem (file, line, trace id, conventions seen, fix: the
way of the instrumentation scope that wrote the spans, see ``_otlp_fixes``, else of the
convention). A model-call span whose status is ERROR gives no answer; when none follows, the
record's ``app_failed`` says why, and its row is left unscored with it (see ``_otlp_trace``).

Example:
    >>> attrs = [{"key": "n", "value": {"intValue": "3"}}]
    >>> attributes(attrs)
    {'n': 3}
"""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from ._otlp_events import FIX as EVENTS_FIX
from ._otlp_events import NAME as EVENTS
from ._otlp_events import read as read_events
from ._otlp_fixes import scope_fix
from ._otlp_index import CONVERSATION_KEYS, TraceIndex, export_spans
from ._otlp_logs import DETAILS, is_log_export, log_events
from ._otlp_openinference import FIX as OPENINFERENCE_FIX
from ._otlp_openinference import NAME as OPENINFERENCE
from ._otlp_openinference import read as read_openinference
from ._otlp_openllmetry import FIX as OPENLLMETRY_FIX
from ._otlp_openllmetry import NAME as OPENLLMETRY
from ._otlp_openllmetry import read as read_openllmetry
from ._otlp_semconv import FIX as SEMCONV_FIX
from ._otlp_semconv import NAME as SEMCONV
from ._otlp_semconv import OLD_NAME as OLD_JSON
from ._otlp_semconv import read as read_semconv
from ._otlp_step import Step, attributes, json_value
from ._otlp_trace import Trace

__all__ = ["attributes", "is_export", "stream_traces", "traces_as_records"]

log = logging.getLogger("assay.data")
#: The convention readers, in the order they are tried on a span: the first that knows it
#: reads it (OpenInference and OpenLLMetry name themselves; message events, then the
#: attributes of the GenAI conventions, which a span without content also matches).
_READERS: tuple[Callable[[dict[str, Any], list[dict[str, Any]], Step], bool], ...] = (
    read_openinference, read_openllmetry, read_events, read_semconv)
_FIXES = {SEMCONV: SEMCONV_FIX, OLD_JSON: SEMCONV_FIX, EVENTS: EVENTS_FIX,
          OPENLLMETRY: OPENLLMETRY_FIX, OPENINFERENCE: OPENINFERENCE_FIX}
_warned: set[str] = set()


def is_export(rec: dict[str, Any]) -> bool:
    """Whether a record is an OTLP trace export (it holds a ``resourceSpans`` list).

    Example:
        >>> is_export({"resourceSpans": []}), is_export({"answer": "x"})
        (True, False)
    """
    return isinstance(rec.get("resourceSpans"), list)


def traces_as_records(records: Iterable[tuple[int, dict[str, Any]]], source: str,
                      problems: list[str]) -> Iterator[tuple[int, dict[str, Any]]]:
    """``records`` with every OTLP export taken out and, at the end, one conversation record
    per trace of those exports (line: the first line holding one of its spans). Each export
    is read as it comes (``records`` may be a generator) and only its spans' readings are
    kept.

    Example:
        >>> import json
        >>> say = json.dumps([{"role": "user", "parts": [{"type": "text", "content": "Hi"}]}])
        >>> span = {"traceId": "t1", "attributes": [{"key": k, "value": {"stringValue": v}}
        ...     for k, v in [("gen_ai.operation.name", "chat"), ("gen_ai.input.messages", say)]]}
        >>> export = {"resourceSpans": [{"scopeSpans": [{"spans": [span]}]}]}
        >>> list(traces_as_records([(1, {"answer": "x"}), (2, export)], "d.jsonl", []))
        [(1, {'answer': 'x'}), (2, {'trace_id': 't1', 'messages': [{'role': 'user', 'content': 'Hi'}], 'id': 't1'})]
    """
    return stream_traces(records, source, problems, None)


def stream_traces(records: Iterable[tuple[int, dict[str, Any]]], source: str,
                  problems: list[str], index: TraceIndex | None
                  ) -> Iterator[tuple[int, dict[str, Any]]]:
    """:func:`traces_as_records`; with the ``index`` of the same records (see
    ``_otlp_index``), each trace is handed on, and forgotten, once its last line is read."""
    traces: dict[str, Trace] = {}
    skipped: list[str] = []
    empty: list[str] = []
    shared = index.conversations if index is not None else Counter[str]()
    for line, rec in records:
        if is_log_export(rec):
            _read_logs(line, rec, traces)
        elif is_export(rec):
            _read_export(line, rec, traces, skipped)
        else:
            yield line, rec
            continue
        for tid in index.ends.get(line, []) if index is not None else []:
            trace = traces.pop(tid, None)
            if trace is not None:
                _read_logged(trace, skipped)
                yield from _finished(trace, trace.record(), shared, source, problems, empty)
    for trace in traces.values():
        _read_logged(trace, skipped)
    out = [(t, t.record()) for t in traces.values()]
    if index is None:
        shared = Counter(r["conversation_id"] for _, r in out if r.get("conversation_id"))
    for trace, rec in out:
        yield from _finished(trace, rec, shared, source, problems, empty)
    if skipped:
        _warn(f"{source}: {_count(len(skipped), 'span')} could not be read and "
              f"{'were' if len(skipped) != 1 else 'was'} left out (the first: {skipped[0]}).")
    if empty:
        _warn(f"{source}: {_count(len(empty), 'trace')} had model-call or retrieval spans "
              f"without content, read without them (the first: {empty[0]}).")


def _finished(trace: Trace, rec: dict[str, Any], shared: Counter[str], source: str,
              problems: list[str], empty: list[str]) -> Iterator[tuple[int, dict[str, Any]]]:
    """The record of a whole trace (none, and a problem, when it has no user message)."""
    cid = rec.get("conversation_id")
    rec["id"] = cid if cid and shared[cid] == 1 else trace.trace_id
    if not any(m.get("role") == "user" for m in rec["messages"]):
        problems.append(_no_user_problem(source, trace))
        return
    missing = trace.missing()
    if missing:
        empty.append(f"trace {trace.trace_id}, {missing[0]}")
    yield trace.line, rec


def _read_export(line: int, rec: dict[str, Any], traces: dict[str, Trace],
                 skipped: list[str]) -> None:
    """Add the readings of every span of one export to its trace in ``traces``."""
    resources: dict[int, dict[str, Any]] = {}  # each resource's attributes, read once
    for resource_block, span in export_spans(rec):
        tid = span.get("traceId") if isinstance(span, dict) else None
        if not isinstance(tid, str) or not tid:
            skipped.append(f"line {line}: a span without a traceId")
            continue
        trace = traces.get(tid)
        if trace is None:
            trace = traces[tid] = Trace(tid, line)
        if trace.refs is None and resource_block:
            resource = resources.get(id(resource_block))
            if resource is None:
                resource = resources[id(resource_block)] = attributes(
                    resource_block.get("attributes"))
            if "assay.reference_tool_calls" in resource:
                trace.refs = _refs(resource["assay.reference_tool_calls"])
        _read_span(span, trace, skipped)


def _read_logs(line: int, rec: dict[str, Any], traces: dict[str, Trace]) -> None:
    """Keep the GenAI events of one logs export with the span they belong to."""
    for tid, sid, event in log_events(rec):
        trace = traces.get(tid)
        if trace is None:
            trace = traces[tid] = Trace(tid, line)
        trace.logged.setdefault(sid, []).append(event)


def _read_logged(trace: Trace, skipped: list[str]) -> None:
    """Read the log events of each span into its step: they are its content when the span
    carries none (a span never seen gets a step of its own, started at its first event)."""
    steps = {s.span_id: s for s in trace.steps}
    for sid, events in trace.logged.items():
        events.sort(key=lambda e: _nanos(e.get("timeUnixNano")))
        read = Step(_nanos(events[0].get("timeUnixNano")), sid, "")
        details = [e for e in events if e.get("name") == DETAILS]
        try:
            if details:  # the 1.37 event: the call's attributes, as on a span
                read_semconv({"gen_ai.operation.name": "chat",
                              **attributes(details[-1].get("attributes"))}, [], read)
            else:
                read_events({}, events, read)
        except (ValueError, TypeError, AttributeError) as e:
            skipped.append(f"trace {trace.trace_id} span {sid} ({EVENTS}, as logs): {e}")
            continue
        step = steps.get(sid)
        if step is None:
            trace.steps.append(read)
        elif step.kind == "inference" and not (step.inputs or step.outputs):
            step.inputs, step.outputs, step.convention = read.inputs, read.outputs, EVENTS
            step.missing = read.missing
    trace.logged = {}


def _nanos(raw: Any) -> int:
    return int(raw) if str(raw).isdigit() else 0


def _read_span(span: dict[str, Any], trace: Trace, skipped: list[str]) -> None:
    """Read one span in the first convention that knows it; keep its reading when it is one."""
    span_id = str(span.get("spanId") or "?")
    attrs = attributes(span.get("attributes"))
    raw_events = span.get("events")
    events = [e for e in raw_events if isinstance(e, dict)] if isinstance(raw_events,
                                                                          list) else []
    if "assay.reference_tool_calls" in attrs:
        trace.refs = _refs(attrs["assay.reference_tool_calls"])
    cid = next((attrs[k] for k in CONVERSATION_KEYS if attrs.get(k)), None)
    if cid and not span.get("parentSpanId"):
        trace.conversation_id = str(cid)
    step = Step(_nanos(span.get("startTimeUnixNano")), span_id, "")
    try:
        if any(read(attrs, events, step) for read in _READERS) and step.kind != "other":
            step.error = _failure(span) if step.kind == "inference" else ""
            if step.error:  # a failed call's empty "answer" (LangChain's) is no answer
                step.outputs = [m for m in step.outputs if m.get("content") or
                                m.get("tool_calls")]
            trace.steps.append(step)
            scope = span.get("scope")
            if isinstance(scope, dict) and isinstance(scope.get("name"), str):
                trace.scopes.setdefault(scope["name"], scope.get("version"))
    except (ValueError, TypeError, AttributeError) as e:
        what = f" ({step.convention})" if step.convention else ""
        skipped.append(f"trace {trace.trace_id} span {span_id}{what}: {e}")


def _failure(span: dict[str, Any]) -> str:
    """Why the span's call failed (its status is ERROR: code 2), first line of the status
    message, or "" when it did not."""
    status = span.get("status")
    if not isinstance(status, dict) or status.get("code") not in (2, "2", "STATUS_CODE_ERROR"):
        return ""
    message = str(status.get("message") or "").split("Traceback (most recent call last)")[0]
    message = message.strip().split("\n", 1)[0][:300]
    return message or "status ERROR"


def _refs(value: Any) -> Any:
    try:
        return json_value(value)
    except ValueError:
        return value  # reported by the row reader


def _no_user_problem(source: str, trace: Trace) -> str:
    seen = trace.conventions()
    where = f"{source} line {trace.line} (trace {trace.trace_id})"
    if not seen:
        return (f"{where}: no model-call span in a convention assay reads (the GenAI semantic "
                "conventions, OpenLLMetry, OpenInference). Fix: instrument the app's model "
                "calls (e.g. opentelemetry-instrumentation-openai-v2), or give the file that "
                "holds their traces.")
    if trace.has_content():  # content was recorded, but no user turn in it
        return (f"{where}: no user message in the trace's model-call spans (read as "
                f"{', '.join(seen)}; they hold only assistant, system or tool messages). Fix: "
                "record the model calls' input (the user's message) in the traces.")
    by_scope = [f for f in (scope_fix(n, v) for n, v in trace.scopes.items()) if f]
    fixes = list(dict.fromkeys(by_scope or [_FIXES[c] for c in seen if c in _FIXES])) or [
        SEMCONV_FIX]
    detail = "; ".join(trace.missing()) or f"{', '.join(seen)}: no model-call span"
    return (f"{where}: no user message in the trace's chat spans. Fix: {'; or '.join(fixes)}. "
            f"(Found {detail}.)")


def _count(n: int, noun: str) -> str:
    return f"{n:,} {noun}{'s' if n != 1 else ''}"


def _warn(message: str) -> None:
    """Log ``message`` once (a streamed dataset is read more than once)."""
    if message not in _warned:
        _warned.add(message)
        log.warning("%s", message)
