"""A SQLite cache of judge answers, keyed on sha256(judge id and endpoint + canonical request).

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

import sqlite3
import time
from pathlib import Path

import platformdirs

from .._sqlite_cache import SqliteCache
from ._base import JudgeResponse

__all__ = ["JudgeCache", "cache_file", "cache_scope", "default_cache_path"]


def cache_scope(backend: object) -> str:
    """What a judge's (or embedder's) cache keys are made under: its id, and the endpoint it
    calls when it names one (``endpoint``, a base URL without credentials), so answers cached
    from one server never stand in for another's that serves a model of the same name.

    Example:
        >>> from assay.judges import FakeJudge, OpenAIJudge
        >>> cache_scope(FakeJudge())
        'fake'
        >>> cache_scope(OpenAIJudge("m", base_url="http://127.0.0.1:9/v1", api_key="k")).split()
        ['openai:m', 'http://127.0.0.1:9/v1']
    """
    backend_id = str(getattr(backend, "id", ""))
    endpoint = getattr(backend, "endpoint", None)
    return f"{backend_id}\n{endpoint}" if isinstance(endpoint, str) and endpoint else backend_id


def default_cache_path() -> Path:
    """``<user cache dir>/assay/judge-cache.sqlite``."""
    return Path(platformdirs.user_cache_dir("assay")) / "judge-cache.sqlite"


def cache_file(cache: str | Path | bool | None) -> Path | None:
    """The cache file a ``cache`` option names: ``True`` the default file, a path that path,
    ``False`` or ``None`` no cache.

    Example:
        >>> cache_file(False) is None, cache_file("c.sqlite")
        (True, PosixPath('c.sqlite'))
    """
    if not cache:
        return None
    return default_cache_path() if cache is True else Path(cache)


class JudgeCache(SqliteCache):
    """Judge answers on disk; safe to share between runs (WAL mode, one row per key).
    ``usable`` is False once the cache could not be read (the run goes on without it)."""

    what, items = "judge cache", "answers"
    table_sql = ("CREATE TABLE IF NOT EXISTS judge_calls (key TEXT PRIMARY KEY, "
                 "judge_id TEXT NOT NULL, response TEXT NOT NULL, created REAL NOT NULL)")
    probe_sql = "SELECT response FROM judge_calls LIMIT 1"

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
            self._read_only(e)
