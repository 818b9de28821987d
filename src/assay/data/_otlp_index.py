"""A first pass over a file of OTLP exports: the last line of each trace, and the root
conversation ids, so that the reading pass can hand each trace on as soon as its last line is
read and drop it (memory then holds only the traces still open, whatever the file's size).

Only a file made of exports alone (of spans, and of logs) is indexed (a Collector file exporter's ``.jsonl``): with
other records in it, the traces come after them, as they always did.

Example:
    >>> spans = [{"traceId": "a", "attributes": [{"key": "gen_ai.conversation.id",
    ...           "value": {"stringValue": "c1"}}]}, {"traceId": "b", "parentSpanId": "x"}]
    >>> index = index_traces([(1, {"resourceSpans": [{"scopeSpans": [{"spans": spans}]}]}),
    ...                       (2, {"resourceSpans": [{"scopeSpans": [{"spans": spans[1:]}]}]})])
    >>> index.ends, index.conversations
    ({1: ['a'], 2: ['b']}, Counter({'c1': 1}))
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from ._otlp_ids import hex_ids
from ._otlp_logs import is_log_export, log_records
from ._otlp_step import attributes

__all__ = ["CONVERSATION_KEYS", "TraceIndex", "export_spans", "index_traces"]

#: The root span attributes that name a trace's conversation (the first found wins).
CONVERSATION_KEYS = ("gen_ai.conversation.id", "session.id")


@dataclass
class TraceIndex:
    """``ends``: the traces whose last span is on each line; ``conversations``: how many
    traces have each root conversation id."""

    ends: dict[int, list[str]] = field(default_factory=dict)
    conversations: Counter[str] = field(default_factory=Counter)


def export_spans(rec: dict[str, Any]) -> Iterator[tuple[dict[str, Any], Any]]:
    """(resource attributes block, span) for every span of one export, its ids in hex and its
    instrumentation ``scope`` (``{name, version}``) with it (spans that are not objects
    included: the caller reports them)."""
    for rs in rec["resourceSpans"]:
        rs = rs if isinstance(rs, dict) else {}
        res = rs.get("resource")
        resource = res if isinstance(res, dict) else {}
        for ss in rs.get("scopeSpans") or rs.get("instrumentationLibrarySpans") or []:
            scope = ss.get("scope") if isinstance(ss, dict) else None
            for span in (ss.get("spans") if isinstance(ss, dict) else None) or []:
                span = hex_ids(span)
                if isinstance(scope, dict) and isinstance(span, dict) and "scope" not in span:
                    span = {**span, "scope": scope}  # which library wrote it
                yield resource, span


def index_traces(records: Iterable[tuple[int, dict[str, Any]]]) -> TraceIndex | None:
    """The index of a file's records, or None when one of them is not an OTLP export."""
    last: dict[str, int] = {}
    roots: dict[str, str] = {}
    for line, rec in records:
        if isinstance(rec, dict) and is_log_export(rec):
            for lr in log_records(rec):
                tid = lr.get("traceId") if isinstance(lr, dict) else None
                if isinstance(tid, str) and tid:
                    last[tid] = line
            continue
        if not isinstance(rec, dict) or not isinstance(rec.get("resourceSpans"), list):
            return None
        for _, span in export_spans(rec):
            tid = span.get("traceId") if isinstance(span, dict) else None
            if not isinstance(tid, str) or not tid:
                continue
            last[tid] = line
            if not span.get("parentSpanId"):
                attrs = attributes(span.get("attributes"))
                cid = next((attrs[k] for k in CONVERSATION_KEYS if attrs.get(k)), None)
                if cid:
                    roots[tid] = str(cid)
    index = TraceIndex(conversations=Counter(roots.values()))
    for tid, line in last.items():
        index.ends.setdefault(line, []).append(tid)
    return index
