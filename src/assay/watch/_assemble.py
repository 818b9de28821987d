"""From spooled spans to a row: when a trace is finished, and the row it gives.

A trace is finished when its root span (no ``parentSpanId``: exported when it ends) arrived
``grace`` seconds ago (for spans of the same trace still in an exporter's batch), or when no
new span came for ``idle`` seconds. The row is what ``assay run`` would read from the same
spans in an OTLP file (:func:`assay.data.traces_as_records`), with the trace id as its id.

Example:
    >>> from assay.watch._spool import OpenTrace
    >>> t = OpenTrace("t1", spans=2, last_received=100.0, root_received=None,
    ...               root_span_id=None, ended_ns=None)
    >>> is_finished(t, 105.0, idle=10, grace=1), is_finished(t, 111.0, idle=10, grace=1)
    (False, True)
    >>> say = '[{"role": "user", "parts": [{"type": "text", "content": "Hi"}]}]'
    >>> span = {"traceId": "t1", "spanId": "s1", "attributes": [
    ...     {"key": "gen_ai.operation.name", "value": {"stringValue": "chat"}},
    ...     {"key": "gen_ai.input.messages", "value": {"stringValue": say}}]}
    >>> row, why = trace_row({"resourceSpans": [{"scopeSpans": [{"spans": [span]}]}]}, "t1")
    >>> row.id, row.messages[0].content, why
    ('t1', 'Hi', None)
    >>> lone = {"resourceSpans": [{"scopeSpans": [{"spans": [{"traceId": "t2"}]}]}]}
    >>> trace_row(lone, "t2")[1][:18]
    'no model-call span'
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from ..data import Row, rows_from_records, traces_as_records
from ..errors import DataError
from ._spool import OpenTrace

__all__ = ["AWAITS_CONTENT", "is_finished", "trace_row"]

#: How the reason of a trace whose model-call spans carry no messages begins: their content
#: may still come as log records (a logs exporter sends apart from the spans' exporter).
AWAITS_CONTENT = "no user message in the trace's chat spans"


def is_finished(trace: OpenTrace, now: float, *, idle: float, grace: float) -> bool:
    """Whether the trace is finished at wall-clock time ``now`` (see the module docstring)."""
    if trace.root_received is not None and now - trace.root_received >= grace:
        return True
    return now - trace.last_received >= idle


def trace_row(export: Mapping[str, Any], trace_id: str, *, max_field_chars: int = 100_000,
              logs: Mapping[str, Any] | None = None) -> tuple[Row | None, str | None]:
    """``(row, None)`` for a trace that gives a conversation row (its id: the trace id), else
    ``(None, why not)``; ``logs``: the GenAI event log records of the trace (one OTLP logs
    export), read into the spans they name. Never raises for what a trace holds."""
    problems: list[str] = []
    records = [(0, dict(export))] + ([(0, dict(logs))] if logs else [])
    try:
        found = list(traces_as_records(records, "watch", problems))
    except Exception as e:  # noqa: BLE001 - a trace that trips the reader is skipped, said why
        return None, f"the trace could not be read: {type(e).__name__}: {e}"
    if not found:
        return None, general(problems[0]) if problems else "no GenAI spans in the trace"
    record = dict(found[0][1])
    record["id"] = trace_id
    try:
        rows = rows_from_records([record], source=f"trace {trace_id}",
                                 max_field_chars=max_field_chars, long_fields="truncate")
    except DataError as e:
        return None, "; ".join(general(p) for p in e.problems) or str(e)
    return rows[0], None


#: Where a reader's problem happened (the trace is the row: its id is kept with the reason).
_WHERE = re.compile(r"^(?:watch line \d+ \(trace [^)]*\)|trace \S+ line \d+),?:?\s*")


def general(problem: str) -> str:
    """A reader's problem without the trace it names, so the same reason on many traces is
    counted as one (the skipped trace keeps its id beside it).

    Example:
        >>> general("watch line 0 (trace 0af7): no model-call span in a convention")
        'no model-call span in a convention'
        >>> general("trace 0af7 line 1, field 'messages[0].role': got 'bot'.")
        "field 'messages[0].role': got 'bot'."
    """
    return _WHERE.sub("", problem, count=1)
