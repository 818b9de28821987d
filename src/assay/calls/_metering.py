"""Which judge calls a piece of work made: a meter, set for a context, that the managed judges
add each call's requests and tokens to (the tasks started in that context share it), so a
metric's result can say what its judge calls used on that row.

Example:
    >>> import asyncio
    >>> from assay.costs import Usage
    >>> async def ask() -> str:
    ...     meter_call("openai:m", Usage(prompt_tokens=90, completion_tokens=5))
    ...     return "answer"
    >>> answer, meter = asyncio.run(metered(ask))
    >>> answer, meter.as_dict()
    ('answer', {'openai:m': {'requests': 1, 'prompt_tokens': 90, 'completion_tokens': 5}})
    >>> meter_call("openai:m", Usage(prompt_tokens=1))  # no meter set: nothing kept
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from contextvars import ContextVar
from dataclasses import asdict
from typing import TypeVar

from ..costs import Usage

__all__ = ["CallMeter", "meter_call", "metered"]

T = TypeVar("T")


class CallMeter:
    """Requests and token usage per judge id, as the calls made under it reported them.

    Example:
        >>> m = CallMeter()
        >>> m.add("j", Usage(prompt_tokens=3, cached_tokens=2)); m.add("j", Usage(completion_tokens=1))
        >>> m.as_dict()
        {'j': {'requests': 2, 'prompt_tokens': 3, 'completion_tokens': 1, 'cached_tokens': 2}}
    """

    def __init__(self) -> None:
        self.usage: dict[str, Usage] = {}
        self.requests: dict[str, int] = {}

    def add(self, judge_id: str, usage: Usage) -> None:
        """Count one answered call of ``judge_id`` and its tokens."""
        self.usage[judge_id] = self.usage.get(judge_id, Usage()) + usage
        self.requests[judge_id] = self.requests.get(judge_id, 0) + 1

    def as_dict(self) -> dict[str, dict[str, int]]:
        """``{judge id: {"requests", token counters that are not 0}}``: what a metric result's
        ``details["usage"]`` holds."""
        return {judge: {"requests": self.requests[judge],
                        **{k: v for k, v in asdict(usage).items() if v}}
                for judge, usage in self.usage.items()}


_METER: ContextVar[CallMeter | None] = ContextVar("assay_call_meter", default=None)


def meter_call(judge_id: str, usage: Usage) -> None:
    """Add one answered call to the meter of this context, if one is set."""
    meter = _METER.get()
    if meter is not None:
        meter.add(judge_id, usage)


async def metered(work: Callable[[], Awaitable[T]]) -> tuple[T, CallMeter]:
    """``await work()`` under a new meter; its result and what its judge calls used."""
    meter = CallMeter()
    token = _METER.set(meter)
    try:
        return await work(), meter
    finally:
        _METER.reset(token)
