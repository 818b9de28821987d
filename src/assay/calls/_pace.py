"""Adaptive concurrency for remote judges: as many requests in flight as the endpoint takes.

:class:`AdaptiveLimit` is the controller, a pure state machine (no clock, no I/O) in the
manner of TCP congestion control (AIMD):

- **grow** while latency stays flat: +1 per answered request while nothing has pushed back
  yet (slow start: the limit doubles each round trip), then +1 per ``limit`` answers
  (additive increase: one more per round trip). Only answers that came back while the limit
  was in use count (a half-idle run proves nothing about a higher limit).
- **hold** when the median of the recent latencies is more than ``tolerance`` times the best
  median seen, or when the provider's rate-limit headers say the requests or tokens left in
  its window are running low.
- **halve** (floor ``floor``) on a 429 or a 5xx, once per round trip: throttles of requests
  sent before the last back-off are the same congestion and do not halve again.

:class:`Gate` is the async semaphore whose size follows the limit.

Example:
    >>> pace = AdaptiveLimit(initial=8, ceiling=64)
    >>> for _ in range(8):
    ...     pace.on_success(0.3)
    >>> pace.limit  # slow start: +1 per answer
    16
    >>> pace.on_throttle(pace.epoch), pace.limit  # a 429: halve
    (True, 8)
    >>> pace.on_throttle(pace.epoch - 1), pace.limit  # sent before the back-off: same event
    (False, 8)
    >>> for _ in range(8):
    ...     pace.on_success(0.3)
    >>> pace.limit  # additive now: +1 per 8 answers
    9
"""

from __future__ import annotations

import asyncio
import statistics
from collections import deque
from collections.abc import Mapping
from types import TracebackType
from typing import Any

__all__ = ["ADAPTIVE_CEILING", "ADAPTIVE_START", "FIXED_DEFAULT", "AdaptiveLimit", "Gate",
           "headroom"]

#: Requests in flight when an adaptive run starts.
ADAPTIVE_START = 64
#: The most requests in flight an adaptive run reaches (unless the judge declares fewer).
ADAPTIVE_CEILING = 128
#: Requests in flight for a local judge when no concurrency is given.
FIXED_DEFAULT = 8


class AdaptiveLimit:
    """How many judge requests may be in flight, from what the endpoint's answers show.

    Args:
        initial: the limit to start from.
        floor, ceiling: the limit stays within them.
        tolerance: growth holds while the recent median latency exceeds ``tolerance`` x the
            best median seen.
        window: latencies in the recent median.
        low: share of the provider's window (requests or tokens) below which growth holds.

    Example:
        >>> pace = AdaptiveLimit(initial=4, ceiling=6)
        >>> for _ in range(10):
        ...     pace.on_success(0.3)
        >>> pace.limit, pace.peak  # capped
        (6, 6)
        >>> pace.on_success(0.3, busy=False); pace.limit  # idle answers prove nothing
        6
    """

    def __init__(self, initial: int = ADAPTIVE_START, *, floor: int = 1,
                 ceiling: int = ADAPTIVE_CEILING, tolerance: float = 1.5, window: int = 8,
                 low: float = 0.1) -> None:
        if not 1 <= floor <= ceiling:
            raise ValueError(f"AdaptiveLimit needs 1 <= floor <= ceiling; got floor={floor}, "
                             f"ceiling={ceiling}.")
        self.floor, self.ceiling = floor, ceiling
        self.tolerance, self.low = tolerance, low
        self._value = float(min(max(initial, floor), ceiling))
        self._recent: deque[float] = deque(maxlen=window)
        self._enough = max(1, window // 2)  # latencies before a median counts
        self._best: float | None = None
        self._slow_start = True
        self._headroom_low = False
        #: Back-offs so far; a request remembers the epoch it was sent in.
        self.epoch = 0
        self.peak = self.limit

    @property
    def limit(self) -> int:
        """Requests that may be in flight now."""
        return int(self._value)

    @property
    def latency_flat(self) -> bool:
        """Whether the recent median latency is within ``tolerance`` of the best median."""
        if self._best is None or len(self._recent) < self._enough:
            return True
        return statistics.median(self._recent) <= self.tolerance * self._best

    def on_success(self, latency: float, *, busy: bool = True) -> None:
        """An answer came back after ``latency`` seconds; ``busy``: the limit was in use."""
        self._recent.append(latency)
        if len(self._recent) >= self._enough:
            median = statistics.median(self._recent)
            self._best = median if self._best is None else min(self._best, median)
        if not self.latency_flat:
            self._slow_start = False
            return
        if not busy or self._headroom_low:
            return
        step = 1.0 if self._slow_start else 1.0 / self.limit
        self._value = min(self._value + step, float(self.ceiling))
        self.peak = max(self.peak, self.limit)

    def on_throttle(self, sent_epoch: int) -> bool:
        """A 429 or 5xx for a request sent in ``sent_epoch``: halve the limit, unless this
        congestion was already answered (the request was sent before the last back-off).
        Returns whether the limit was halved."""
        self._slow_start = False
        if sent_epoch < self.epoch:
            return False
        self._value = float(max(self.floor, self.limit // 2))
        self.epoch += 1
        return True

    def on_headroom(self, *, remaining_requests: float | None = None,
                    limit_requests: float | None = None,
                    remaining_tokens: float | None = None, limit_tokens: float | None = None,
                    tokens_per_request: float | None = None) -> None:
        """What the provider's rate-limit headers say is left of its window. Growth holds
        while what is left is below ``low`` of the window, or would not last two more rounds
        of ``limit`` requests (of ``tokens_per_request`` each, when known).

        Example:
            >>> pace = AdaptiveLimit(initial=8)
            >>> pace.on_headroom(remaining_requests=10, limit_requests=500)
            >>> pace.on_success(0.3); pace.limit  # 10 left < 2 x 8 in flight: hold
            8
            >>> pace.on_headroom(remaining_requests=400, limit_requests=500,
            ...                  remaining_tokens=190_000, limit_tokens=200_000)
            >>> for _ in range(8):  # plenty left: grow again (additively, near the limits)
            ...     pace.on_success(0.3)
            >>> pace.limit
            9
        """
        low = False
        rounds = 2 * self.limit
        if remaining_requests is not None:
            low |= remaining_requests < rounds
            low |= limit_requests is not None and remaining_requests < self.low * limit_requests
        if remaining_tokens is not None:
            low |= limit_tokens is not None and remaining_tokens < self.low * limit_tokens
            low |= tokens_per_request is not None and remaining_tokens < rounds * tokens_per_request
        if low:
            self._slow_start = False
        self._headroom_low = low


#: The rate-limit figures a backend may report in ``rate_limits`` (from the provider's
#: ``x-ratelimit-*`` headers), as :meth:`AdaptiveLimit.on_headroom` takes them.
HEADROOM_KEYS = ("remaining_requests", "limit_requests", "remaining_tokens", "limit_tokens")


def headroom(rate_limits: Mapping[str, Any] | None) -> dict[str, float]:
    """The figures of a backend's ``rate_limits`` that :meth:`AdaptiveLimit.on_headroom`
    reads (numbers only; anything else is left out).

    Example:
        >>> headroom({"remaining_requests": 12, "limit_requests": "x", "other": 1})
        {'remaining_requests': 12.0}
        >>> headroom(None)
        {}
    """
    out: dict[str, float] = {}
    for key in HEADROOM_KEYS:
        value = (rate_limits or {}).get(key)
        if isinstance(value, int | float) and not isinstance(value, bool):
            out[key] = float(value)
    return out


class Gate:
    """An async semaphore whose size can change: a smaller size admits no one until enough
    holders have left, a larger one admits waiters at once (first come, first served).

    Example:
        >>> async def demo():
        ...     gate = Gate(1)
        ...     async with gate:
        ...         gate.size = 2
        ...         async with gate:
        ...             return gate.in_flight, gate.peak
        >>> asyncio.run(demo())
        (2, 2)
    """

    def __init__(self, size: int) -> None:
        self._size = max(1, size)
        self._waiters: deque[asyncio.Future[None]] = deque()
        self.in_flight = 0
        #: The most holders at once.
        self.peak = 0

    @property
    def size(self) -> int:
        return self._size

    @size.setter
    def size(self, value: int) -> None:
        self._size = max(1, value)
        self._wake()

    @property
    def waiting(self) -> int:
        """Callers waiting for a place."""
        return len(self._waiters)

    def _admit(self) -> None:
        self.in_flight += 1
        self.peak = max(self.peak, self.in_flight)

    def _wake(self) -> None:
        while self._waiters and self.in_flight < self._size:
            waiter = self._waiters.popleft()
            if not waiter.done():
                self._admit()
                waiter.set_result(None)

    async def acquire(self) -> None:
        """Wait for a place."""
        if self.in_flight < self._size and not self._waiters:
            self._admit()
            return
        waiter: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._waiters.append(waiter)
        try:
            await waiter
        except asyncio.CancelledError:
            if waiter.done() and not waiter.cancelled():  # admitted, then cancelled: give back
                self.release()
            elif waiter in self._waiters:
                self._waiters.remove(waiter)
            raise

    def release(self) -> None:
        """Leave; the first waiter takes the place if the size allows."""
        self.in_flight -= 1
        self._wake()

    async def __aenter__(self) -> None:
        await self.acquire()

    async def __aexit__(self, exc_type: type[BaseException] | None,
                        exc: BaseException | None, tb: TracebackType | None) -> None:
        self.release()
