"""What the judge cache and the embeddings cache share: one SQLite table in a file that may be
shared between runs, opened so that a cache that cannot be used never stops a run.

A file that is not a readable cache (corrupt, truncated, another kind of file) or cannot be
opened is left as it is and the run goes on without it; a cache that can be read but not
written (read-only, disk full) is still read. Each case logs one warning naming the file and
the fix.

Example:
    >>> import tempfile, pathlib
    >>> class Notes(SqliteCache):
    ...     what, items = "notes cache", "notes"
    ...     table_sql = "CREATE TABLE IF NOT EXISTS notes (key TEXT PRIMARY KEY, v TEXT)"
    ...     probe_sql = "SELECT v FROM notes LIMIT 1"
    >>> Notes(pathlib.Path(tempfile.mkdtemp()) / "n.sqlite").usable
    True
    >>> bad = pathlib.Path(tempfile.mkdtemp()) / "bad.sqlite"
    >>> _ = bad.write_bytes(b"not a database" * 100)
    >>> Notes(bad).usable  # logs one warning
    False
"""

from __future__ import annotations

import logging
import sqlite3
from pathlib import Path

from .errors import option

__all__ = ["SqliteCache"]

log = logging.getLogger("assay.cache")


class SqliteCache:
    """Base of the on-disk caches: subclasses name their table (``table_sql``, and a
    ``probe_sql`` that reads it), what they are (``what``) and what they keep (``items``).
    ``usable`` is False once the cache could not be read."""

    what = "cache"
    items = "entries"
    table_sql = ""
    probe_sql = ""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self._db: sqlite3.Connection | None = None
        self._writable = True
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            db = sqlite3.connect(self.path, timeout=30, isolation_level=None,
                                 check_same_thread=False)
            try:
                db.execute("PRAGMA journal_mode=WAL")
                db.execute(self.table_sql)
                db.execute(self.probe_sql).fetchall()
            except BaseException:
                db.close()
                raise
            self._db = db
        except (OSError, sqlite3.Error) as e:
            self._give_up(e)

    @property
    def usable(self) -> bool:
        return self._db is not None

    def close(self) -> None:
        if self._db is not None:
            self._db.close()
            self._db = None

    def _read_only(self, error: BaseException) -> None:
        """A write failed: keep reading the cache, stop writing to it (one warning)."""
        self._writable = False
        log.warning("the %s %s cannot be written (%s): this run reads it but adds no %s to "
                    "it. Fix: make it and its folder writable, or pass %s, or %s.", self.what,
                    self.path, error, self.items, option("cache", "OTHER.sqlite"),
                    option("cache", False))

    def _give_up(self, error: BaseException) -> None:
        """The cache cannot be used: go on without it, leaving the file as it is."""
        log.warning("the %s %s cannot be used (%s): this run goes on without it, and the file "
                    "is left as it is. Fix: move it aside (mv %s %s.bad) or delete it to start "
                    "a fresh cache there, or pass %s, or %s.", self.what, self.path, error,
                    self.path, self.path, option("cache", "OTHER.sqlite"), option("cache", False))
        self.close()
