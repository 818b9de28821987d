"""A SQLite cache of judge answers, keyed on sha256(judge id + canonical request).

Only answers the caller accepted are stored, so an unparseable answer is asked again next time.

Example:
    >>> import tempfile, pathlib
    >>> cache = JudgeCache(pathlib.Path(tempfile.mkdtemp()) / "c.sqlite")
    >>> cache.get("k") is None
    True
    >>> cache.put("k", "openai:m", JudgeResponse(text="{}")); cache.get("k").text
    '{}'
"""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path

import platformdirs

from ._base import JudgeResponse

__all__ = ["JudgeCache", "default_cache_path"]


def default_cache_path() -> Path:
    """``<user cache dir>/assay/judge-cache.sqlite``."""
    return Path(platformdirs.user_cache_dir("assay")) / "judge-cache.sqlite"


class JudgeCache:
    """Judge answers on disk; safe to share between runs (WAL mode, one row per key)."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(self.path, timeout=30, isolation_level=None,
                                   check_same_thread=False)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("CREATE TABLE IF NOT EXISTS judge_calls (key TEXT PRIMARY KEY, "
                         "judge_id TEXT NOT NULL, response TEXT NOT NULL, created REAL NOT NULL)")

    def get(self, key: str) -> JudgeResponse | None:
        row = self._db.execute("SELECT response FROM judge_calls WHERE key = ?", (key,)).fetchone()
        return JudgeResponse.model_validate_json(row[0]) if row else None

    def put(self, key: str, judge_id: str, response: JudgeResponse) -> None:
        self._db.execute("INSERT OR REPLACE INTO judge_calls VALUES (?, ?, ?, ?)",
                         (key, judge_id, response.model_dump_json(exclude={"cached"}), time.time()))

    def close(self) -> None:
        self._db.close()
