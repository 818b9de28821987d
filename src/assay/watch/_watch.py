"""One watch: receive or follow spans, spool them, turn finished traces into rows, score each
once, store it in one live run.

The steps, each a task on one event loop:

- the receiver (:mod:`._receiver`) and the followers (:mod:`._follow`) write spans to the
  spool (:mod:`._spool`) before anything else sees them;
- the assembler looks at the unfinished traces every 0.2 s: a finished one (:mod:`._assemble`)
  is sampled, filtered and read into a row, or marked skipped with the reason;
- the scorer (:class:`assay.run.StreamScorer`) scores the queued rows; each record gets a
  ``"watch"`` entry (trace id, when the trace ended, was received and was scored; the app's
  and the judge's cost and seconds on it, :mod:`._trace_cost`) and goes to the run's
  recorder, and its spend to the per-minute series (:mod:`._minutes`);
- the committer flushes the recorder, then marks those traces ``scored`` in the spool: a
  trace is marked only once its row is committed to the store. After a crash, a restart finds
  every unmarked trace again; one whose row the run already holds is marked without scoring.

Exactly once holds per spool: use one spool folder per watched stream (it is locked).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import AsyncIterator
from typing import Any

from .._secrets import remember_secret
from ..costs import PriceBook
from ..data import Row, row_inputs
from ..errors import JudgeStoppedError
from ..run import StreamScorer
from ._assembly import Assembly
from ._entry import call_failed, iso, short_id
from ._follow import FileFollower
from ._hooks import Hooks
from ._intake import Intake
from ._options import WatchOptions
from ._recording import WatchRecording
from ._select import parse_filter
from ._skips import LATEST_IDS, SkipTally
from ._spool import Spool
from ._status import StatusReport
from ._trace_cost import judge_spend

__all__ = ["Watcher"]

log = logging.getLogger("assay.watch")

#: Seconds between two commits.
_COMMIT_EVERY = 0.5
#: Seconds between updates of the live run's summary (means, counts) in the store.
LIVE_SUMMARY_EVERY = 10.0
#: Seconds scoring first pauses after the judge stopped answering (doubled each time, to 300).
_JUDGE_PAUSE_S = 5.0


class Watcher(Intake, Assembly, StatusReport):
    """The state of one watch (see the module docstring); :meth:`run` runs it until
    :meth:`stop`. Its parts: :class:`~._intake.Intake` (what the receiver and the followers
    hand it), :class:`~._assembly.Assembly` (finished traces to the queue),
    :class:`~._status.StatusReport` (``status()`` and the status lines)."""

    def __init__(self, options: WatchOptions) -> None:
        self.options = options
        self.token = options.token
        if options.token:
            remember_secret(options.token)  # masked wherever it could show
        self.max_body = options.max_body
        self.filter = parse_filter(options.filter)
        self.hooks = Hooks(options)  # alerts and score export: checked before anything opens
        self.prices = PriceBook.load(options.judging.prices)  # a bad price file: said first
        self.spool = Spool(options.spool)
        try:
            self.scorer = StreamScorer(options.metrics, judge=options.judge,
                                       embeddings=options.embeddings, scoring=options.scoring,
                                       judging=options.judging)
            self.recording = WatchRecording(options, self.spool, self.scorer)
            self.skips = SkipTally(self.spool.skipped_in_run(self.recording.run_id, LATEST_IDS))
            self.hooks.resume(self.recording.previous_alerts, self.recording.recent)
        except BaseException:
            self.spool.close()
            raise
        self.followers = [FileFollower(p, self.spool) for p in options.follow]
        self.counts: dict[str, int] = dict.fromkeys(
            ("requests", "spans", "duplicate_spans", "late_spans", "bad_spans", "bad_requests",
             "rejected", "traces", "scored", "skipped", "failed_rows", "judge_stops",
             "log_records", "other_log_records", "metrics_requests"), 0)
        self.started = time.time()
        self._live_at, self._live_dirty = 0.0, False  # the live summary: when written, stale
        self._queue: asyncio.Queue[tuple[str, Row, dict[str, Any]] | None] = asyncio.Queue()
        self._queued: set[str] = set()
        self._in_flight: dict[str, tuple[Row, dict[str, Any]]] = {}
        self._to_mark: list[str] = []
        self._stopping = asyncio.Event()
        self._scoring: asyncio.Task[None] | None = None

    # -- running -------------------------------------------------------------------------

    def stop(self) -> None:
        """Stop taking new work: the rows being scored finish, then :meth:`run` returns. A
        second call stops at once: the rows being scored are left unmarked in the spool, and
        the next watch on it scores them."""
        if self._stopping.is_set() and self._scoring is not None:
            log.warning("stopping now: the traces being scored stay in the spool")
            self._scoring.cancel()
        self._stopping.set()

    async def run(self) -> dict[str, Any]:
        """Run until :meth:`stop`; the run's final summary."""
        tasks: list[asyncio.Task[Any]] = [
            asyncio.create_task(self._assemble()), asyncio.create_task(self._commit()),
            *(asyncio.create_task(self._follow(f)) for f in self.followers)]
        if self.options.status_every > 0:
            tasks.append(asyncio.create_task(self._status_lines()))
        scoring = self._scoring = asyncio.create_task(self._score())
        stopped = asyncio.create_task(self._stopping.wait())
        tasks.append(stopped)
        try:
            await asyncio.wait([stopped, scoring], return_when=asyncio.FIRST_COMPLETED)
            if scoring.done() and not scoring.cancelled() and not self._stopping.is_set():
                scoring.result()  # a setting or install problem stopped scoring: raised here
            self._stopping.set()
            self._queue.put_nowait(None)
            try:
                await scoring
            except asyncio.CancelledError:
                if not scoring.cancelled():
                    raise  # run() itself was cancelled
        finally:
            for task in [*tasks, scoring]:
                task.cancel()
            await asyncio.gather(*tasks, scoring, return_exceptions=True)
            await self.hooks.aclose()
            await self.scorer.aclose()
            try:
                await self._commit_now()
            finally:
                summary = self.recording.finish(self.counts, self.spool, self.hooks.alerts,
                                                self.skips)
                self.spool.close()
        return summary

    async def _score(self) -> None:
        """Score queued rows until the stop; a judge that stopped is replaced after a pause
        (its rows in flight are queued again: none is lost)."""
        pause = _JUDGE_PAUSE_S
        while not self._stopping.is_set():
            try:
                await self.scorer.score(self._rows(), self._scored)
                return
            except JudgeStoppedError as e:
                self.counts["judge_stops"] += 1
                log.error("the judge stopped answering: %s\nScoring pauses %.0f s, then "
                          "tries again; traces wait in the spool (none is lost).", e, pause)
                for tid, (row, meta) in list(self._in_flight.items()):
                    self._queue.put_nowait((tid, row, meta))
                self._in_flight.clear()
                try:
                    await asyncio.wait_for(self._stopping.wait(), pause)
                except TimeoutError:
                    pass
                pause = min(pause * 2, 300.0)
                await self.scorer.restart()

    async def _rows(self) -> AsyncIterator[Row]:
        while True:
            item = await self._queue.get()
            if item is None or self._stopping.is_set():
                if item is not None:
                    self._queue.put_nowait(item)  # stays queued (and unmarked in the spool)
                self._queue.put_nowait(None)  # the other workers stop too
                return
            tid, row, meta = item
            self._in_flight[tid] = (row, meta)
            yield row

    def _scored(self, record: dict[str, Any]) -> None:
        tid = str(record["id"])
        row, meta = self._in_flight.pop(tid)
        record["watch"] = {"trace_id": tid, "ended": meta["ended"],
                           "received": meta["received"], "scored": iso(time.time()),
                           "app": meta["app"], "judge": judge_spend(record, self.prices)}
        self.recording.spend.add(record)
        failed = [k for k, v in record.items() if call_failed(v)]
        if failed:
            self.counts["failed_rows"] += 1
            n = self.counts["failed_rows"]
            if n == 1 or n % 10 == 0:
                log.error("judge calls failed on %d row(s) so far (trace %s: %s); they are "
                          "stored unscored with the reason", n, short_id(tid),
                          call_failed(record[failed[0]]))
        self.recording.add(record, row_inputs(row))
        self._to_mark.append(tid)
        self.counts["scored"] += 1
        self.hooks.observe(record, trace_id=tid, span_id=meta.get("root_span_id"))

    async def _commit(self) -> None:
        while True:
            await asyncio.sleep(_COMMIT_EVERY)
            try:
                await self._commit_now()
            except Exception as e:  # noqa: BLE001 - a store that fails now may work later
                log.error("the run store could not be written (%s); retrying", e)

    async def _commit_now(self) -> None:
        """Commit the rows scored so far to the store, then mark their traces scored; every
        :data:`LIVE_SUMMARY_EVERY` seconds, the run's summary so far (its means and counts,
        for ``assay runs`` and the runs list while the watch runs)."""
        marks, self._to_mark = self._to_mark, []
        if marks or self.hooks.alerts_changed:
            alerts = self.hooks.new_alerts()
            try:
                await asyncio.to_thread(self.recording.flush, alerts)
            except BaseException:
                self._to_mark = marks + self._to_mark
                self.hooks.alerts_changed = self.hooks.alerts_changed or alerts is not None
                raise
            self.spool.mark_done(marks, "scored")
            self._queued.difference_update(marks)
            self._live_dirty = self._live_dirty or bool(marks)
        if self._live_dirty and time.monotonic() - self._live_at >= LIVE_SUMMARY_EVERY:
            self._live_at, self._live_dirty = time.monotonic(), False
            live = self.recording.live_summary(self.counts, self.skips)  # here: not shared
            await asyncio.to_thread(self.recording.update_summary, live)
