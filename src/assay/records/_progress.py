"""Progress of long runs on stderr: rows done, rows/s and time left.

On a terminal it is a live bar. When stderr is not a terminal (CI logs, a file), it is one
plain line every few seconds (``ASSAY_PROGRESS_EVERY``, default 5), so a log shows that a long
run is alive and how far it got, without a flood of redraws.

Example:
    >>> import io
    >>> log = io.StringIO()
    >>> with RowProgress(total=4, style="lines", every=0.0, stream=log) as p:
    ...     p.advance(); p.advance()
    >>> log.getvalue().splitlines()[2].split(",")[0]
    'scoring: 2/4 rows (50.0%)'
"""

from __future__ import annotations

import os
import sys
import time
from typing import IO, TYPE_CHECKING, Any, Self

if TYPE_CHECKING:
    from rich.progress import Progress

__all__ = ["RowProgress"]


class RowProgress:
    """Context manager showing a run's progress; a no-op when ``enabled`` is False.

    ``style``: ``"bar"`` (a live rich bar), ``"lines"`` (a plain line every ``every`` seconds
    and one at the end) or ``"auto"`` (the bar on a terminal, else lines; ``ASSAY_PROGRESS=1``
    forces the bar).
    """

    def __init__(self, total: int, *, enabled: bool = True, done: int = 0,
                 description: str = "scoring", style: str = "auto", every: float | None = None,
                 stream: IO[str] | None = None) -> None:
        self.enabled = enabled
        self._progress: Progress | None = None
        self._task: Any = None
        self._args = (total, done, description)
        self._stream = stream or sys.stderr
        if style == "auto":
            tty = getattr(self._stream, "isatty", lambda: False)()
            style = "bar" if tty or os.environ.get("ASSAY_PROGRESS") == "1" else "lines"
        self.style = style
        self._every = (every if every is not None
                       else float(os.environ.get("ASSAY_PROGRESS_EVERY", "5")))
        self._done = done
        self._start_done = done
        self._started = self._last = 0.0

    def __enter__(self) -> Self:
        if not self.enabled:
            return self
        total, done, description = self._args
        if self.style == "bar":
            self._progress = _rich_bar()
            self._progress.__enter__()
            self._task = self._progress.add_task(description, total=total, completed=done)
        else:
            self._started = self._last = time.monotonic()
            self._line()
        return self

    def advance(self, n: int = 1) -> None:
        if not self.enabled:
            return
        if self._progress is not None:
            self._progress.advance(self._task, n)
            return
        self._done += n
        now = time.monotonic()
        if now - self._last >= self._every:
            self._last = now
            self._line()

    def _line(self) -> None:
        total, _, description = self._args
        elapsed = time.monotonic() - self._started
        new = self._done - self._start_done
        rate = new / elapsed if elapsed > 0 and new else 0.0
        share = f" ({100 * self._done / total:.1f}%)" if total else ""
        eta = (_clock((total - self._done) / rate) if rate and total >= self._done else "--")
        self._stream.write(f"{description}: {self._done}/{total} rows{share}, "
                           f"{rate:.2f} rows/s, elapsed {_clock(elapsed)}, ETA {eta}\n")
        self._stream.flush()

    def __exit__(self, *exc: object) -> None:
        if self._progress is not None:
            self._progress.__exit__(None, None, None)
        elif self.enabled and self.style == "lines":
            self._line()


def _rich_bar() -> Progress:
    """The live bar (rich is imported here: a run logging plain lines never needs it)."""
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

    class RateColumn(ProgressColumn):
        def render(self, task: Task) -> Text:
            speed = task.finished_speed or task.speed
            return Text(f"{speed:.2f} rows/s" if speed else "-- rows/s",
                        style="progress.data.speed")

    return Progress(
        TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
        RateColumn(), TextColumn("elapsed"), TimeElapsedColumn(), TextColumn("ETA"),
        TimeRemainingColumn(), console=Console(stderr=True), transient=False)


def _clock(seconds: float) -> str:
    """``h:mm:ss`` of a duration.

    Example:
        >>> _clock(3725.4)
        '1:02:05'
    """
    s = round(seconds)
    return f"{s // 3600}:{s % 3600 // 60:02d}:{s % 60:02d}"
