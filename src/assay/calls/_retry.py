"""Bounded retries for judge and embedding calls: exponential backoff with jitter, a server's
Retry-After on top of it (never below it), 429s bounded by time rather than tries."""

from __future__ import annotations

import asyncio
import logging
import math
import random
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TypeVar

from ..errors import CallTimeoutError, JudgeError, RetryableJudgeError, option

__all__ = ["RetryPolicy"]

T = TypeVar("T")
log = logging.getLogger("assay.calls")


@dataclass
class RetryPolicy:
    """Bounded retries with exponential backoff and jitter; a server's longer Retry-After wins.

    - Every retry waits at least the exponential backoff (``base_delay`` doubled per try, at
      most ``max_delay``, with jitter): a ``Retry-After`` of 0, negative, missing or not a
      number never makes a call spin. A longer ``Retry-After`` is waited as asked.
    - ``max_attempts`` bounds the tries of a call that fails in a way worth retrying (5xx,
      timeouts, resets, a body that is not JSON).
    - Rate limiting (429) does not use up tries: the time spent waiting on 429s for one call
      is bounded by ``max_wait`` seconds instead (``--max-wait``), so a busy provider slows a
      run down rather than failing its rows. A server that asks for a wait longer than
      what is left of ``max_wait`` is not waited on silently: the call fails at once, its
      message (and a warning in the log) naming the asked wait and the option.
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
    #: The warnings logged already (each is logged once per policy, i.e. per judge).
    _said: set[str] = field(default_factory=set, init=False, repr=False, compare=False)

    def delay(self, attempt: int, retry_after: float | None) -> float:
        """Seconds to wait before try ``attempt + 1``: the backoff with jitter, or the server's
        ``retry_after`` (plus a little jitter, at most ``max_delay``) when that is longer.

        Example:
            >>> policy = RetryPolicy(base_delay=1.0)
            >>> all(0.5 <= policy.delay(1, ra) <= 1.0 for ra in (None, 0.0, -5.0, float("nan")))
            True
            >>> 30.0 <= policy.delay(1, 30.0) <= 30.25
            True
        """
        backoff = min(self.base_delay * 2 ** (attempt - 1), self.max_delay) * random.uniform(0.5, 1.0)
        asked = usable_wait(retry_after)
        if asked is None or asked <= backoff:
            return backoff
        return min(asked, self.max_delay) + random.uniform(0.0, 0.25)

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
                    asked = usable_wait(e.retry_after)
                    if asked is not None and waited + asked > self.max_wait:
                        if on_error is not None:
                            on_error(e, True)
                        raise self._over_max_wait(e, asked, waited) from e
                    pause = self.delay(limited, e.retry_after)
                    long_wait = False
                    if asked is not None and asked > pause:  # within max_wait: as asked
                        pause, long_wait = asked + random.uniform(0.0, 0.25), True
                    final = waited + pause > self.max_wait
                    if on_error is not None:
                        on_error(e, final)
                    if final:
                        raise JudgeError(f"{e} (still rate limited after waiting {waited:.0f} s "
                                         f"on {limited} 429s; {option('max_wait')} is "
                                         f"{self.max_wait:g} s)") from e
                    if long_wait and pause > self.max_delay and self._say_once("long"):
                        log.warning("rate limited: the server asks to wait %.0f s "
                                    "(Retry-After); waiting it (%s is %g s)", asked,
                                    option("max_wait"), self.max_wait)
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

    def _say_once(self, what: str) -> bool:
        """Whether ``what`` is to be logged now: the first time for this policy only."""
        if what in self._said:
            return False
        self._said.add(what)
        return True

    def _over_max_wait(self, error: RetryableJudgeError, asked: float, waited: float
                       ) -> JudgeError:
        """The error (and the warning) for a server that asks to wait past ``max_wait``."""
        left = max(self.max_wait - waited, 0.0)
        fix = f"raise {option('max_wait')} to wait it"
        if self._say_once("over"):  # every failed call says it in its own error too
            log.warning("rate limited: the server asks to wait %.0f s (Retry-After), more "
                        "than the %.0f s left of %s %g s: the call fails now instead of "
                        "waiting; %s", asked, left, option("max_wait"), self.max_wait, fix)
        return JudgeError(f"{error} (the server asks to wait {asked:.0f} s, more than the "
                          f"{left:.0f} s left of {option('max_wait')} {self.max_wait:g} s; "
                          f"{fix})")


def usable_wait(retry_after: float | None) -> float | None:
    """A server's Retry-After in seconds when it asks for a real wait (a positive number),
    else None: 0, negative or NaN is read as no wait asked (the backoff applies).

    Example:
        >>> usable_wait(2.5), usable_wait(0.0), usable_wait(-5.0), usable_wait(float("nan"))
        (2.5, None, None, None)
    """
    if retry_after is None or math.isnan(retry_after) or retry_after <= 0:
        return None
    return float(retry_after)
