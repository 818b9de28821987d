"""Finished traces into queued rows: every ``TICK`` seconds the watch looks at its unfinished
traces; a finished one (:mod:`._assemble`) is sampled, filtered and read into a row for the
scorer, or marked skipped with the reason. :class:`Assembly` is a part of
:class:`assay.watch.Watcher`.
"""

from __future__ import annotations

import asyncio
import logging
import time
from typing import Any

from ..costs import PriceBook
from ..data import Row
from ._assemble import AWAITS_CONTENT, is_finished, trace_row
from ._entry import iso
from ._options import WatchOptions
from ._recording import WatchRecording
from ._select import TraceFilter, sampled
from ._skips import SkipTally
from ._spool import Spool
from ._trace_cost import app_spend

__all__ = ["QUEUE", "TICK", "Assembly"]

log = logging.getLogger("assay.watch")

#: Seconds between two looks at the unfinished traces.
TICK = 0.2
#: Rows queued for the scorer at most (the rest wait in the spool).
QUEUE = 2000


class Assembly:
    """The watcher's assembler: finished traces to the scorer's queue, or skipped."""

    options: WatchOptions
    spool: Spool
    filter: TraceFilter
    recording: WatchRecording
    skips: SkipTally
    counts: dict[str, int]
    prices: PriceBook
    _queue: asyncio.Queue[tuple[str, Row, dict[str, Any]] | None]
    _queued: set[str]
    _live_dirty: bool

    async def _assemble(self) -> None:
        while True:
            try:
                self.assemble_once(time.time())
            except Exception:  # a bug must not stop the watch: said, then tried again
                log.exception("assembling the finished traces failed")
            await asyncio.sleep(TICK)

    def assemble_once(self, now: float) -> None:
        """Queue (or skip) every finished trace not queued yet."""
        opts = self.options
        for trace in list(self.spool.unfinished().values()):
            tid = trace.trace_id
            if tid in self._queued or len(self._queued) >= QUEUE:
                continue
            if not is_finished(trace, now, idle=opts.idle, grace=opts.grace):
                continue
            if self.recording.holds(tid):  # scored and stored before a crash: not again
                self.counts["traces"] += 1
                self.spool.mark_done([tid], "scored")
                continue
            if not sampled(tid, opts.sample):
                self.counts["traces"] += 1
                self._skip(tid, "sampled out (sample)")
                continue
            export = self.spool.export_of(tid)
            if not self.filter.keeps(export):
                self.counts["traces"] += 1
                self._skip(tid, "filtered out (filter)")
                continue
            row, why = trace_row(export, tid, max_field_chars=opts.max_field_chars,
                                 logs=self.spool.logs_of(tid))
            if row is None and (why or "").startswith(AWAITS_CONTENT) and \
                    now - trace.last_received < opts.idle:
                continue  # its messages may be log records, exported apart: wait until idle
            self.counts["traces"] += 1
            if row is None:
                self._skip(tid, why or "no row")
                continue
            ended = trace.ended_ns / 1e9 if trace.ended_ns else trace.last_received
            meta = {"trace_id": tid, "ended": iso(ended), "received": iso(trace.last_received),
                    "root_span_id": trace.root_span_id, "app": self._app_spend(export)}
            self._queued.add(tid)
            self._queue.put_nowait((tid, row, meta))

    def _app_spend(self, export: dict[str, Any]) -> dict[str, Any]:
        """The app's cost and seconds on the trace (:func:`~._trace_cost.app_spend`)."""
        try:
            return app_spend(export, self.prices)
        except Exception as e:  # noqa: BLE001 - a trace's odd usage must not stop its scoring
            return {"usd": None, "unknown_reason": f"the trace's usage could not be read: "
                    f"{type(e).__name__}: {e}", "requests": 0, "prompt_tokens": None,
                    "completion_tokens": None, "models": [], "latency_s": None, "llm_s": None}

    def _skip(self, trace_id: str, why: str) -> None:
        self.counts["skipped"] += 1
        self.spool.mark_done([trace_id], "skipped", why, run_id=self.recording.run_id)
        self.skips.add(trace_id, why)
        self._live_dirty = True  # the live summary says it too
