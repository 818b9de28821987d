"""What a watch says about itself while it runs: ``status()`` (``GET /v1/status``) and, every
``status_every`` seconds while anything changes, a status line on stderr. :class:`StatusReport`
is a part of :class:`assay.watch.Watcher`.
"""

from __future__ import annotations

import asyncio
import sys
from typing import Any

from .._secrets import mask_secrets
from ..data import Row
from ._entry import iso, status_line
from ._follow import FileFollower
from ._hooks import Hooks
from ._options import WatchOptions
from ._recording import WatchRecording
from ._skips import SkipTally
from ._spool import Spool

__all__ = ["StatusReport"]


class StatusReport:
    """The watcher's status: counts, backlog and states."""

    options: WatchOptions
    spool: Spool
    recording: WatchRecording
    skips: SkipTally
    hooks: Hooks
    followers: list[FileFollower]
    counts: dict[str, int]
    started: float
    _queue: asyncio.Queue[tuple[str, Row, dict[str, Any]] | None]
    _in_flight: dict[str, tuple[Row, dict[str, Any]]]

    def status(self) -> dict[str, Any]:
        """Counts, backlog and states, for ``GET /v1/status`` and the status line."""
        return {"run_id": self.recording.run_id, "started": iso(self.started),
                **self.counts, "backlog_spans": self.spool.backlog,
                "open_traces": len(self.spool.unfinished()), "queued": self._queue.qsize(),
                "scoring": len(self._in_flight), "spool": self.spool.states(),
                "skip_reasons": self.skips.reasons_now(),
                "followed": {str(f.path): {"spans": f.spans, "bad_lines": f.bad_lines,
                                          "bad_spans": f.bad_spans}
                             for f in self.followers},
                "spend": self.recording.spend.section(), **self.hooks.status()}

    async def _status_lines(self) -> None:
        """A status line every ``status_every`` seconds while anything changes (an idle
        watch stays quiet); under it, once, each new reason traces were skipped for, whole
        (with its fix)."""
        last: dict[str, int] = {}
        said: set[str] = set()
        while True:
            await asyncio.sleep(self.options.status_every)
            s = self.status()
            now = {**self.counts, "backlog": s["backlog_spans"], "scoring": s["scoring"]}
            if now == last:
                continue
            last = now
            print(status_line(s), file=sys.stderr, flush=True)  # progress, not a warning
            for reason, n in s["skip_reasons"].items():
                if reason not in said:
                    said.add(reason)
                    print(f"  skipped {n}: {mask_secrets(reason)}", file=sys.stderr, flush=True)
