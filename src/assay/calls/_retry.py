"""Bounded retries for judge and embedding calls: exponential backoff with jitter, a server's
Retry-After first, 429s bounded by time rather than tries."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TypeVar

from ..errors import CallTimeoutError, JudgeError, RetryableJudgeError, option

__all__ = ["RetryPolicy"]

T = TypeVar("T")


@dataclass
class RetryPolicy:
    """Bounded retries with exponential backoff and jitter; a server's Retry-After wins.

    - ``max_attempts`` bounds the tries of a call that fails in a way worth retrying (5xx,
      timeouts, resets, a body that is not JSON).
    - Rate limiting (429) does not use up tries: the time spent waiting on 429s for one call
      is bounded by ``max_wait`` seconds instead (``--max-wait``), so a busy provider slows a
      run down rather than failing its rows.
    - A refused connection or failed DNS lookup gets ``connect_attempts`` quick tries, then
      fails as the :class:`~assay.errors.JudgeUnavailableError` it carries.
    - A call past its deadline (:class:`~assay.errors.CallTimeoutError`, ``--timeout``) gets
      ``timeout_attempts`` tries: a hung server costs a row at most that many timeouts (plus
      the backoff between them), never ``max_attempts`` of them.

    Example:
        >>> policy = RetryPolicy(base_delay=0.0)
        >>> calls = []
        >>> async def flaky():
        ...     calls.append(1)
        ...     if len(calls) < 8:  # seven 429s: more than max_attempts, all within max_wait
        ...         raise RetryableJudgeError("429", rate_limited=True, retry_after=0.0)
        ...     return "ok"
        >>> import asyncio
        >>> asyncio.run(policy.call(flaky)), len(calls)
        ('ok', 8)
    """

    max_attempts: int = 6
    base_delay: float = 1.0
    max_delay: float = 60.0
    max_wait: float = 600.0
    connect_attempts: int = 3
    timeout_attempts: int = 2

    def delay(self, attempt: int, retry_after: float | None) -> float:
        if retry_after is not None:
            return min(max(retry_after, 0.0), self.max_delay) + random.uniform(0.0, 0.25)
        return min(self.base_delay * 2 ** (attempt - 1), self.max_delay) * random.uniform(0.5, 1.0)

    async def call(self, attempt: Callable[[], Awaitable[T]], *,
                   on_error: Callable[[RetryableJudgeError, bool], None] | None = None) -> T:
        """Await ``attempt()`` until it succeeds, retrying ``RetryableJudgeError`` with backoff
        (outside the attempt, so no slot is held while waiting). ``on_error(error, final)`` sees
        every retryable failure; after the last one a ``JudgeError`` says how many tries it took
        (or how long it waited on rate limits). Other errors pass straight through.
        """
        tries = 0  # failures that use up max_attempts
        limited = 0  # 429s, bounded by max_wait
        waited = 0.0
        while True:
            try:
                return await attempt()
            except RetryableJudgeError as e:
                if e.rate_limited:
                    limited += 1
                    pause = self.delay(limited, e.retry_after)
                    final = waited + pause > self.max_wait
                    if on_error is not None:
                        on_error(e, final)
                    if final:
                        raise JudgeError(f"{e} (still rate limited after waiting {waited:.0f} s "
                                         f"on {limited} 429s; {option('max_wait')} is "
                                         f"{self.max_wait:g} s)") from e
                    waited += max(pause, 0.05)  # a zero wait still counts: no endless spin
                    await asyncio.sleep(pause)
                    continue
                tries += 1
                limit = (self.connect_attempts if e.unreachable else self.timeout_attempts
                         if isinstance(e, CallTimeoutError) else self.max_attempts)
                final = tries >= min(limit, self.max_attempts)
                if on_error is not None:
                    on_error(e, final)
                if final and e.unreachable is not None:
                    raise e.unreachable from e
                if final:
                    raise JudgeError(f"{e} (gave up after {tries} attempts)") from e
                await asyncio.sleep(self.delay(tries, e.retry_after))
