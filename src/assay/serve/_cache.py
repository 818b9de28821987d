"""The whole-run statistics behind a run page (histograms, unscored reasons, scales), computed
once per run and kept: a finished run's rows do not change, so its statistics are keyed by
(run id, finished time, row count); a running run's are recomputed when rows were added, at
most every ``live_seconds``. Concurrent first requests for one run wait for one computation
instead of each reading the whole run. ``PageCache`` keeps rendered pages of finished runs.

Example:
    >>> from assay.store import open_store
    >>> with open_store(":memory:") as store:
    ...     rid = store.create_run()
    ...     store.add_rows(rid, [{"id": "q1", "m": {"value": 1.0}}])
    ...     store.finish_run(rid, summary={"metrics": {"m": {"mean": 1.0}}}, complete=True)
    ...     cache = StatsCache(store)
    ...     first = cache.get(store.get(rid))
    ...     first is cache.get(store.get(rid)), first.rows, cache.computed
    (True, 1, 1)
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from ..report import RunStats
from ..store import RunInfo, Store

__all__ = ["READ_CHUNK", "PageCache", "StatsCache"]

#: Rows read from the store at a time while computing a run's statistics.
READ_CHUNK = 2000


@dataclass(frozen=True)
class _Entry:
    key: tuple[str | None, int]
    stats: RunStats
    at: float


class StatsCache:
    """``RunStats`` per run over one store (thread-safe; ``size`` runs kept, least recently
    used dropped first). ``computed`` counts the computations, for tests and benchmarks."""

    def __init__(self, store: Store, *, size: int = 32, live_seconds: float = 10.0) -> None:
        self.store = store
        self.size = size
        self.live_seconds = live_seconds
        self.computed = 0
        self._entries: OrderedDict[str, _Entry] = OrderedDict()
        self._locks: dict[str, threading.Lock] = {}
        self._guard = threading.Lock()

    def _fresh(self, info: RunInfo) -> RunStats | None:
        with self._guard:
            entry = self._entries.get(info.id)
            if entry is None:
                return None
            key = (info.finished, info.rows)
            live = info.status == "running" and time.monotonic() - entry.at < self.live_seconds
            if entry.key != key and not live:
                return None
            self._entries.move_to_end(info.id)
            return entry.stats

    def get(self, info: RunInfo) -> RunStats:
        """The statistics of every row of the run ``info`` describes."""
        found = self._fresh(info)
        if found is not None:
            return found
        with self._guard:
            lock = self._locks.setdefault(info.id, threading.Lock())
        with lock:  # one computation per run at a time; the others then find its result
            found = self._fresh(info)
            if found is not None:
                return found
            stats = RunStats.of(info.summary, self._records(info.id))
            with self._guard:
                self.computed += 1
                self._entries[info.id] = _Entry((info.finished, info.rows), stats,
                                                time.monotonic())
                self._entries.move_to_end(info.id)
                while len(self._entries) > self.size:
                    old, _ = self._entries.popitem(last=False)
                    self._locks.pop(old, None)
            return stats

    def _records(self, run_id: str) -> Iterator[dict[str, Any]]:
        offset = 0
        while True:
            page = self.store.rows_page(run_id, offset=offset, limit=READ_CHUNK)
            yield from page
            if len(page) < READ_CHUNK:
                return
            offset += len(page)


class PageCache:
    """Rendered pages of finished runs, least recently used dropped first once they hold more
    than ``max_bytes`` (0 turns the cache off). A key names everything a page depends on
    (the run's id, finished time and row count, and the page's own parameters), so a run
    that changes (a resume) is rendered afresh; pages of running runs are not kept."""

    def __init__(self, max_bytes: int = 32 << 20) -> None:
        self.max_bytes = max_bytes
        self.size = 0
        self.hits = 0
        self._pages: OrderedDict[tuple[Any, ...], bytes] = OrderedDict()
        self._guard = threading.Lock()

    @staticmethod
    def key(info: RunInfo, *parts: Any) -> tuple[Any, ...] | None:
        """The key of a page of run ``info`` (None: a running run, not cached)."""
        if info.status == "running":
            return None
        return (info.id, info.finished, info.rows, info.status, *parts)

    def get(self, key: tuple[Any, ...] | None) -> bytes | None:
        """The page kept under ``key``, or None."""
        if key is None or not self.max_bytes:
            return None
        with self._guard:
            page = self._pages.get(key)
            if page is not None:
                self._pages.move_to_end(key)
                self.hits += 1
            return page

    def put(self, key: tuple[Any, ...] | None, text: str) -> bytes:
        """Keep the page ``text`` under ``key`` (when it fits); return it encoded (UTF-8)."""
        page = text.encode("utf-8")
        if key is None or len(page) > self.max_bytes // 4:
            return page
        with self._guard:
            old = self._pages.pop(key, None)
            self.size += len(page) - (len(old) if old is not None else 0)
            self._pages[key] = page
            while self.size > self.max_bytes:
                _, dropped = self._pages.popitem(last=False)
                self.size -= len(dropped)
        return page
