"""A run's spending limit (``--max-cost USD``, ``--max-tokens N``): requests stop being sent
before the limit would be crossed; those already in flight finish.

Each request reserves what it is expected to cost (its prompt tokens, counted before sending,
and its completion at the most recent answers' largest, or the request's ``max_tokens`` before
any answer) and settles with what the provider reported. A request whose reservation, added
to what is spent and reserved, would pass the limit waits for the requests in flight to
settle; when it would pass the limit on what is spent alone, it is not sent: the limit is
*reached*, and every later request is refused with :class:`BudgetReachedError` (the run stops
as on a judge that stopped; finished rows are kept and ``--resume`` continues).

Example:
    >>> import asyncio
    >>> limit = SpendLimit(max_cost=0.01)
    >>> first = asyncio.run(limit.reserve(tokens=1000, usd=0.006))
    >>> limit.settle(first, tokens=900, usd=0.005)
    >>> asyncio.run(limit.reserve(tokens=1000, usd=0.006)) is None, limit.reached
    (True, True)
    >>> limit.spent_usd, limit.describe()
    (0.005, 'spent $0.005 of --max-cost $0.01')
"""

from __future__ import annotations

import asyncio
import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..costs import PriceBook, Usage
from ..errors import ConfigError, JudgeStoppedError, JudgeUnavailableError, option

__all__ = ["BudgetReachedError", "Price", "Reservation", "SpendLimit", "check_limits",
           "judge_price"]

#: What a request's usage costs in US dollars; ``None``: unknown.
Price = Callable[[Usage], "float | None"]


class BudgetReachedError(JudgeStoppedError):
    """The run stopped at its spending limit (``--max-cost`` / ``--max-tokens``): no request
    is sent after it, those in flight finished. Finished rows are kept; ``--resume``
    continues. A :class:`JudgeStoppedError`, so that every caller that stops on a stopped
    judge (and never records it as an unscored row) stops here too.

    Example:
        >>> str(BudgetReachedError("spent $0.49 of --max-cost $0.50"))
        'budget reached: spent $0.49 of --max-cost $0.50; no request was sent past it'
    """

    #: The loop that works a job's items lets the items in flight finish before raising it.
    drain = True

    def __init__(self, spent: str | SpendLimit) -> None:  # pylint: disable=super-init-not-called
        self.cause = JudgeUnavailableError("budget reached", kind="budget",
                                           fix="--resume continues the run")
        self.failures = 0
        self._spent = spent
        Exception.__init__(self, "budget reached")

    @property
    def spent(self) -> str:
        """What was spent of which limit, as of now (the requests in flight when the limit
        was reached count once they finished)."""
        return self._spent if isinstance(self._spent, str) else self._spent.describe()

    def __str__(self) -> str:
        return f"budget reached: {self.spent}; no request was sent past it"

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickled with what was spent as of now (a Ray worker's stop reaches the driver)."""
        return (type(self), (self.spent,))


@dataclass
class Reservation:
    """What one request holds of the limit until it is settled."""

    tokens: int
    usd: float


def check_limits(max_cost: object, max_tokens: object) -> None:
    """Refuse a ``max_cost`` that is not a positive finite number of dollars, or a
    ``max_tokens`` that is not a whole number of at least 1 (``None``: no limit).

    Example:
        >>> check_limits(0, None)
        Traceback (most recent call last):
        ...
        assay.errors.ConfigError: Got max_cost=0. Must be a number of US dollars above 0, e.g. max_cost=5.
    """
    if max_cost is not None and (isinstance(max_cost, bool)
                                 or not isinstance(max_cost, (int, float))
                                 or not math.isfinite(max_cost) or max_cost <= 0):
        raise ConfigError(f"Got {option('max_cost', max_cost)}. Must be a number of US "
                          f"dollars above 0, e.g. {option('max_cost', 5)}.")
    if max_tokens is not None and (isinstance(max_tokens, bool)
                                   or not isinstance(max_tokens, int) or max_tokens < 1):
        raise ConfigError(f"Got {option('max_tokens', max_tokens)}. Must be a whole number "
                          f"of tokens, at least 1, e.g. {option('max_tokens', 200000)}.")


class SpendLimit:
    """Dollars and tokens spent and reserved by every judge of a run, against ``max_cost``
    and ``max_tokens`` (``None``: no limit on that one). One is shared by the judges of a run
    (a panel, a simulated user and its scorer), as the TPM budget is."""

    def __init__(self, *, max_cost: float | None = None, max_tokens: int | None = None) -> None:
        check_limits(max_cost, max_tokens)
        self.max_cost = None if max_cost is None else float(max_cost)
        self.max_tokens = max_tokens
        self.spent_usd = 0.0
        self.spent_tokens = 0
        self._held_usd = 0.0
        self._held_tokens = 0
        self.reached = False
        self._settled: asyncio.Event | None = None  # set when a reservation is settled
        self._refused: tuple[int, float] | None = None  # the request that did not fit

    @property
    def active(self) -> bool:
        """Whether there is a limit at all."""
        return self.max_cost is not None or self.max_tokens is not None

    def _over(self, tokens: int, usd: float, *, held: bool) -> bool:
        """Whether one more request of ``tokens`` / ``usd`` would pass a limit, on what is
        spent (and, with ``held``, reserved by the requests in flight)."""
        cost = self.spent_usd + (self._held_usd if held else 0.0) + usd
        count = self.spent_tokens + (self._held_tokens if held else 0) + tokens
        return ((self.max_cost is not None and cost > self.max_cost)
                or (self.max_tokens is not None and count > self.max_tokens))

    async def reserve(self, *, tokens: int, usd: float) -> Reservation | None:
        """Hold ``tokens`` / ``usd`` for one request; wait while only the requests in flight
        keep it out (they may cost less than reserved); ``None`` (the limit is reached from
        now on) when what is spent alone leaves no room for it."""
        while not self.reached:
            if not self._over(tokens, usd, held=True):
                self._held_usd += usd
                self._held_tokens += tokens
                return Reservation(tokens, usd)
            if self._over(tokens, usd, held=False) or not self._held_tokens:
                self.reached = True
                self._refused = (tokens, usd)
                break
            if self._settled is None:
                self._settled = asyncio.Event()
            settled = self._settled
            await settled.wait()
        if self._settled is not None:
            self._settled.set()  # the others waiting learn it too
        return None

    def settle(self, held: Reservation, *, tokens: int, usd: float) -> None:
        """Replace a request's reservation with what it cost (0 when it was refused)."""
        self._held_usd -= held.usd
        self._held_tokens -= held.tokens
        held.tokens = held.usd = 0
        self.spent_usd += usd
        self.spent_tokens += tokens
        if self._settled is not None:  # wake the requests waiting for room
            self._settled.set()
            self._settled = None

    def describe(self) -> str:
        """What was spent against which limit, for the line a stopped run prints."""
        parts = []
        if self.max_cost is not None:
            parts.append(f"spent {_usd(self.spent_usd)} of --max-cost {_usd(self.max_cost)}")
        if self.max_tokens is not None:
            parts.append(f"{self.spent_tokens:,} of --max-tokens {self.max_tokens:,} tokens")
        if self._refused is not None and not self.spent_tokens:  # not even one request fits
            tokens, usd = self._refused
            parts.append("the first request alone could use "
                         + (f"{_usd(usd)}" if self.max_cost is not None else f"{tokens:,} tokens")
                         + " (its prompt and its max_tokens): raise the budget")
        return ", ".join(parts)

    def stop(self) -> BudgetReachedError:
        """The error every request refused at the limit raises."""
        return BudgetReachedError(self)


def judge_price(judge_id: str, book: PriceBook) -> Price:
    """What a request's usage costs this judge (the embedded judge: nothing), from ``book``;
    a ConfigError before anything is sent when the book has no price for it (``--max-cost``
    cannot be kept without one).

    Example:
        >>> judge_price("openai:my-vllm", PriceBook())
        Traceback (most recent call last):
        ...
        assay.errors.ConfigError: no price for openai:my-vllm; add it with prices='FILE' or use max_tokens='N' instead of max_cost='USD'.
        >>> judge_price("local", PriceBook())(Usage(prompt_tokens=1000))
        0.0
        >>> judge_price("openai:gpt-4o-mini", PriceBook())(Usage(prompt_tokens=1_000_000))
        0.15
    """
    if book.cost(judge_id, Usage(prompt_tokens=1, completion_tokens=1)).usd is None:
        raise ConfigError(f"no price for {judge_id}; add it with {option('prices', 'FILE')} "
                          f"or use {option('max_tokens', 'N')} instead of "
                          f"{option('max_cost', 'USD')}.")
    return lambda usage: book.cost(judge_id, usage).usd


def _usd(amount: float) -> str:
    """Dollars as a line shows them: cents from $1, else four significant digits.

    Example:
        >>> _usd(12.3456), _usd(0.00065985), _usd(0.0)
        ('$12.35', '$0.0006599', '$0')
    """
    return f"${amount:,.2f}" if amount >= 1 else f"${amount:.4g}"
