"""One token / request budget for every worker of a Ray run.

A :class:`BudgetActor` (an async Ray actor) holds a real :class:`~assay.calls.Budget` and hands
out grants; each worker's judge waits on a :class:`BudgetClient`, which has the Budget interface
(``await acquire(tokens)``, ``settle(grant, actual)``) and asks the actor. So the provider's
TPM / RPM limit is kept by the run as a whole, however many workers share it.

The actor class is plain Python too, which shows what it does without Ray:

Example:
    >>> import asyncio
    >>> actor = BudgetActor(tpm=1000, headroom=0.0)
    >>> async def two_grants():
    ...     first = await actor.acquire(600)   # (id, t, tokens)
    ...     await actor.settle(first[0], 100)  # the provider counted 100: 500 come free
    ...     second = await actor.acquire(600)
    ...     return first[0], second[0], await actor.in_window()
    >>> asyncio.run(two_grants())
    (1, 2, 700)

On Ray: ``handle = start_budget_actor(tpm, rpm)`` once, then ``BudgetClient(handle)`` in each
worker, given to its :class:`~assay.run._score.Scorer` as ``budget``.
"""

from __future__ import annotations

import asyncio
from typing import Any

from ._budget import Budget, Grant

__all__ = ["BudgetActor", "BudgetClient", "RemoteGrant", "start_budget_actor"]


class RemoteGrant(Grant):
    """A grant handed out by a :class:`BudgetActor`; ``id`` names it there, for ``settle``."""

    __slots__ = ("id",)

    def __init__(self, grant_id: int, t: float, tokens: int) -> None:
        super().__init__(t, tokens)
        self.id = grant_id


class BudgetActor:
    """The run's budget, as an async Ray actor (see :func:`start_budget_actor`).

    ``window``, ``slack`` and ``headroom`` are :class:`Budget`'s (a short window makes tests fast).
    Grants are kept by id until settled or out of the window.
    """

    def __init__(self, tpm: int | None = None, rpm: int | None = None, *, window: float = 60.0,
                 slack: float = 1.0, headroom: float = 0.03) -> None:
        self.budget = Budget(tpm, rpm, window=window, slack=slack, headroom=headroom)
        self._grants: dict[int, Grant] = {}
        self._next = 0

    async def acquire(self, tokens: int) -> tuple[int, float, int]:
        """Wait until ``tokens`` fit (first come, first served over every worker): the grant's
        ``(id, t, tokens)``."""
        grant = await self.budget.acquire(tokens)
        self._next += 1
        self._grants[self._next] = grant
        self._forget_old(grant.t)
        return self._next, grant.t, grant.tokens

    async def settle(self, grant_id: int, actual_tokens: int) -> None:
        """Replace grant ``grant_id``'s estimate with the provider's count (0 when it refused)."""
        grant = self._grants.pop(grant_id, None)
        if grant is not None:
            self.budget.settle(grant, actual_tokens)

    async def in_window(self) -> int:
        """Tokens counted in the current window."""
        return self.budget.in_window()

    def _forget_old(self, now: float) -> None:
        # Grants never settled (a cancelled request) stop mattering once out of the window.
        if len(self._grants) > 1024:
            edge = now - self.budget.window
            self._grants = {i: g for i, g in self._grants.items() if g.t > edge}


class BudgetClient:
    """The Budget interface a worker's judge uses, backed by a :class:`BudgetActor` handle."""

    def __init__(self, actor: Any) -> None:
        self.actor = actor

    @property
    def active(self) -> bool:
        return True

    async def acquire(self, tokens: int) -> RemoteGrant:
        """Wait for the actor's grant of ``tokens`` (cancelling the wait cancels it there too)."""
        import ray

        ref = self.actor.acquire.remote(tokens)
        try:
            grant_id, t, granted = await ref
        except asyncio.CancelledError:
            ray.cancel(ref)
            raise
        return RemoteGrant(grant_id, t, granted)

    def settle(self, grant: Grant, actual_tokens: int) -> None:
        """Correct the grant's tokens at the actor (not awaited: the judge need not wait)."""
        grant.tokens = actual_tokens
        if isinstance(grant, RemoteGrant):
            self.actor.settle.remote(grant.id, actual_tokens)


def start_budget_actor(tpm: int | None = None, rpm: int | None = None, *, window: float = 60.0,
                       slack: float = 1.0, headroom: float = 0.03) -> Any:
    """Start a :class:`BudgetActor` on the connected Ray cluster; its handle.

    It takes no CPU (it only counts), so it never waits for one to be free, and serves many
    waiting ``acquire`` calls at once.
    """
    import ray

    actor_class = ray.remote(BudgetActor).options(num_cpus=0, max_concurrency=10_000)
    return actor_class.remote(tpm, rpm, window=window, slack=slack, headroom=headroom)
