"""The one loop that works a job's items: ``parallel`` workers, each taking the next item
from one shared source (a list, or an async iterable read lazily, so a large dataset is never
held), handing each result on as it finishes. :meth:`assay.records.Job.each` (every producer)
and evaluate's local engine both run on it.

* **Bounded**: at most ``parallel`` items are taken and not finished; the source is read only
  when a worker is free, so a feeder that waits (evaluate's ordered writer, when its window is
  full) holds the whole loop back.
* **All or none**: the first error of ``work`` (or ``done``) stops the loop: no item starts
  after it, the items in flight are cancelled, and the error is raised. Ctrl-C
  (``KeyboardInterrupt``, ``SystemExit``) raised inside an item comes out as itself, after the
  other items are stopped, so the caller's clean-up (rows written kept, the run marked
  ``interrupted``) runs before the process exits.
* **Draining**: an error that says so (``drain = True``, a spending limit reached) stops the
  loop too, but the items in flight finish (their requests are paid for) before it is raised.

Example:
    >>> import asyncio
    >>> async def double(n: int) -> int:
    ...     await asyncio.sleep(0.01 * (3 - n))  # the last finishes first
    ...     return 2 * n
    >>> got: list[tuple[int, int]] = []
    >>> asyncio.run(work_each([1, 2, 3], double, lambda n, d: got.append((n, d)), parallel=3))
    >>> got
    [(3, 6), (2, 4), (1, 2)]
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterable, AsyncIterator, Awaitable, Callable, Iterable
from dataclasses import dataclass
from typing import Any, TypeVar

from ..errors import ConfigError, option

__all__ = ["JobRows", "check_parallel", "work_each"]

Item = TypeVar("Item")
Done = TypeVar("Done")


@dataclass(frozen=True)
class JobRows:
    """What :meth:`Job.run` made: the rows in item order (kept and new) and how many items
    were worked now (not kept from an earlier run)."""

    rows: list[dict[str, Any]]
    worked: int

    @property
    def failed(self) -> list[dict[str, Any]]:
        """The rows with ``error`` set (their item failed; never dropped)."""
        return [r for r in self.rows if r.get("error")]



class _Interrupted(Exception):
    """Carries a KeyboardInterrupt / SystemExit out of a worker task (raised inside a task,
    they would stop the event loop before the caller's clean-up runs)."""


async def work_each(items: Iterable[Item] | AsyncIterable[Item],
                    work: Callable[[Item], Awaitable[Done]],
                    done: Callable[[Item, Done], None], *, parallel: int) -> None:
    """``work`` every item of ``items``, ``parallel`` at a time, in the order they come;
    ``done(item, result)`` as each finishes (any order).

    Raises:
        ConfigError: ``parallel`` is not a whole number of at least 1.
        BaseException: the first error of ``work`` or ``done``, once the other items stopped.
    """
    check_parallel(parallel)
    source = _items(items)
    taking = asyncio.Lock()  # one worker at a time advances the shared source
    stopping = False  # an item failed: none starts after it

    async def next_item() -> tuple[Item] | None:
        async with taking:
            if stopping:
                return None
            try:
                return (await anext(source),)
            except StopAsyncIteration:
                return None

    drained: list[BaseException] = []  # a draining error: raised once the others finished

    async def worker() -> None:
        nonlocal stopping
        while (taken := await next_item()) is not None:
            try:
                result = await work(taken[0])
                done(taken[0], result)
            except Exception as e:
                stopping = True
                if not getattr(e, "drain", False):
                    raise
                drained.append(e)
                return
            except (KeyboardInterrupt, SystemExit) as e:
                stopping = True
                raise _Interrupted() from e
            except BaseException:
                stopping = True
                raise

    tasks = [asyncio.ensure_future(worker()) for _ in range(parallel)]
    try:
        await asyncio.gather(*tasks)
    except BaseException as e:
        for task in tasks:  # stop the other items before the caller closes its files
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        if isinstance(e, _Interrupted):
            raise e.__cause__ from None  # type: ignore[misc]
        raise
    if drained:
        raise drained[0]


async def _items(items: Iterable[Item] | AsyncIterable[Item]) -> AsyncIterator[Item]:
    if isinstance(items, AsyncIterable):
        async for item in items:
            yield item
    else:
        for item in items:
            yield item


def check_parallel(parallel: int) -> None:
    """Refuse a number of items in flight that is not a whole number of at least 1.

    Example:
        >>> check_parallel(0)
        Traceback (most recent call last):
        assay.errors.ConfigError: Got parallel=0. Must be a whole number of items in flight, at least 1.
    """
    if isinstance(parallel, bool) or not isinstance(parallel, int) or parallel < 1:
        raise ConfigError(f"Got {option('parallel', parallel)}. Must be a whole number of "
                          "items in flight, at least 1.")
