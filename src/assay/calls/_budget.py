"""A client-side token and request budget over a sliding 60-second window.

Requests wait here until the window has room, so a run stays under the provider's TPM / RPM
limit instead of being refused. Tokens are estimated before sending and corrected with the
usage the provider reports afterwards.

Example:
    >>> import asyncio
    >>> budget = Budget(tpm=1000)
    >>> grant = asyncio.run(budget.acquire(400))
    >>> budget.settle(grant, 350); budget.in_window()
    350
"""

from __future__ import annotations

import asyncio
import time
from collections import deque
from collections.abc import Callable

__all__ = ["Budget", "Grant"]


class Grant:
    """Tokens reserved for one request at ``t``; settled later with the real count."""

    __slots__ = ("t", "tokens")

    def __init__(self, t: float, tokens: int) -> None:
        self.t, self.tokens = t, tokens


class Budget:
    """Admit requests while the last ``window`` seconds hold at most ``tpm`` tokens and ``rpm``
    requests (``None`` = no limit). ``headroom`` keeps a small share of the limit unused, to
    absorb estimate errors; ``slack`` waits a little past the window edge, as the provider's
    clock starts when it receives a request, slightly after we send it."""

    def __init__(self, tpm: int | None = None, rpm: int | None = None, *, window: float = 60.0,
                 headroom: float = 0.03, slack: float = 1.0,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.tpm = int(tpm * (1 - headroom)) if tpm else None
        self.rpm = rpm
        self.window = window + slack
        self._clock = clock
        self._events: deque[Grant] = deque()
        self._lock = asyncio.Lock()

    @property
    def active(self) -> bool:
        return bool(self.tpm or self.rpm)

    def in_window(self) -> int:
        """Tokens counted in the current window."""
        self._prune(self._clock())
        return sum(g.tokens for g in self._events)

    def _prune(self, now: float) -> None:
        while self._events and self._events[0].t <= now - self.window:
            self._events.popleft()

    def _wait_needed(self, tokens: int, now: float) -> float:
        self._prune(now)
        wait = 0.0
        if self.rpm and len(self._events) + 1 > self.rpm:
            k = len(self._events) + 1 - self.rpm
            wait = max(wait, list(self._events)[k - 1].t + self.window - now)
        if self.tpm:
            used = sum(g.tokens for g in self._events)
            need = used + min(tokens, self.tpm) - self.tpm
            if need > 0:
                freed = 0
                for g in self._events:
                    freed += g.tokens
                    if freed >= need:
                        wait = max(wait, g.t + self.window - now)
                        break
        return wait

    async def acquire(self, tokens: int) -> Grant:
        """Wait until ``tokens`` fit in the window, then reserve them (first come, first served)."""
        if not self.active:
            return Grant(self._clock(), tokens)
        async with self._lock:
            while True:
                now = self._clock()
                wait = self._wait_needed(tokens, now)
                if wait <= 0:
                    grant = Grant(now, tokens)
                    self._events.append(grant)
                    return grant
                await asyncio.sleep(min(wait + 0.01, 5.0))

    def settle(self, grant: Grant, actual_tokens: int) -> None:
        """Replace the estimate with the provider's count (0 when it refused the request)."""
        grant.tokens = actual_tokens
