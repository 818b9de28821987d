"""Asking a judge again: which repeat of a judge metric a call belongs to (``assay run
--repeat K``), so that the cache keeps each repeat's answer apart.

The first repeat is asked as a run without repeats asks, under the same cache key, so a run
with ``--repeat 3`` after one without reuses the answers it has and makes two new calls per
judge request; the second and later repeats are keyed apart (the scope gains ``repeat N``).
Requests of the same repeat still share one call in flight (the four severity metrics'
combined request), requests of different repeats never do.

Example:
    >>> import asyncio
    >>> repeat_scope("openai:m"), repeat_scope("openai:m", 2)
    ('openai:m', 'openai:m\\nrepeat 3')
    >>> async def which() -> int:
    ...     return JUDGE_REPEAT.get()
    >>> asyncio.run(as_repeat(1, which)), JUDGE_REPEAT.get()
    (1, 0)
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from contextvars import ContextVar
from typing import TypeVar

__all__ = ["JUDGE_REPEAT", "as_repeat", "repeat_scope"]

T = TypeVar("T")

#: The index (0-based) of the repeat the judge calls made in this context belong to.
JUDGE_REPEAT: ContextVar[int] = ContextVar("assay_judge_repeat", default=0)


def repeat_scope(scope: str, repeat: int = 0) -> str:
    """The cache scope of repeat ``repeat`` (0-based): ``scope`` itself for the first, so
    the answers cached without repeats serve it; ``scope`` and ``repeat N`` (1-based) for the
    others."""
    return scope if repeat <= 0 else f"{scope}\nrepeat {repeat + 1}"


async def as_repeat(repeat: int, ask: Callable[[], Awaitable[T]]) -> T:
    """``await ask()`` with its judge calls made as repeat ``repeat`` (0-based); the tasks it
    starts inherit it."""
    token = JUDGE_REPEAT.set(repeat)
    try:
        return await ask()
    finally:
        JUDGE_REPEAT.reset(token)
