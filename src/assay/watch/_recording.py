"""The live run of a watch in the run store (``kind="watch"``): rows added as they are scored,
a heartbeat while the watch lives, the summary when it stops.

The run id is kept in the spool, so a restart (after a crash, or a stop with traces left to
score) resumes the same run and knows which traces it already holds: those are marked scored
without being scored again. A watch that stops with nothing left to score finishes its run
``complete``; the next watch on the same spool then starts a new run. The token and the
receiver's address are never recorded.
"""

from __future__ import annotations

import logging
from collections import deque
from collections.abc import Mapping
from typing import Any

from ..errors import ConfigError, option
from ..records import MinuteSeries, RunRecorder, open_run_store
from ..run import StreamScorer
from ._options import WatchOptions
from ._skips import SkipTally
from ._spool import Spool

__all__ = ["WatchRecording"]

log = logging.getLogger("assay.watch")

#: The latest rows of a resumed run read back into the alert rules' windows.
RECENT_ROWS = 1000


class WatchRecording:
    """One watch's run in the store: a new one, or the spool's run resumed."""

    def __init__(self, options: WatchOptions, spool: Spool, scorer: StreamScorer) -> None:
        store = open_run_store(options.store)
        if store is None:
            raise ConfigError(f"assay watch records its rows in a run store; got "
                              f"{option('store', options.store)}. Fix: give a store path or "
                              "URL (or leave the default).")
        self.store, self.scorer = store, scorer
        metrics, judge = scorer.metric_versions, scorer.judge_id
        resume = self._resumable(spool.get_meta("run_id"), metrics, judge)
        settings = {**scorer.recorded_settings(), "watch": {
            "follow": [str(p) for p in options.follow], "sample": options.sample,
            "filter": options.filter, "idle": options.idle, "grace": options.grace,
            "spool": str(spool.path), "max_backlog": options.max_backlog,
            "receiver": options.listen is not None}}
        self.recorder = RunRecorder.start(store, kind="watch", name=options.name or "watch",
                                          tags=list(options.tags), dataset=None,
                                          metrics=metrics, judge=judge, settings=settings,
                                          resume_id=resume, batch_rows=200,
                                          batch_seconds=0.5)
        self.run_id = self.recorder.run_id
        spool.set_meta("run_id", self.run_id)
        self._stored: set[str] = set()
        #: A resumed run's alerts, and its latest records (oldest first) for the alert rules.
        self.previous_alerts: list[dict[str, Any]] = []
        self.recent: deque[dict[str, Any]] = deque(maxlen=RECENT_ROWS)
        #: The app's and the judge's spend, in all and per minute (a resumed run's too).
        self.spend = MinuteSeries()
        if resume:
            summary = store.get(resume).summary or {}
            self.previous_alerts = list(summary.get("alerts") or [])
            for record in store.rows(resume):
                self._stored.add(str(record["id"]))
                scorer.tally.add(record)
                self.recent.append(record)
                self.spend.add(record)
            log.warning("resuming run %s (%d rows stored)", resume, len(self._stored))

    def _resumable(self, run_id: str | None, metrics: Mapping[str, str],
                   judge: str | None) -> str | None:
        """The spool's run when it can be continued: in this store, not complete, same
        metrics and judge (else a new run, said why)."""
        if not run_id:
            return None
        try:
            info = self.store.get(run_id)
        except ConfigError:
            log.warning("run %s of the spool is not in %s: starting a new run", run_id,
                        self.store.url)
            return None
        if info.id != run_id or info.status == "complete":
            return None
        if dict(info.metrics) != dict(metrics) or info.judge != judge:
            log.warning("run %s was scored with other metrics or another judge: starting a "
                        "new run (the spool's traces already scored are not scored again)",
                        run_id)
            return None
        return run_id

    def holds(self, trace_id: str) -> bool:
        """Whether the resumed run already holds the trace's row."""
        return trace_id in self._stored

    def add(self, record: Mapping[str, Any], inputs: Mapping[str, Any]) -> None:
        self.recorder.add(record, inputs)

    def flush(self, alerts: list[dict[str, Any]] | None = None) -> None:
        """Commit the rows added so far (and the latest alerts to the summary)."""
        self.recorder.flush()
        if alerts is not None:
            self.store.update_summary(self.run_id, {"alerts": alerts})

    def live_summary(self, counts: Mapping[str, int], skips: SkipTally) -> dict[str, Any]:
        """The parts of the summary that change while the watch runs: the metrics' aggregates,
        the rows so far, the judge's usage, the watch's counts and the run's skipped
        traces."""
        summary = self.scorer.summary(complete=False)
        keep = ("rows", "rows_done", "metrics", "elapsed_s", "judge", "embeddings",
                "failures", "injection")
        return {**{k: summary[k] for k in keep if k in summary},
                "watch": {**counts, "skip_reasons": skips.reasons_now(),
                          "skips": skips.summary(), "spend": self.spend.section()}}

    def update_summary(self, extra: Mapping[str, Any]) -> None:
        """Merge ``extra`` into the stored run's summary."""
        self.store.update_summary(self.run_id, extra)

    def finish(self, counts: Mapping[str, int], spool: Spool, alerts: list[dict[str, Any]],
               skips: SkipTally) -> dict[str, Any]:
        """Finish the run: ``complete`` when no trace is left to score, else ``interrupted``
        (a restart resumes it). The summary, with the watch's counts (this process's) and
        the run's skipped traces (``skips``)."""
        complete = not spool.unfinished()
        summary = self.scorer.summary(complete=complete)
        summary["watch"] = {**counts, "spool": spool.states(),
                            "skip_reasons": skips.reasons_now(),
                            "skips": skips.summary(),
                            "unfinished_traces": len(spool.unfinished()),
                            "spend": self.spend.section()}
        summary["alerts"] = alerts
        summary["run_id"] = self.run_id
        try:
            self.recorder.finish(summary, complete=complete,
                                 prompt_sha256=self.scorer.tally.prompt_sha256)
        finally:
            if complete:
                spool.set_meta("run_id", "")  # the next watch on this spool: a new run
            self.store.close()
        return summary
