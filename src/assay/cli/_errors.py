"""How every command ends on a known error: one red line and exit 2; on Ctrl-C, where the work
is kept and exit 130.

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

from collections.abc import Iterator
from contextlib import contextmanager

import typer
from rich.console import Console

from ..errors import AssayError

__all__ = ["exit_on_errors"]

err = Console(stderr=True)


@contextmanager
def exit_on_errors(interrupted: str) -> Iterator[None]:
    """Print an AssayError (all its problems) and exit 2; print ``interrupted`` and exit 130
    on Ctrl-C."""
    try:
        yield
    except AssayError as e:
        err.print(f"[red]error:[/red] {e}", highlight=False, soft_wrap=True)
        raise typer.Exit(2) from None
    except KeyboardInterrupt:
        err.print(interrupted)
        raise typer.Exit(130) from None
