"""A SQLite cache of embedding vectors, keyed on sha256(embedder id + text).

Example:
    >>> import tempfile, pathlib
    >>> cache = EmbeddingCache(pathlib.Path(tempfile.mkdtemp()) / "c.sqlite")
    >>> cache.put_many("toy", [(EmbeddingCache.key("toy", "a"), [0.5, 1.0])])
    >>> cache.get(EmbeddingCache.key("toy", "a"))
    [0.5, 1.0]
"""

from __future__ import annotations

import hashlib
import sqlite3
import struct
import time
from pathlib import Path

__all__ = ["EmbeddingCache"]


class EmbeddingCache:
    """Vectors on disk (float32), in the same SQLite file as the judge cache."""

    def __init__(self, path: str | Path) -> None:
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(path, timeout=30, isolation_level=None, check_same_thread=False)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("CREATE TABLE IF NOT EXISTS embeddings (key TEXT PRIMARY KEY, "
                         "embedder_id TEXT NOT NULL, vector BLOB NOT NULL, created REAL NOT NULL)")

    @staticmethod
    def key(embedder_id: str, text: str) -> str:
        return hashlib.sha256(f"{embedder_id}\n{text}".encode()).hexdigest()

    def get(self, key: str) -> list[float] | None:
        row = self._db.execute("SELECT vector FROM embeddings WHERE key = ?", (key,)).fetchone()
        if row is None:
            return None
        blob = row[0]
        return list(struct.unpack(f"<{len(blob) // 4}f", blob))

    def put_many(self, embedder_id: str, items: list[tuple[str, list[float]]]) -> None:
        now = time.time()
        self._db.executemany(
            "INSERT OR REPLACE INTO embeddings VALUES (?, ?, ?, ?)",
            [(k, embedder_id, struct.pack(f"<{len(v)}f", *v), now) for k, v in items])

    def close(self) -> None:
        self._db.close()
