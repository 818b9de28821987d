"""The GenAI event log records of the watch spool (see :mod:`._spool`): kept with their trace
until it is done, read with its spans.

A record opens its trace like a span (the logs exporter may send it first), but only spans
finish a trace; a record sent twice (an exporter's retry) is kept once (by its digest), and
one of a trace already done is left out (late).
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import time
from collections.abc import Mapping, Sequence
from typing import Any

from ._spool_base import OpenTrace, Transaction

__all__ = ["SpoolLogs"]


class SpoolLogs:
    """The log records' part of :class:`~._spool.Spool` (its ``logs`` table)."""

    db: sqlite3.Connection
    _open: dict[str, OpenTrace]

    def _transaction(self) -> Transaction:
        raise NotImplementedError

    def _done(self, trace_ids: set[str]) -> set[str]:
        raise NotImplementedError

    def add_logs(self, records: Sequence[tuple[Mapping[str, Any], Mapping[str, Any]]]) -> int:
        """Write ``(log record, resource)`` pairs of GenAI events (hex ids) durably; the
        number new to the spool (a record of a trace already done is left out: late)."""
        now = time.time()
        new: dict[str, int] = {}
        with self._transaction():
            done = self._done({str(r["traceId"]) for r, _ in records})
            for record, resource in records:
                tid = str(record["traceId"])
                if tid in done:
                    continue
                text = json.dumps(record, separators=(",", ":"), sort_keys=True)
                cur = self.db.execute("INSERT OR IGNORE INTO logs VALUES (?, ?, ?, ?)", (
                    tid, hashlib.sha256(text.encode()).hexdigest(), text,
                    json.dumps(resource, separators=(",", ":"))))
                new[tid] = new.get(tid, 0) + cur.rowcount
            for tid in new:
                self.db.execute(
                    "INSERT INTO traces (trace_id, state, first_received, last_received) "
                    "VALUES (?, 'open', ?, ?) ON CONFLICT (trace_id) DO UPDATE SET "
                    "last_received = excluded.last_received", (tid, now, now))
        for tid, count in new.items():
            trace = self._open.setdefault(tid, _open_trace(tid, now))
            trace.spans += count
            trace.last_received = now
        return sum(new.values())

    def logs_of(self, trace_id: str) -> dict[str, Any] | None:
        """The trace's log records as one OTLP JSON logs export, or None when it has none."""
        groups: dict[str, list[dict[str, Any]]] = {}
        for record, resource in self.db.execute(
                "SELECT record, resource FROM logs WHERE trace_id = ? ORDER BY rowid",
                (trace_id,)):
            groups.setdefault(resource, []).append(json.loads(record))
        return {"resourceLogs": [{"resource": json.loads(res), "scopeLogs": [{
            "logRecords": records}]} for res, records in groups.items()]} if groups else None



def _open_trace(trace_id: str, now: float) -> OpenTrace:
    return OpenTrace(trace_id, 0, now, None, None, None)
