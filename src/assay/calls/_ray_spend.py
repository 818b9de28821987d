"""One spending limit (``--max-cost`` / ``--max-tokens``) for every worker of a Ray run.

A :class:`SpendActor` (an async Ray actor) holds the run's one real
:class:`~assay.calls._spend.SpendLimit`; each worker's judges reserve and settle through a
:class:`SpendClient`, which has SpendLimit's interface (``await reserve(...)``,
``settle(...)``, ``reached``, ``stop()``) and asks the actor. So the run as a whole stops before
its limit: a request is sent only when its reservation fits beside what every worker spent and
holds, the requests in flight finish, and every worker refuses the next one.

The actor class is plain Python too, which shows what it does without Ray:

Example:
    >>> import asyncio
    >>> actor = SpendActor(max_cost=0.01)
    >>> async def two_workers():
    ...     first = await actor.reserve(1000, 0.006)    # worker 1: (id, None)
    ...     await actor.settle(first[0], 900, 0.005)    # it cost $0.005
    ...     second = await actor.reserve(1000, 0.006)   # worker 2: $0.011 would pass it
    ...     return first, second, await actor.describe()
    >>> asyncio.run(two_workers())
    ((1, None), (None, 'spent $0.005 of --max-cost $0.01'), 'spent $0.005 of --max-cost $0.01')

On Ray: ``handle = start_spend_actor(max_cost, max_tokens)`` once, then
``SpendClient(handle, max_cost=..., max_tokens=...)`` in each worker, given to its
:class:`~assay.run._score.Scorer` as ``spend``.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Sequence
from typing import Any

from ..costs import PriceBook
from ._options import JudgeCallOptions
from ._spend import BudgetReachedError, Reservation, SpendLimit, judge_price

log = logging.getLogger("assay")

__all__ = ["RemoteReservation", "SpendActor", "SpendClient", "check_prices", "spent_at",
           "start_spend_actor"]


class SpendActor:
    """The run's spending limit, as an async Ray actor (see :func:`start_spend_actor`).
    Reservations are kept by id until settled."""

    def __init__(self, max_cost: float | None = None, max_tokens: int | None = None) -> None:
        self.limit = SpendLimit(max_cost=max_cost, max_tokens=max_tokens)
        self._held: dict[int, Reservation] = {}
        self._next = 0

    async def reserve(self, tokens: int, usd: float) -> tuple[int | None, str | None]:
        """Hold ``tokens`` / ``usd`` for one request (waiting, first come first served over
        every worker, while only requests in flight keep it out): ``(id, None)``; or
        ``(None, what was spent)`` when the limit is reached (for this request and every
        later one)."""
        held = await self.limit.reserve(tokens=tokens, usd=usd)
        if held is None:
            return None, self.limit.describe()
        self._next += 1
        self._held[self._next] = held
        return self._next, None

    async def settle(self, held_id: int, tokens: int, usd: float) -> None:
        """Replace reservation ``held_id`` with what its request cost (0 when it failed)."""
        held = self._held.pop(held_id, None)
        if held is not None:
            self.limit.settle(held, tokens=tokens, usd=usd)

    async def describe(self) -> str:
        """What the run spent against which limit (every worker's settled requests)."""
        return self.limit.describe()

    async def spent(self) -> tuple[float, int]:
        """Dollars and tokens spent so far by every worker."""
        return self.limit.spent_usd, self.limit.spent_tokens


class RemoteReservation(Reservation):
    """A reservation held at a :class:`SpendActor`; ``id`` names it there, for ``settle``."""

    def __init__(self, held_id: int, tokens: int, usd: float) -> None:
        super().__init__(tokens, usd)
        self.id = held_id


class SpendClient:
    """The :class:`SpendLimit` interface a worker's judges use, backed by a
    :class:`SpendActor` handle. ``max_cost`` / ``max_tokens`` are the actor's (the judges
    read them to know whether they need a price)."""

    def __init__(self, actor: Any, *, max_cost: float | None, max_tokens: int | None) -> None:
        self.actor = actor
        self.max_cost = max_cost
        self.max_tokens = max_tokens
        #: Set once the actor refused a request of this worker: the run's limit is reached.
        self.reached = False
        self._said = "budget reached"  # what the actor said was spent when it refused
        self._settling: set[asyncio.Future[Any]] = set()

    @classmethod
    def of(cls, actor: Any, options: JudgeCallOptions) -> SpendClient | None:
        """A client of ``actor`` with the limits of ``options`` (``None`` without an actor).

        Example:
            >>> SpendClient.of("handle", JudgeCallOptions(max_tokens=9)).max_tokens
            9
        """
        return (cls(actor, max_cost=options.max_cost, max_tokens=options.max_tokens)
                if actor is not None else None)

    @property
    def active(self) -> bool:
        """Whether there is a limit at all."""
        return self.max_cost is not None or self.max_tokens is not None

    async def reserve(self, *, tokens: int, usd: float) -> Reservation | None:
        """Hold ``tokens`` / ``usd`` at the actor; ``None`` once the run's limit is reached
        (cancelling the wait cancels it there too)."""
        if self.reached:
            return None
        import ray

        ref = self.actor.reserve.remote(tokens, usd)
        try:
            held_id, said = await ref
        except asyncio.CancelledError:
            ray.cancel(ref)
            raise
        if held_id is None:
            self.reached, self._said = True, said or self._said
            return None
        return RemoteReservation(held_id, tokens, usd)

    def settle(self, held: Reservation, *, tokens: int, usd: float) -> None:
        """Settle the reservation at the actor (not awaited here: :meth:`flush` waits for
        every settle sent)."""
        held.tokens = held.usd = 0
        if isinstance(held, RemoteReservation):
            future = asyncio.wrap_future(self.actor.settle.remote(held.id, tokens, usd).future())
            self._settling.add(future)
            future.add_done_callback(self._settling.discard)

    async def flush(self) -> None:
        """Wait until the actor has every settle sent so far (so what it says was spent
        counts this worker's finished requests)."""
        if self._settling:
            with contextlib.suppress(Exception):  # a lost settle: the actor is gone anyway
                await asyncio.gather(*list(self._settling), return_exceptions=True)

    def describe(self) -> str:
        """What was spent, as the actor said when it refused this worker's request."""
        return self._said

    def stop(self) -> BudgetReachedError:
        """The error every request refused at the limit raises."""
        return BudgetReachedError(self._said)


def check_prices(options: JudgeCallOptions, judge_ids: Sequence[str]) -> None:
    """Refuse ``options.max_cost`` for a judge without a price, here (the workers check it
    too, but a run is told before any worker starts, in the caller's words).

    Example:
        >>> check_prices(JudgeCallOptions(max_cost=1.0), ["openai:my-vllm"])
        Traceback (most recent call last):
        ...
        assay.errors.ConfigError: no price for openai:my-vllm; add it with prices='FILE' or use max_tokens='N' instead of max_cost='USD'.
    """
    if options.max_cost is not None:
        book = PriceBook.load(options.prices)
        for judge_id in judge_ids:
            judge_price(judge_id, book)


def start_spend_actor(max_cost: float | None = None, max_tokens: int | None = None) -> Any:
    """Start a :class:`SpendActor` on the connected Ray cluster; its handle (``None``, and no
    actor, when neither limit is set).

    It takes no CPU (it only counts), so it never waits for one to be free, and serves many
    waiting ``reserve`` calls at once.
    """
    if max_cost is None and max_tokens is None:
        return None
    import ray

    actor_class = ray.remote(SpendActor).options(num_cpus=0, max_concurrency=10_000)
    return actor_class.remote(max_cost, max_tokens)


async def spent_at(actor: Any, said: str) -> str:
    """What every worker spent against which limit, as ``actor`` (a :class:`SpendActor`
    handle, or ``None``) counts it now; ``said`` (a worker's word when the limit was reached)
    when there is none or it does not answer in a few seconds."""
    if actor is None:
        return said
    try:
        return str(await asyncio.wait_for(asyncio.wrap_future(actor.describe.remote().future()),
                                          5))
    except Exception:  # best effort: the worker's figure is nearly as good
        log.debug("could not read the spend actor", exc_info=True)
        return said
