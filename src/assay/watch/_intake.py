"""What the receiver and the file followers hand a watch: spans and log records to spool
(durably, before anything else sees them), metrics exports answered and dropped, refused
requests counted. :class:`Intake` is a part of :class:`assay.watch.Watcher`.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from ._follow import FileFollower
from ._logs import METRICS_NOT_READ
from ._options import WatchOptions
from ._spool import Spool

__all__ = ["FOLLOW_EVERY", "Intake"]

log = logging.getLogger("assay.watch")

#: Seconds between two reads of a followed file.
FOLLOW_EVERY = 0.4


class Intake:
    """The watcher's intake: what the receiver calls, and the followers' loop."""

    options: WatchOptions
    spool: Spool
    counts: dict[str, int]

    def backlog_full(self) -> bool:
        """Whether as many spans wait to be scored as ``max_backlog`` allows."""
        return self.spool.backlog >= self.options.max_backlog

    def accept(self, spans: list[tuple[dict[str, Any], dict[str, Any]]], bad: list[str]) -> int:
        """Spool the spans of one request (durably); the number new to the spool."""
        self.counts["requests"] += 1
        self.counts["bad_spans"] += len(bad)
        if bad:
            log.warning("%d span(s) left out of a request (the first: %s)", len(bad), bad[0])
        open_ = self.spool.unfinished()
        late = sum(1 for span, _ in spans if span["traceId"] not in open_
                   and self.spool.is_done(str(span["traceId"])))
        new = self.spool.add_spans(spans)
        self.counts["spans"] += new
        self.counts["duplicate_spans"] += len(spans) - new - late
        self.counts["late_spans"] += late
        return new

    def accept_logs(self, records: list[tuple[dict[str, Any], dict[str, Any]]],
                    others: int) -> int:
        """Spool the GenAI event records of one logs request (durably); the number new."""
        self.counts["requests"] += 1
        new = self.spool.add_logs(records)
        self.counts["log_records"] += new
        if others and not self.counts["other_log_records"]:
            log.warning("log records that are not GenAI events are left out (%d in the first "
                        "request with any; the status counts them)", others)
        self.counts["other_log_records"] += others
        return new

    def metrics_posted(self) -> None:
        """Count a metrics export (answered, not read); said once."""
        if not self.counts["metrics_requests"]:
            log.warning("%s; the metrics sent are answered and dropped", METRICS_NOT_READ)
        self.counts["metrics_requests"] += 1

    def rejected(self, why: str) -> None:
        """Count a request the receiver refused (``why``: what was wrong with it)."""
        self.counts["rejected"] += 1
        if why in ("bad body", "unsupported content type", "unsupported content encoding"):
            self.counts["bad_requests"] += 1

    async def _follow(self, follower: FileFollower) -> None:
        while True:
            try:
                if not self.backlog_full():  # a full backlog: the file waits, as exporters do
                    bad_before = follower.bad_spans
                    self.counts["spans"] += follower.poll()
                    self.counts["bad_spans"] += follower.bad_spans - bad_before
            except OSError as e:
                log.warning("%s could not be read: %s", follower.path, e)
            except Exception as e:  # noqa: BLE001 - a bug must not stop the watch: said, tried again
                log.error("following %s failed (%s: %s); trying again", follower.path,
                          type(e).__name__, e)
            await asyncio.sleep(FOLLOW_EVERY)
