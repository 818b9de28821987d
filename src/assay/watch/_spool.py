"""The watch spool: every accepted span, written durably before the receiver answers.

One SQLite file (``spool.sqlite`` in the spool folder), WAL mode with ``synchronous=FULL``, so a
committed write survives a crash or ``kill -9`` (and a power cut). Tables:

- ``spans``: one row per span of a trace not scored or skipped yet (trace id, span id, parent
  span id, end time in ns, the span's OTLP JSON and its resource's); a span sent twice (an
  exporter's retry) is kept once. A trace's spans are deleted once it is done (its row is in
  the store), and a span arriving after that (late) is counted, not kept;
- ``traces``: one row per trace with its state: ``open`` (spans arriving), ``scored`` (its row
  is committed to the store), ``skipped`` (no row, with the reason: sampled out, filtered
  out, not a conversation, and the run it was skipped in); these small rows stay, so a trace
  is never scored twice;
- ``logs``: the GenAI event log records of the open traces (a record sent twice is kept
  once), read with the trace's spans and deleted with them; a record opens its trace like a
  span (it may come first), but only spans finish it;
- ``offsets``: how far each followed file was read;
- ``meta``: the watch's run id in the store (a restart resumes it).

A trace is finished (ready to score) from what the spool holds, so a restart finds the same
traces ready: see :mod:`assay.watch._assemble`. Only one process may use a spool folder at a
time (an exclusive lock on ``spool.lock``).

Example:
    >>> import tempfile
    >>> spool = Spool(tempfile.mkdtemp())
    >>> span = {"traceId": "t1", "spanId": "s1", "endTimeUnixNano": "5"}
    >>> spool.add_spans([(span, {})])
    1
    >>> spool.unfinished()["t1"].spans, spool.backlog
    (1, 1)
    >>> spool.mark_done(["t1"], "scored"); spool.backlog, spool.states()
    (0, {'scored': 1})
    >>> spool.add_spans([({**span, "spanId": "s2"}, {})])  # late: counted by the caller
    0
    >>> spool.close()
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from ..errors import option
from ..records import lock_file
from ._spool_base import OpenTrace, Transaction
from ._spool_logs import SpoolLogs

__all__ = ["OpenTrace", "Spool"]

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS spans (
    trace_id TEXT NOT NULL, span_id TEXT NOT NULL, parent TEXT, end_ns INTEGER,
    received REAL NOT NULL, span TEXT NOT NULL, resource TEXT NOT NULL,
    PRIMARY KEY (trace_id, span_id));
CREATE TABLE IF NOT EXISTS traces (
    trace_id TEXT PRIMARY KEY, state TEXT NOT NULL, first_received REAL NOT NULL,
    last_received REAL NOT NULL, root_received REAL, root_span_id TEXT, ended_ns INTEGER,
    reason TEXT, done REAL);
CREATE INDEX IF NOT EXISTS traces_state ON traces (state);
CREATE TABLE IF NOT EXISTS logs (
    trace_id TEXT NOT NULL, digest TEXT NOT NULL, record TEXT NOT NULL, resource TEXT NOT NULL,
    PRIMARY KEY (trace_id, digest));
CREATE TABLE IF NOT EXISTS offsets (path TEXT PRIMARY KEY, offset INTEGER NOT NULL,
    inode INTEGER);
"""


class Spool(SpoolLogs):
    """The durable spool in folder ``path`` (created if needed). All calls come from one
    caller at a time (the watch's event loop)."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.path.mkdir(parents=True, exist_ok=True)
        # one watch per spool: the lock every output uses, with the holder named
        self._lock = lock_file(self.path / "spool.lock", held=self.path, noun="spool",
                               fix=f"stop it, or give this one another {option('spool')}")
        self.db = sqlite3.connect(self.path / "spool.sqlite", isolation_level=None,
                                  check_same_thread=False)  # one user at a time
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("PRAGMA synchronous=FULL")
        self.db.executescript(_SCHEMA)
        if "run_id" not in {c[1] for c in self.db.execute("PRAGMA table_info(traces)")}:
            self.db.execute("ALTER TABLE traces ADD COLUMN run_id TEXT")  # a spool of before
        self._open: dict[str, OpenTrace] = {}
        for tid, n, last, root, root_id, ended in self.db.execute(
                "SELECT t.trace_id, (SELECT count(*) FROM spans s WHERE s.trace_id = t.trace_id),"
                " t.last_received, t.root_received, t.root_span_id, t.ended_ns FROM traces t "
                "WHERE t.state = 'open'"):
            self._open[tid] = OpenTrace(tid, n, last, root, root_id, ended)

    @property
    def backlog(self) -> int:
        """Spans of the traces not scored or skipped yet."""
        return sum(t.spans for t in self._open.values())

    def unfinished(self) -> dict[str, OpenTrace]:
        """The traces not scored or skipped yet, by id (a live view: do not change it)."""
        return self._open

    def add_spans(self, spans: Sequence[tuple[Mapping[str, Any], Mapping[str, Any]]]) -> int:
        """Write ``(span, resource)`` pairs (OTLP JSON, hex ids) in one durable transaction;
        the number of spans new to the spool. A span of a trace already scored or skipped is
        left out (the caller counts it as late): its trace is not reopened."""
        now = time.time()
        new = 0
        touched: dict[str, tuple[int, str | None, int | None]] = {}
        with self._transaction():
            done = self._done({str(span["traceId"]) for span, _ in spans})
            for span, resource in spans:
                tid, sid = str(span["traceId"]), str(span.get("spanId") or "")
                if tid in done:
                    continue
                parent = span.get("parentSpanId") or None
                end = _int(span.get("endTimeUnixNano"))
                cur = self.db.execute(
                    "INSERT OR IGNORE INTO spans VALUES (?, ?, ?, ?, ?, ?, ?)",
                    (tid, sid, parent, end, now, json.dumps(span, separators=(",", ":")),
                     json.dumps(resource, separators=(",", ":"))))
                if cur.rowcount == 0:
                    continue  # sent again (an exporter's retry): kept once
                new += 1
                count, root, ended = touched.get(tid, (0, None, None))
                touched[tid] = (count + 1, sid if parent is None else root,
                                max(ended or 0, end or 0) or None)
            for tid, (count, root, ended) in touched.items():
                self.db.execute(
                    "INSERT INTO traces (trace_id, state, first_received, last_received) "
                    "VALUES (?, 'open', ?, ?) ON CONFLICT (trace_id) DO UPDATE SET "
                    "last_received = excluded.last_received", (tid, now, now))
                if root is not None:
                    self.db.execute("UPDATE traces SET root_received = ?, root_span_id = ? "
                                    "WHERE trace_id = ?", (now, root, tid))
                if ended is not None:
                    self.db.execute("UPDATE traces SET ended_ns = max(coalesce(ended_ns, 0), ?)"
                                    " WHERE trace_id = ?", (ended, tid))
        for tid, (count, root, ended) in touched.items():
            trace = self._open.setdefault(tid, OpenTrace(tid, 0, now, None, None, None))
            trace.spans += count
            trace.last_received = now
            if root is not None:
                trace.root_received, trace.root_span_id = now, root
            if ended is not None:
                trace.ended_ns = max(trace.ended_ns or 0, ended)
        return new

    def _done(self, trace_ids: set[str]) -> set[str]:
        """Those of ``trace_ids`` that are scored or skipped."""
        done: set[str] = set()
        ids = [t for t in trace_ids if t not in self._open]
        for i in range(0, len(ids), 500):
            chunk = ids[i:i + 500]
            done.update(row[0] for row in self.db.execute(
                f"SELECT trace_id FROM traces WHERE state != 'open' AND trace_id IN "
                f"({','.join('?' * len(chunk))})", chunk))
        return done

    def is_done(self, trace_id: str) -> bool:
        """Whether the trace was scored or skipped already."""
        found = self.db.execute("SELECT state FROM traces WHERE trace_id = ?",
                                (trace_id,)).fetchone()
        return found is not None and found[0] != "open"

    def export_of(self, trace_id: str) -> dict[str, Any]:
        """The trace's spans as one OTLP JSON export (``{"resourceSpans": [...]}``)."""
        groups: dict[str, list[dict[str, Any]]] = {}
        for span, resource in self.db.execute(
                "SELECT span, resource FROM spans WHERE trace_id = ? ORDER BY rowid",
                (trace_id,)):
            groups.setdefault(resource, []).append(json.loads(span))
        return {"resourceSpans": [{"resource": json.loads(res), "scopeSpans": [{"spans": spans}]}
                                  for res, spans in groups.items()]}

    def mark_done(self, trace_ids: Iterable[str], state: str, reason: str | None = None, *,
                  run_id: str | None = None) -> None:
        """Record traces as ``scored`` (their rows are committed to the store) or ``skipped``
        (with the reason, in run ``run_id``), in one durable transaction."""
        ids = list(trace_ids)
        now = time.time()
        with self._transaction():
            self.db.executemany("UPDATE traces SET state = ?, reason = ?, done = ?, run_id = ? "
                                "WHERE trace_id = ?",
                                [(state, reason, now, run_id, t) for t in ids])
            self.db.executemany("DELETE FROM spans WHERE trace_id = ?", [(t,) for t in ids])
            self.db.executemany("DELETE FROM logs WHERE trace_id = ?", [(t,) for t in ids])
        for tid in ids:
            self._open.pop(tid, None)

    def states(self) -> dict[str, int]:
        """How many traces the spool holds in each state."""
        return dict(self.db.execute("SELECT state, count(*) FROM traces GROUP BY state"))

    def skip_reasons(self, limit: int = 5) -> dict[str, int]:
        """The most common reasons traces were skipped, with their counts."""
        return dict(self.db.execute(
            "SELECT reason, count(*) AS n FROM traces WHERE state = 'skipped' GROUP BY reason "
            "ORDER BY n DESC LIMIT ?", (limit,)))

    def skipped_in_run(self, run_id: str, latest: int) -> list[tuple[str, int, list[str]]]:
        """The traces skipped in run ``run_id``: ``(reason, count, the latest ids of up to
        ``latest``, newest first)`` per reason, most common first."""
        ids: dict[str, list[str]] = {}
        for reason, tid in self.db.execute(
                "SELECT reason, trace_id FROM (SELECT reason, trace_id, row_number() OVER "
                "(PARTITION BY reason ORDER BY done DESC, rowid DESC) AS k FROM traces WHERE "
                "state = 'skipped' AND run_id = ?) WHERE k <= ?", (run_id, latest)):
            ids.setdefault(str(reason), []).append(str(tid))
        return [(str(reason), int(n), ids.get(str(reason), [])) for reason, n in self.db.execute(
            "SELECT reason, count(*) AS n FROM traces WHERE state = 'skipped' AND run_id = ? "
            "GROUP BY reason ORDER BY n DESC, reason", (run_id,))]

    def get_meta(self, key: str) -> str | None:
        found = self.db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return None if found is None else str(found[0])

    def set_meta(self, key: str, value: str) -> None:
        with self._transaction():
            self.db.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (key, value))

    def offset(self, path: str) -> tuple[int, int | None]:
        """How far the followed file ``path`` was read (bytes) and its inode then."""
        found = self.db.execute("SELECT offset, inode FROM offsets WHERE path = ?",
                                (path,)).fetchone()
        return (0, None) if found is None else (int(found[0]), found[1])

    def add_followed(self, path: str, spans: Sequence[tuple[Mapping[str, Any],
                                                            Mapping[str, Any]]],
                     offset: int, inode: int | None,
                     logs: Sequence[tuple[Mapping[str, Any], Mapping[str, Any]]] = ()) -> int:
        """:meth:`add_spans` (and :meth:`add_logs`) and the file's new offset, in one
        transaction (a restart neither loses nor repeats a line)."""
        self.db.execute("BEGIN IMMEDIATE")
        try:
            self.db.execute("INSERT OR REPLACE INTO offsets VALUES (?, ?, ?)",
                            (path, offset, inode))
            self._nested = True
            new = self.add_spans(spans)
            if logs:
                self.add_logs(logs)
        except BaseException:
            self._nested = False
            self.db.execute("ROLLBACK")
            raise
        self._nested = False
        self.db.execute("COMMIT")
        return new

    def close(self) -> None:
        self.db.close()
        if self._lock is not None:
            self._lock.close()  # closing the descriptor drops the flock

    _nested = False

    def _transaction(self) -> Transaction:
        return Transaction(self.db, nested=self._nested)


def _int(value: Any) -> int | None:
    return int(value) if str(value or "").isdigit() else None
