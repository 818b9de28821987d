"""The request bodies the receiver holds at once: at most ``max_bodies`` of them and
``max_bytes`` in all (as received, and inflated). A request that would go past either is
answered 503 with ``Retry-After`` (the OTLP exporters retry it), so memory stays bounded
however many exporters send large batches at the same time.

Example:
    >>> budget = BodyBudget(max_bodies=2, max_bytes=100)
    >>> first, second = budget.claim(), budget.claim()
    >>> budget.claim() is None  # a third body at once: refused
    True
    >>> first.cover(60), second.cover(60)  # 120 bytes would be over 100
    (True, False)
    >>> second.release(); first.release()
    >>> budget.status()
    {'bodies': 0, 'buffered_bytes': 0, 'peak_bodies': 2, 'peak_buffered_bytes': 60, 'busy_refusals': 2}
"""

from __future__ import annotations

from typing import Any

__all__ = ["BodyBudget", "BodyClaim"]


class BodyBudget:
    """Counts the bodies being read and the bytes they hold; refuses what would not fit.

    Args:
        max_bodies: bodies held at once.
        max_bytes: bytes held at once, by all of them.
    """

    def __init__(self, max_bodies: int, max_bytes: int) -> None:
        self.max_bodies = max_bodies
        self.max_bytes = max_bytes
        self.bodies = self.held = 0
        self.peak_bodies = self.peak_held = 0
        self.refused = 0

    def claim(self, expected: int = 0) -> BodyClaim | None:
        """A claim on one body's place, holding ``expected`` bytes already (its
        ``Content-Length``), or ``None`` when it does not fit now (counted)."""
        if self.bodies >= self.max_bodies or self.held + expected > self.max_bytes:
            self.refused += 1
            return None
        self.bodies += 1
        self.peak_bodies = max(self.peak_bodies, self.bodies)
        claim = BodyClaim(self)
        claim.cover(expected)
        return claim

    def status(self) -> dict[str, Any]:
        """Bodies and bytes held now, their peaks, and the requests refused for want of room."""
        return {"bodies": self.bodies, "buffered_bytes": self.held,
                "peak_bodies": self.peak_bodies, "peak_buffered_bytes": self.peak_held,
                "busy_refusals": self.refused}


class BodyClaim:
    """One body's share of a :class:`BodyBudget`; :meth:`release` gives it back."""

    def __init__(self, budget: BodyBudget) -> None:
        self._budget = budget
        self.held = 0
        self._open = True

    def cover(self, total: int) -> bool:
        """Hold ``total`` bytes for this body (more than now, or as many), or ``False``
        (counted as a refusal) when all bodies together would hold more than the budget's
        ``max_bytes``."""
        budget = self._budget
        n = total - self.held
        if n <= 0:
            return True
        if budget.held + n > budget.max_bytes:
            budget.refused += 1
            return False
        budget.held += n
        self.held += n
        budget.peak_held = max(budget.peak_held, budget.held)
        return True

    def release(self) -> None:
        """Give back the place and every byte held (once; later calls do nothing)."""
        if self._open:
            self._open = False
            self._budget.held -= self.held
            self._budget.bodies -= 1
            self.held = 0
