"""The traces a watch skipped (no row: sampled out, filtered out, or nothing to score in
them), counted by reason while the watch runs, for its status line, its live summary and the
run's summary (``summary["watch"]["skips"]``), which ``assay show``, ``assay report`` and the
live page of ``assay serve`` read.

Two tallies: this process's (beside the status line's other counts) and the run's (a resumed
run starts from what the spool recorded for it). The run's keeps the latest trace ids of
each reason as log lines show them (:func:`short_id`: a whole trace id looks like a key to
the secret masker that guards the store); the spool keeps the whole ids.

Example:
    >>> tally = SkipTally()
    >>> tally.add("0af7651916cd43dd8448eb211c80319c", "sampled out (sample)")
    >>> tally.add("t2", "no model-call span in a convention assay reads (the GenAI ...). Fix: x")
    >>> tally.add("t3", "sampled out (sample)")
    >>> tally.now.most_common(1), tally.summary()["total"]
    ([('sampled out (sample)', 2)], 3)
    >>> tally.summary()["reasons"][0]
    {'reason': 'sampled out (sample)', 'count': 2, 'latest': ['t3', '0af76519…319c']}
"""

from __future__ import annotations

from collections import Counter, deque
from typing import Any

from ._entry import short_id

__all__ = ["LATEST_IDS", "MAX_REASONS", "OTHER", "REASONS_KEPT", "SkipTally"]

#: Trace ids kept per reason in the run's summary (the latest).
LATEST_IDS = 20
#: Reasons listed in the run's summary and the status at most (the most common; the traces
#: of the others are in the total).
REASONS_KEPT = 20
#: Distinct reasons tallied at most (a reason holding a trace's own text could make every
#: trace's differ): the traces of any further reason are tallied under :data:`OTHER`.
MAX_REASONS = 1000
OTHER = f"other reasons (more than {MAX_REASONS} distinct)"


class SkipTally:
    """Skipped traces by reason: ``now`` (this process) and the run's (see the module
    docstring)."""

    def __init__(self, earlier: list[tuple[str, int, list[str]]] | None = None) -> None:
        """``earlier``: the run's skips before this process (``Spool.skipped_in_run``)."""
        self.now: Counter[str] = Counter()
        self.run: Counter[str] = Counter()
        self.latest: dict[str, deque[str]] = {}
        for reason, count, ids in earlier or []:
            key = self._key(reason)
            self.run[key] += count
            self.latest.setdefault(key, deque(maxlen=LATEST_IDS)).extend(reversed(ids))

    def _key(self, reason: str) -> str:
        return reason if reason in self.run or len(self.run) < MAX_REASONS else OTHER

    def add(self, trace_id: str, reason: str) -> None:
        """Count one skipped trace."""
        key = self._key(reason)
        self.now[key] += 1
        self.run[key] += 1
        self.latest.setdefault(key, deque(maxlen=LATEST_IDS)).append(trace_id)

    def reasons_now(self) -> dict[str, int]:
        """This process's skips: the :data:`REASONS_KEPT` most common reasons, counted."""
        return dict(self.now.most_common(REASONS_KEPT))

    def summary(self) -> dict[str, Any]:
        """The run's skips as stored in its summary: ``total``, and ``reasons`` (the
        :data:`REASONS_KEPT` most common: ``reason``, ``count``, ``latest`` ids, newest
        first); the traces of reasons not listed are in ``total`` only."""
        return {"total": sum(self.run.values()),
                "reasons": [{"reason": reason, "count": n,
                             "latest": [short_id(t) for t in reversed(self.latest[reason])]}
                            for reason, n in self.run.most_common(REASONS_KEPT)]}
