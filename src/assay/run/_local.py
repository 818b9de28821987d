"""The local engine: rows scored concurrently by asyncio workers in this process, on the
jobs' one loop (:func:`assay.records.work_each`, under :meth:`assay.records.Job.each`).

An engine takes ``(row, previous results)`` pairs from an async iterator, as fast as it can
score them, and hands each finished record to ``on_record``; the Ray engine has the same shape.

When no metric of the run waits on a judge or an embedder (token F1, exact match, BLEU...),
the rows are scored one after another in the calling task: no worker tasks and no lock, which
cost more than the metrics themselves. Records are handed on as they finish either way, and
the loop lets other tasks run (and a Ctrl-C's cancellation in) every few hundred rows.

Example:
    >>> import asyncio
    >>> from assay.data import rows_from_records
    >>> from assay.metrics import get_metric
    >>> rows = rows_from_records([{"answer": "a", "ground_truth": "a"}] * 3)
    >>> async def items():
    ...     for row in rows:
    ...         yield row, {}
    >>> async def go():
    ...     engine = LocalEngine(Scorer([get_metric("exact_match")], judge=None, embedder=None))
    ...     got = []
    ...     await engine.run(items(), got.append)
    ...     await engine.aclose()
    ...     return sorted(r["id"] for r in got)
    >>> asyncio.run(go())
    ['1', '2', '3']
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable, Mapping
from typing import Any

from ..data import Row
from ..records import work_each
from ._score import Scorer

__all__ = ["LocalEngine"]


#: Rows scored in line between two yields to the event loop.
_YIELD_EVERY = 256


class LocalEngine:
    """``workers`` asyncio tasks, each scoring one row at a time with ``scorer`` (the judge's
    own concurrency cap and budget live in the scorer's managed judge)."""

    def __init__(self, scorer: Scorer, *, workers: int = 16) -> None:
        self.scorer = scorer
        self.workers = max(1, workers)
        self.judge_id = scorer.judge_id
        self.embedder_id = scorer.embedder.id if scorer.embedder is not None else None

    async def run(self, items: AsyncIterator[tuple[Row, Mapping[str, Any]]],
                  on_record: Callable[[dict[str, Any]], None]) -> None:
        """Score every item; ``on_record`` gets each record as it finishes (any order)."""
        if not self.scorer.waits:
            await self._run_in_line(items, on_record)
            return

        async def score(item: tuple[Row, Mapping[str, Any]]) -> dict[str, Any]:
            return await self.scorer.score(*item)

        # the jobs' one loop: bounded workers on the shared reader, Ctrl-C carried out
        await work_each(items, score, lambda _item, record: on_record(record),
                        parallel=self.workers)

    async def _run_in_line(self, items: AsyncIterator[tuple[Row, Mapping[str, Any]]],
                           on_record: Callable[[dict[str, Any]], None]) -> None:
        """Score the rows one at a time in this task (their metrics never wait), in order."""
        score, done = self.scorer.score_in_line, 0
        async for row, previous in items:
            on_record(await score(row, previous))
            done += 1
            if done % _YIELD_EVERY == 0:
                await asyncio.sleep(0)  # let other tasks run, and a cancellation in

    def stats(self) -> tuple[dict[str, int] | None, dict[str, int] | None]:
        """What the judge (a panel's judges, added up) and the embedder did (``None`` where
        the run has none)."""
        embedder = self.scorer.embedder
        return (self.scorer.judge_stats(),
                embedder.stats.as_dict() if embedder is not None else None)

    def panel_usage(self) -> dict[str, dict[str, Any]] | None:
        """A panel's requests, tokens and cost per judge (``None`` without a panel)."""
        return self.scorer.panel_usage()

    async def aclose(self) -> None:
        await self.scorer.aclose()
