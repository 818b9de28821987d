"""A SQLite cache of judge answers, keyed on sha256(judge id + canonical request).

Only answers the caller accepted are stored, so an unparseable answer is asked again next time.
A cache that cannot be used never stops a run: a file that is not a readable cache (corrupt,
truncated, another kind of file) or cannot be opened is left as it is and the run goes on
without it; a cache that can be read but not written (read-only, disk full) is still read. Each
case logs one warning naming the file and the fix.

Example:
    >>> import tempfile, pathlib
    >>> cache = JudgeCache(pathlib.Path(tempfile.mkdtemp()) / "c.sqlite")
    >>> cache.get("k") is None
    True
    >>> cache.put("k", "openai:m", JudgeResponse(text="{}")); cache.get("k").text
    '{}'
    >>> bad = pathlib.Path(tempfile.mkdtemp()) / "bad.sqlite"
    >>> _ = bad.write_bytes(b"not a database" * 100)
    >>> broken = JudgeCache(bad)  # logs one warning
    >>> broken.usable, broken.get("k")
    (False, None)
"""

from __future__ import annotations

import logging
import sqlite3
import time
from pathlib import Path

import platformdirs

from ._base import JudgeResponse

__all__ = ["JudgeCache", "default_cache_path"]

log = logging.getLogger(__name__)

_FIX = ("Fix: move it aside (mv {path} {path}.bad) or delete it to start a fresh cache there, "
        "or pass --cache OTHER.sqlite, or --no-cache.")


def default_cache_path() -> Path:
    """``<user cache dir>/assay/judge-cache.sqlite``."""
    return Path(platformdirs.user_cache_dir("assay")) / "judge-cache.sqlite"


class JudgeCache:
    """Judge answers on disk; safe to share between runs (WAL mode, one row per key).
    ``usable`` is False once the cache could not be read (the run goes on without it)."""

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
                db.execute("CREATE TABLE IF NOT EXISTS judge_calls (key TEXT PRIMARY KEY, "
                           "judge_id TEXT NOT NULL, response TEXT NOT NULL, "
                           "created REAL NOT NULL)")
                db.execute("SELECT response FROM judge_calls LIMIT 1").fetchall()
            except BaseException:
                db.close()
                raise
            self._db = db
        except (OSError, sqlite3.Error) as e:
            self._give_up(e)

    @property
    def usable(self) -> bool:
        return self._db is not None

    def get(self, key: str) -> JudgeResponse | None:
        if self._db is None:
            return None
        try:
            row = self._db.execute("SELECT response FROM judge_calls WHERE key = ?",
                                   (key,)).fetchone()
            return JudgeResponse.model_validate_json(row[0]) if row else None
        except sqlite3.Error as e:
            self._give_up(e)
            return None
        except ValueError:  # a stored answer that no longer parses: ask again
            return None

    def put(self, key: str, judge_id: str, response: JudgeResponse) -> None:
        if self._db is None or not self._writable:
            return
        try:
            self._db.execute("INSERT OR REPLACE INTO judge_calls VALUES (?, ?, ?, ?)",
                             (key, judge_id, response.model_dump_json(exclude={"cached"}),
                              time.time()))
        except sqlite3.Error as e:
            self._writable = False
            log.warning("the judge cache %s cannot be written (%s): this run reads it but adds "
                        "no answers to it. Fix: make it and its folder writable, or pass "
                        "--cache OTHER.sqlite, or --no-cache.", self.path, e)

    def close(self) -> None:
        if self._db is not None:
            self._db.close()
            self._db = None

    def _give_up(self, error: BaseException) -> None:
        log.warning("the judge cache %s cannot be used (%s): this run goes on without it, and "
                    "the file is left as it is. %s", self.path, error, _FIX.format(path=self.path))
        self.close()
