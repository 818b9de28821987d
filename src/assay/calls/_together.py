"""Running coroutines together where one failure stops them all.

Example:
    >>> import asyncio
    >>> done = []
    >>> async def ok(i):
    ...     done.append(i)
    >>> asyncio.run(all_or_none([ok(1), ok(2)])); sorted(done)
    [1, 2]
    >>> async def bad():
    ...     raise ValueError("no")
    >>> asyncio.run(all_or_none([bad()]))
    Traceback (most recent call last):
    ...
    ValueError: no
"""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from typing import Any

__all__ = ["all_or_none"]


async def all_or_none(coros: list[Coroutine[Any, Any, None]]) -> None:
    """Run ``coros`` together; on the first error (or when cancelled) cancel the rest and
    raise it."""
    tasks = [asyncio.ensure_future(c) for c in coros]
    if not tasks:
        return
    try:
        done, pending = await asyncio.wait(tasks, return_when=asyncio.FIRST_EXCEPTION)
    except BaseException:
        for t in tasks:
            t.cancel()
        raise
    for t in pending:
        t.cancel()
    if pending:
        await asyncio.wait(pending)
    for t in done:
        if not t.cancelled() and t.exception() is not None:
            raise t.exception()  # type: ignore[misc]
