"""What the spool's parts (:mod:`._spool`, :mod:`._spool_logs`) share: a trace still open, and
a write transaction.

Example:
    >>> import sqlite3
    >>> db = sqlite3.connect(":memory:", isolation_level=None)
    >>> _ = db.execute("CREATE TABLE t (x)")
    >>> with Transaction(db, nested=False):
    ...     _ = db.execute("INSERT INTO t VALUES (1)")
    >>> db.execute("SELECT x FROM t").fetchall()
    [(1,)]
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass

__all__ = ["OpenTrace", "Transaction"]


@dataclass
class OpenTrace:
    """A trace not scored or skipped yet, as the assembler sees it (wall-clock seconds)."""

    trace_id: str
    spans: int
    last_received: float
    root_received: float | None
    root_span_id: str | None
    ended_ns: int | None


class Transaction:
    """One write transaction of the spool's database (``with``); a nested one is part of the
    transaction around it and begins and ends nothing."""

    def __init__(self, db: sqlite3.Connection, *, nested: bool) -> None:
        self.db, self.nested = db, nested

    def __enter__(self) -> None:
        if not self.nested:
            self.db.execute("BEGIN IMMEDIATE")

    def __exit__(self, kind: object, *rest: object) -> None:
        if self.nested:
            return
        self.db.execute("ROLLBACK" if kind is not None else "COMMIT")
