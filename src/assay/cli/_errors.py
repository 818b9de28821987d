"""How every command ends on a known error: one red line and exit 2; a judge that stopped the
run (wrong URL, key or model) exit 3; a run stopped at its --max-cost / --max-tokens exit 6; a file that could not be written (a full disk or quota,
a read-only file system: what, where and the fix on one line) exit 3; on Ctrl-C, where the
work is kept and exit 130.

Example:
    >>> import typer
    >>> from assay.errors import ConfigError
    >>> try:
    ...     with exit_on_errors("interrupted"):
    ...         raise ConfigError("Got --lang 'fr'.")
    ... except typer.Exit as e:
    ...     e.exit_code
    2
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any

import typer
from rich.console import Console
from rich.markup import escape

from .._files import is_write_failure, write_error
from ..calls import BudgetReachedError
from ..errors import AssayError, JudgeStoppedError, OutputError
from ._format import printable

__all__ = ["exit_on_errors", "print_failures"]

err = Console(stderr=True)


@contextmanager
def exit_on_errors(interrupted: str, *, stopped: str = "Finished rows are kept; fix the cause "
                   "and run the command again with --resume.") -> Iterator[None]:
    """Print an AssayError (all its problems) and exit 2; a JudgeStoppedError (the judge kept
    failing the same hard way) with ``stopped`` and exit 3; an OutputError, or an ``OSError``
    of a full or read-only disk that no writer named, in one line and exit 3 (never 1, which
    is a failed gate, and never a traceback); print ``interrupted`` and exit 130 on Ctrl-C.
    Messages are printed as text: a ``[tag]`` in a value is shown, not read as markup, and a
    control character in a file name is shown escaped (:func:`~._format.printable`).

    Example:
        >>> import errno
        >>> try:
        ...     with exit_on_errors("interrupted"):
        ...         raise OSError(errno.ENOSPC, "No space left on device", "/full/x.json")
        ... except typer.Exit as e:
        ...     e.exit_code
        3
    """
    try:
        yield
    except BudgetReachedError as e:  # the run's --max-cost / --max-tokens: exit 6
        err.print(f"[yellow]budget reached:[/yellow] {escape(printable(e.spent))}; the "
                  f"requests in flight finished, no other was sent; exit 6.\n"
                  f"{escape(printable(stopped, lines=True))}", highlight=False, soft_wrap=True)
        raise typer.Exit(6) from None
    except JudgeStoppedError as e:
        err.print(f"[red]judge failed:[/red] {_shown(e)}\n{escape(printable(stopped, lines=True))}",
                  highlight=False, soft_wrap=True)
        raise typer.Exit(3) from None
    except OutputError as e:
        err.print(f"[red]error:[/red] {_shown(e)}", highlight=False, soft_wrap=True,
                  emoji=False)
        raise typer.Exit(3) from None
    except AssayError as e:
        err.print(f"[red]error:[/red] {_shown(e)}", highlight=False, soft_wrap=True,
                  emoji=False)  # "--target nope:x: ..." is not an emoji
        raise typer.Exit(2) from None
    except OSError as e:
        if not is_write_failure(e):
            raise
        err.print(f"[red]error:[/red] {_shown(write_error(e, 'a file', None))}",
                  highlight=False, soft_wrap=True, emoji=False)
        raise typer.Exit(3) from None
    except KeyboardInterrupt:
        err.print(escape(printable(interrupted, lines=True)), highlight=False)
        raise typer.Exit(130) from None


def _shown(e: BaseException) -> str:
    """An error's message as rich text: markup escaped, control characters too."""
    return escape(printable(str(e), lines=True))


def print_failures(summary: Mapping[str, Any], max_failed_share: float, *,
                   top: int = 5) -> list[str]:
    """Print the top causes of rows lost to failed judge calls (with counts), and per metric
    the rows whose judge answers could not be read with their top reasons, on stderr; return
    the metrics whose share of both is over ``max_failed_share`` (the caller exits 3).

    Example:
        >>> summary = {"failures": {"by_metric": {"fluency": {"failed": 1, "applicable": 4,
        ...            "share": 0.25}}, "causes": {"judge call failed: HTTP 500": 1}}}
        >>> print_failures(summary, 0.05)
        ['fluency']
    """
    report = summary.get("failures") or {}
    causes = report.get("causes") or {}
    by_metric = report.get("by_metric") or {}
    if causes:
        agent_only = all(str(why).startswith("target call failed") for why in causes)
        err.print("target calls failed:" if agent_only else "judge calls failed:",
                  highlight=False)
        _print_causes(causes, top)
    unreadable = {name: reasons for name, reasons in (report.get("unreadable") or {}).items()
                  if reasons}
    if unreadable:
        err.print("judge answers that could not be read (or templates that could not render):",
                  highlight=False)
        for name, reasons in unreadable.items():
            m = by_metric.get(name) or {}
            lost = m.get("unreadable", sum(reasons.values()))
            err.print(f"  {escape(name)}: {lost} of {m.get('applicable', '?')} rows",
                      highlight=False)
            _print_causes(reasons, top, indent="    ")
    return [name for name, m in by_metric.items()
            if (m.get("failed") or m.get("unreadable") or m.get("failed_repeats"))
            and m.get("share", 0) > max_failed_share]


def _print_causes(causes: Mapping[str, int], top: int, indent: str = "  ") -> None:
    """The ``top`` most frequent causes with their counts, then how many others there were."""
    for why, n in list(causes.items())[:top]:
        err.print(f"{indent}{n} result{'s' if n != 1 else ''}: {escape(why)}", highlight=False)
    if len(causes) > top:
        err.print(f"{indent}... and {len(causes) - top} other causes (see results.jsonl)",
                  highlight=False)
