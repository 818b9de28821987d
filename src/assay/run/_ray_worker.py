"""The Ray engine's worker actor and the helpers that move batches and results to and from it.

Example:
    >>> most_of({"calls": 3, "errors": 1}, {"calls": 5, "errors": 0})
    {'calls': 5, 'errors': 1}
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Mapping, Sequence
from typing import Any, cast

from ..calls import Budget, BudgetClient, SpendClient, SpendLimit
from ..data import Row
from ..embeddings import Embedder
from ..errors import ConfigError
from ..judges import Judge
from ..metrics import Metric
from ._score import Scorer, ScoreSettings

__all__ = ["RAY_MISSING", "Batch", "BatchResult", "ScoreWorker", "Stats", "gather_refs",
           "import_ray", "most_of", "result_of", "take_batch"]

RAY_MISSING = "The Ray engine needs ray: pip install 'assay[ray]'"

#: A worker's judge or embedder counters (``JudgeStats.as_dict()``).
Stats = dict[str, int]
#: Rows sent to a worker together, each with its previous record (resume).
Batch = list[tuple[Row, dict[str, Any]]]
#: A batch's records, the worker's judge and embedder stats, and what was spent (else None).
BatchResult = tuple[list[dict[str, Any]], "Stats | None", "Stats | None", "str | None"]


def import_ray() -> Any:
    """The ``ray`` module, or a ConfigError that says how to install it.

    Example:
        >>> import_ray().__name__
        'ray'
    """
    try:
        import ray
    except ImportError as e:
        raise ConfigError(RAY_MISSING) from e
    return ray


class ScoreWorker:
    """One worker: a :class:`Scorer` inside an async Ray actor, scoring the batches it is sent
    (several at once, each row's metrics concurrently) on the actor's event loop, under the
    run's shared TPM / RPM budget and spending limit (``None``: the run has none)."""

    def __init__(self, metrics: Sequence[Metric], judge: str | Judge | list[str | Judge] | None,
                 embedder: str | Embedder | None, settings: ScoreSettings,
                 budget_actor: Any = None, spend_actor: Any = None) -> None:
        self._args = (list(metrics), judge, embedder, settings, budget_actor)
        self._spend = SpendClient.of(spend_actor, settings.calls)
        self._scorer: Scorer | None = None

    def _get_scorer(self) -> Scorer:
        if self._scorer is None:
            metrics, judge, embedder, settings, budget_actor = self._args
            budget = cast(Budget, BudgetClient(budget_actor)) if budget_actor is not None else None
            self._scorer = Scorer(metrics, settings=settings, budget=budget, judge=judge,
                                  embedder=embedder, spend=cast(SpendLimit | None, self._spend))
        return self._scorer

    async def start(self) -> None:
        """Build the scorer (a bad spec or a missing key fails here, before any row)."""
        self._get_scorer()

    async def score_batch(self, batch: Batch) -> BatchResult:
        """The batch's records (in its order), this worker's judge and embedder stats, and
        what was spent if the spending limit stopped rows of the batch: those rows have no
        record, the others finished (their requests were paid for), as on the local engine."""
        scorer = self._get_scorer()
        tasks = [asyncio.ensure_future(scorer.score(row, previous)) for row, previous in batch]
        try:
            await asyncio.wait(tasks, return_when=asyncio.FIRST_EXCEPTION)
            if all(getattr(e, "drain", False) for e in _errors(tasks)):  # none, or the limit:
                await asyncio.wait(tasks)  # the other rows finish (soon: nothing more is sent)
            for error in (errors := _errors(tasks)):  # a ConfigError stops the run as it is
                if not getattr(error, "drain", False):
                    raise error
            records = [t.result() for t in tasks if t.exception() is None]
            stopped = next((str(getattr(e, "spent", e)) for e in errors), None)
        finally:
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
        if self._spend is not None:
            await self._spend.flush()  # the actor counts this batch's requests before it returns
        return (records, *await self.stats(), stopped)

    async def stats(self) -> tuple[Stats | None, Stats | None]:
        """Judge and embedder stats so far (``None`` for what this worker does not have)."""
        scorer = self._get_scorer()
        return (scorer.judge_stats(per_judge=True),
                scorer.embedder.stats.as_dict() if scorer.embedder is not None else None)

    async def close(self) -> None:
        """Close the scorer's caches and connections."""
        if self._scorer is not None:
            scorer, self._scorer = self._scorer, None
            await scorer.aclose()


def _errors(tasks: list[asyncio.Task[Any]]) -> list[BaseException]:
    """The errors of the tasks that ended with one."""
    return [e for t in tasks if t.done() and not t.cancelled() and (e := t.exception())]


async def take_batch(source: AsyncIterator[tuple[Row, Mapping[str, Any]]], n: int) -> Batch:
    """Up to ``n`` items from ``source`` (fewer only when it ends)."""
    batch: Batch = []
    while len(batch) < n:
        try:
            row, previous = await anext(source)
        except StopAsyncIteration:
            break
        batch.append((row, dict(previous)))
    return batch


def result_of(fut: asyncio.Future[Any], ray: Any) -> Any:
    """The future's value, or the worker's own exception (the Ray error as its cause)."""
    try:
        return fut.result()
    except ray.exceptions.RayTaskError as e:
        cause = getattr(e, "cause", None)
        if isinstance(cause, BaseException):
            raise cause from e
        raise


async def gather_refs(refs: list[Any]) -> list[Any]:
    """Await Ray object refs together; the first failure raised as the worker raised it."""
    ray = import_ray()
    futures = [asyncio.wrap_future(ref.future()) for ref in refs]
    await asyncio.wait(futures, return_when=asyncio.FIRST_EXCEPTION)
    for fut in futures:
        if fut.done() and fut.exception() is not None:
            for other in futures:
                other.cancel()
            result_of(fut, ray)
    return [await fut for fut in futures]


def most_of(old: Stats | None, new: Stats | None) -> Stats | None:
    """Each counter's larger value (a worker's counters only grow; either may be missing)."""
    if old is None or new is None:
        return new if old is None else old
    return {key: max(old.get(key, 0), value) for key, value in new.items()}
