"""A progress bar for long runs: rows done, rows/s and time left (on stderr).

Example:
    >>> with RowProgress(total=2, enabled=False) as p:
    ...     p.advance()
"""

from __future__ import annotations

from typing import Any, Self

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    ProgressColumn,
    Task,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.text import Text

__all__ = ["RowProgress"]


class _RateColumn(ProgressColumn):
    def render(self, task: Task) -> Text:
        speed = task.finished_speed or task.speed
        return Text(f"{speed:.2f} rows/s" if speed else "-- rows/s", style="progress.data.speed")


class RowProgress:
    """Context manager around a rich progress bar; a no-op when ``enabled`` is False."""

    def __init__(self, total: int, *, enabled: bool = True, done: int = 0,
                 description: str = "scoring") -> None:
        self.enabled = enabled
        self._progress: Progress | None = None
        self._task: Any = None
        self._args = (total, done, description)

    def __enter__(self) -> Self:
        if self.enabled:
            total, done, description = self._args
            self._progress = Progress(
                TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
                _RateColumn(), TextColumn("elapsed"), TimeElapsedColumn(), TextColumn("ETA"),
                TimeRemainingColumn(), console=Console(stderr=True), transient=False)
            self._progress.__enter__()
            self._task = self._progress.add_task(description, total=total, completed=done)
        return self

    def advance(self, n: int = 1) -> None:
        if self._progress is not None:
            self._progress.advance(self._task, n)

    def __exit__(self, *exc: object) -> None:
        if self._progress is not None:
            self._progress.__exit__(None, None, None)
