"""The judge's seconds spent on one row: every managed judge call made while a row is scored
adds its wall time (a cache hit adds nothing) to the row's clock, kept in a context variable
so that concurrent rows (and a row's metrics, scored as tasks) each count their own.

Example:
    >>> with row_clock() as clock:
    ...     add_judge_seconds(0.25); add_judge_seconds(0.5)
    >>> clock.judge_s
    0.75
    >>> add_judge_seconds(1.0)  # outside a row: counted nowhere
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

__all__ = ["RowClock", "add_judge_seconds", "row_clock"]


class RowClock:
    """Seconds one row spent waiting on the judge (the sum of its calls' wall time)."""

    __slots__ = ("judge_s",)

    def __init__(self) -> None:
        self.judge_s = 0.0


_CLOCK: ContextVar[RowClock | None] = ContextVar("assay_row_clock", default=None)


@contextmanager
def row_clock() -> Iterator[RowClock]:
    """Count the judge calls made inside the block (and the tasks it starts) on a new clock."""
    clock = RowClock()
    token = _CLOCK.set(clock)
    try:
        yield clock
    finally:
        _CLOCK.reset(token)


def add_judge_seconds(seconds: float) -> None:
    """Add one judge call's wall time to the clock of the row being scored, if any."""
    clock = _CLOCK.get()
    if clock is not None:
        clock.judge_s += seconds
