"""A SQLite cache of embedding vectors, keyed on sha256(embedder id and endpoint + text).

A cache that cannot be used never stops a run: a file that is not a readable cache (corrupt,
truncated, another kind of file) or cannot be opened is left as it is and the run goes on
without it; one that can be read but not written is still read. Each case logs one warning
naming the file and the fix.

Example:
    >>> import tempfile, pathlib
    >>> cache = EmbeddingCache(pathlib.Path(tempfile.mkdtemp()) / "c.sqlite")
    >>> cache.put_many("toy", [(EmbeddingCache.key("toy", "a"), [0.5, 1.0])])
    >>> cache.get(EmbeddingCache.key("toy", "a"))
    [0.5, 1.0]
    >>> bad = pathlib.Path(tempfile.mkdtemp()) / "bad.sqlite"
    >>> _ = bad.write_bytes(b"not a database" * 100)
    >>> broken = EmbeddingCache(bad)  # logs one warning
    >>> broken.usable, broken.get("k")
    (False, None)
"""

from __future__ import annotations

import hashlib
import sqlite3
import struct
import time

from .._sqlite_cache import SqliteCache

__all__ = ["EmbeddingCache"]



class EmbeddingCache(SqliteCache):
    """Vectors on disk (float32), in the same SQLite file as the judge cache. ``usable`` is
    False once the cache could not be read (the run goes on without it)."""

    what, items = "embeddings cache", "vectors"
    table_sql = ("CREATE TABLE IF NOT EXISTS embeddings (key TEXT PRIMARY KEY, "
                 "embedder_id TEXT NOT NULL, vector BLOB NOT NULL, created REAL NOT NULL)")
    probe_sql = "SELECT vector FROM embeddings LIMIT 1"

    @staticmethod
    def key(embedder_id: str, text: str) -> str:
        return hashlib.sha256(f"{embedder_id}\n{text}".encode()).hexdigest()

    def get(self, key: str) -> list[float] | None:
        if self._db is None:
            return None
        try:
            row = self._db.execute("SELECT vector FROM embeddings WHERE key = ?",
                                   (key,)).fetchone()
        except sqlite3.Error as e:
            self._give_up(e)
            return None
        if row is None or not isinstance(row[0], bytes) or len(row[0]) % 4:
            return None  # absent, or a damaged vector: embed again
        blob = row[0]
        return list(struct.unpack(f"<{len(blob) // 4}f", blob))

    def put_many(self, embedder_id: str, items: list[tuple[str, list[float]]]) -> None:
        if self._db is None or not self._writable:
            return
        now = time.time()
        try:
            self._db.executemany(
                "INSERT OR REPLACE INTO embeddings VALUES (?, ?, ?, ?)",
                [(k, embedder_id, struct.pack(f"<{len(v)}f", *v), now) for k, v in items])
        except sqlite3.Error as e:
            self._read_only(e)
