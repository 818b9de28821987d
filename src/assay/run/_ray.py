"""The Ray engine: score a run's rows on Ray actors, with the same records as the local engine.

Rows go out in batches to worker actors (async, one per worker), each with its own
:class:`~assay.run._score.Scorer`, the very object the local engine scores with, so a record
does not depend on where it was scored. What is shared across workers:

- the budget: with ``tpm`` / ``rpm``, one :class:`~assay.calls._ray_budget.BudgetActor` hands out
  every grant, so the provider sees the run's limit, not one per worker;
- the spending limit: with ``max_cost`` / ``max_tokens``, one
  :class:`~assay.calls._ray_spend.SpendActor` holds every request's reservation, so the run
  as a whole stops before it (what is in flight on every worker finishes);
- the judge concurrency: ``settings.concurrency`` is the run's total, split evenly over the
  workers (``ceil(concurrency / workers)`` each, at least 1); when ``None`` (adaptive), each
  worker paces its own judge client;
- the cache: every worker opens ``settings.cache_path`` (SQLite in WAL mode, safe across the
  processes of one machine). On a cluster of several machines it must be a path on storage
  that every node mounts (or ``None``): each node otherwise gets a cache of its own.

A judge or embedder given as a spec (``"openai:gpt-4o-mini"``) is built inside each worker,
from the worker's environment (the driver's, for a local instance started by the engine; on a
cluster, set ``OPENAI_API_KEY`` and friends on the nodes). An instance is pickled (Ray's cloudpickle)
and sent as is, like the metrics: their classes (and a FakeJudge's script) must be importable on
the workers, or sent by value (``ray.cloudpickle.register_pickle_by_value(module)``, as the tests
do for their own module; ``__main__`` always is). State an instance keeps (a FakeJudge's
``requests``) stays on the workers' copies.

Example (starts a local Ray instance, a few seconds):
    >>> import asyncio
    >>> from assay.data import rows_from_records
    >>> from assay.metrics import get_metric
    >>> rows = rows_from_records([{"answer": "Paris", "ground_truth": "Paris"}])
    >>> async def rows_and_previous():
    ...     for row in rows:
    ...         yield row, {}
    >>> async def go():
    ...     engine = RayEngine([get_metric("exact_match")], judge=None, embedder=None,
    ...                        settings=ScoreSettings())
    ...     records = []
    ...     try:
    ...         await engine.run(rows_and_previous(), records.append)
    ...     finally:
    ...         await engine.aclose()
    ...     return records
    >>> asyncio.run(go())[0]["exact_match"]["value"]
    1.0
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
import math
import os
from collections import Counter
from collections.abc import AsyncIterable, AsyncIterator, Callable, Mapping, Sequence
from typing import Any, cast

from ..calls import (
    BudgetReachedError,
    EmbeddingStats,
    JudgeStats,
    check_prices,
    spent_at,
    start_budget_actor,
    start_spend_actor,
)
from ..data import Row
from ..embeddings import Embedder, make_embedder
from ..errors import ConfigError
from ..judges import Judge, make_judge
from ..metrics import Metric
from ..records import work_each
from ._panel import check_panel_ids, panel_id
from ._panel_tally import split_usage
from ._ray_address import check_ray_address, ray_cluster_error
from ._ray_worker import (
    RAY_MISSING,
    Batch,
    ScoreWorker,
    Stats,
    gather_refs,
    import_ray,
    most_of,
    result_of,
    take_batch,
)
from ._score import ScoreSettings

__all__ = ["RAY_MISSING", "RayEngine", "ScoreWorker", "import_ray"]

log = logging.getLogger("assay")

#: Workers on a local instance (and the least on a cluster).
DEFAULT_WORKERS = 2
#: Batches in flight per worker: one scoring while the next is on its way.
IN_FLIGHT = 2



class RayEngine:
    """Scores rows on Ray actors (one per worker), each with its own Scorer, all under one budget.

    Args:
        metrics: the planned metrics (sent to every worker).
        judge, embedder: a spec, built in each worker, or an instance, sent as is; ``None``
            when no metric needs one. A list of judges is a panel (see
            :mod:`assay.run._panel`), built in each worker the same way.
        settings: how rows are scored; ``settings.calls``: how judge calls are made, its
            ``concurrency`` the run's total judge concurrency, its ``tpm`` / ``rpm`` the
            run's token / request budget per minute, kept by one budget actor for every
            worker (neither set: no budget actor, and no round trip per request); its
            ``max_cost`` / ``max_tokens``, kept the same way by one spend actor.
        address: a Ray cluster to connect to (``"auto"``, ``"ray://host:10001"``, ...); without
            one, a local instance is started (Ray already initialised in this process is used
            as it is, wherever it points).
        workers: worker actors; default 2, or on a cluster one per node (at least 2). Workers
            take no CPU reservation (they wait on the judge, not on a core) and are spread over
            the nodes.
        batch_size: rows per batch sent to a worker; at most :data:`IN_FLIGHT` batches per
            worker are out at a time.

    Raises:
        ConfigError: ray is not installed, a bad option, or no cluster answers at ``address``
            (checked with one TCP connection, a few seconds at most, before Ray joins it).
    """

    def __init__(self, metrics: Sequence[Metric], *, judge: str | Judge | list[str | Judge] | None,
                 embedder: str | Embedder | None, settings: ScoreSettings,
                 address: str | None = None,
                 workers: int | None = None, batch_size: int = 16) -> None:
        ray = import_ray()
        timeout, tpm, rpm = settings.calls.timeout, settings.calls.tpm, settings.calls.rpm
        if workers is not None and workers < 1:
            raise ConfigError(f"Got {workers} Ray workers. Must be at least 1.")
        if batch_size < 1:
            raise ConfigError(f"Got a batch size of {batch_size}. Must be at least 1.")
        # Built here only for their ids and to check the spec and its settings early (building
        # opens no connection; so the driver's environment needs the judge's settings too);
        # the workers build their own.
        specs = judge if isinstance(judge, list) else [] if judge is None else [judge]
        self._judge_probes = [make_judge(j, timeout=timeout) for j in specs]  # a panel: several
        self._owned_probes = [p for p, j in zip(self._judge_probes, specs, strict=True)
                              if isinstance(j, str)]  # an instance stays open for its owner
        self._embedder_probe = (make_embedder(embedder, timeout=timeout)
                                if isinstance(embedder, str) else None)
        ids = [j.id for j in self._judge_probes]
        check_panel_ids(ids)
        check_prices(settings.calls, ids)  # --max-cost without a price: before Ray starts
        self.judge_id: str | None = (panel_id(ids) if len(ids) > 1 else ids[0] if ids else None)
        self.embedder_id: str | None = (None if embedder is None
                                        else (self._embedder_probe or cast(Embedder, embedder)).id)
        self.batch_size = batch_size
        self._owns_ray = False
        if not ray.is_initialized():
            common = {"log_to_driver": False, "logging_level": logging.WARNING}
            if address:
                check_ray_address(address)  # a cluster that is not there: one line, not a hang
                try:
                    ray.init(address=address, **common)
                except ConnectionError as e:  # found, then lost, or refused by Ray itself
                    raise ray_cluster_error(address, str(e).splitlines()[0]) from e
            else:
                ray.init(num_cpus=max(workers or DEFAULT_WORKERS, os.cpu_count() or 1),
                         include_dashboard=False, **common)
            self._owns_ray = True
        try:
            n = workers or (max(DEFAULT_WORKERS, sum(1 for node in ray.nodes() if node["Alive"]))
                            if address else DEFAULT_WORKERS)
            self.workers = n
            total = settings.calls.concurrency
            per_worker = dataclasses.replace(settings, calls=dataclasses.replace(
                settings.calls, concurrency=(None if total is None  # adaptive: each
                                             else max(1, math.ceil(total / n)))))
            self._budget_actor = start_budget_actor(tpm, rpm) if (tpm or rpm) else None
            self._spend_actor = start_spend_actor(settings.calls.max_cost, settings.calls.max_tokens)
            worker_class = ray.remote(ScoreWorker).options(
                num_cpus=0, max_concurrency=4 * IN_FLIGHT + 8, scheduling_strategy="SPREAD")
            self._actors = [worker_class.remote(list(metrics), judge, embedder, per_worker,
                                                self._budget_actor, self._spend_actor)
                            for _ in range(n)]
        except BaseException:
            if self._owns_ray:
                ray.shutdown()
            raise
        self._started = False
        self._closed = False
        self._stats: list[tuple[Stats | None, Stats | None]] = [(None, None)] * n

    async def start(self) -> None:
        """Wait until every worker is up with its scorer (``run`` does it first; call it early
        to pay the actors' start-up before timing a run).

        Raises:
            ConfigError: a worker could not build its judge or embedder (as the worker raised it).
        """
        if not self._started:
            await gather_refs([actor.start.remote() for actor in self._actors])
            self._started = True

    async def run(self, items: AsyncIterator[tuple[Row, Mapping[str, Any]]] | AsyncIterable[
                      tuple[Row, Mapping[str, Any]]],
                  on_record: Callable[[dict[str, Any]], None]) -> None:
        """Pull (row, previous) pairs lazily from ``items``, group them in batches of
        ``batch_size``, score each batch on a worker actor, and call ``on_record(record)`` in the
        driver for every record as its batch finishes (any order). At most ``IN_FLIGHT`` batches
        per worker are out, and no item is pulled before there is room for its batch (the
        caller applies back-pressure through ``items``). Items are read while batches score.

        Raises:
            The first error of a batch, as the worker raised it (a ``ConfigError`` from a metric
            arrives as ``ConfigError`` with its message, the Ray error as its ``__cause__``);
            then nothing more is sent and the batches in flight are cancelled. Cancelling the
            run (Ctrl-C) does the same.
            BudgetReachedError: the spending limit is reached: raised once the batches in
            flight finished (their finished rows handed on), with what every worker spent.
        """
        ray = import_ray()
        if self._closed:
            raise ConfigError("This Ray engine is closed.")
        await self.start()
        source = aiter(items)
        load = [0] * len(self._actors)

        async def batches() -> AsyncIterator[Batch]:
            while batch := await take_batch(source, self.batch_size):
                yield batch
                if len(batch) < self.batch_size:
                    return

        async def score(batch: Batch) -> Any:
            w = min(range(len(load)), key=load.__getitem__)  # the least loaded worker
            ref = self._actors[w].score_batch.remote(batch)
            load[w] += 1
            fut = asyncio.wrap_future(ref.future())
            try:
                await asyncio.wait([fut])
            except BaseException:  # cancelled (another batch failed, or Ctrl-C)
                with contextlib.suppress(Exception):  # already finished, or the worker is gone
                    ray.cancel(ref)
                fut.cancel()
                raise
            finally:
                load[w] -= 1
            records, judge_stats, embedder_stats, stopped = result_of(fut, ray)
            self._note_stats(w, judge_stats, embedder_stats)
            if stopped is not None:  # the spending limit: the rows that finished are kept
                hand_on(batch, records)
                raise BudgetReachedError(stopped)
            return records

        def hand_on(_batch: Batch, records: Any) -> None:
            for record in records:
                on_record(record)

        try:
            # the jobs' one loop: IN_FLIGHT batches per worker, read only when one is free
            await work_each(batches(), score, hand_on, parallel=IN_FLIGHT * len(load))
        except BudgetReachedError as e:  # every batch finished: what the whole run spent
            raise BudgetReachedError(await spent_at(self._spend_actor, e.spent)) from None
        finally:
            await self._refresh_stats()

    def stats(self) -> tuple[Stats | None, Stats | None]:
        """Judge stats and embedder stats summed over all workers (the keys of ``JudgeStats`` /
        ``EmbeddingStats.as_dict()``; a panel's judges added up), ``None`` where there is no
        judge / embedder."""
        judge = JudgeStats().as_dict() if self.judge_id is not None else None
        embedder = EmbeddingStats().as_dict() if self.embedder_id is not None else None
        for worker_judge, worker_embedder in self._stats:
            for total, part in ((judge, worker_judge), (embedder, worker_embedder)):
                if total is not None and part is not None:
                    for key, value in part.items():
                        total[key] = total.get(key, 0) + value
        return (split_usage(judge, {})[0] if judge is not None else None), embedder

    def panel_usage(self) -> dict[str, dict[str, Any]] | None:
        """A panel's requests, tokens and cost per judge over all workers (``None`` without)."""
        if len(self._judge_probes) < 2:
            return None
        summed: Counter[str] = Counter()
        for worker_judge, _ in self._stats:
            summed.update(worker_judge or {})
        return split_usage(summed, {j.id: j.capabilities for j in self._judge_probes})[1]

    async def aclose(self) -> None:
        """Close the workers' scorers, kill the actors, and shut Ray down if this engine started
        it (without ``address``; a cluster it connected to is only disconnected from)."""
        if self._closed:
            return
        self._closed = True
        ray = import_ray()
        try:
            await asyncio.wait_for(gather_refs([a.close.remote() for a in self._actors]), 10)
        except Exception:  # a dead or stuck worker: killed below all the same
            log.debug("closing the Ray workers failed", exc_info=True)
        for actor in [*self._actors, *(a for a in (self._budget_actor, self._spend_actor) if a)]:
            ray.kill(actor)
        for probe in (*self._owned_probes, self._embedder_probe):
            if probe is not None:
                await probe.aclose()
        if self._owns_ray:
            ray.shutdown()

    def _note_stats(self, worker: int, judge: Stats | None, embedder: Stats | None) -> None:
        # Counters only grow: keep the largest seen (batches may finish out of order).
        old_judge, old_embedder = self._stats[worker]
        self._stats[worker] = (most_of(old_judge, judge), most_of(old_embedder, embedder))

    async def _refresh_stats(self) -> None:
        try:
            got = await asyncio.wait_for(gather_refs([a.stats.remote() for a in self._actors]), 5)
        except Exception:  # stats are best effort: keep those the batches brought back
            log.debug("could not read the Ray workers' stats", exc_info=True)
            return
        for w, (judge, embedder) in enumerate(got):
            self._note_stats(w, judge, embedder)
