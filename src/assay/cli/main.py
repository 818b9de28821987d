"""Entry point of the ``assay`` command (``assay.cli.main:main``).

``assay --version`` answers from here without importing the commands (and so the runner,
metrics, judges, store, numpy, ...): the Typer app in :mod:`assay.cli._app` is imported only
when a command runs. ``app`` is still importable from this module, on first access.

Example:
    >>> asks_version(["--version"]), asks_version(["run", "--version"])
    (True, False)
    >>> from assay.cli.main import app  # imported on first access
    >>> app.info.name
    'assay'
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any

from .._version import __version__

if TYPE_CHECKING:
    import typer

    app: typer.Typer

__all__ = ["app", "asks_version", "main"]

#: The root command's own flags: all eager, so the first one given decides.
_ROOT_FLAGS = ("--version", "--help", "-h")


def asks_version(args: list[str]) -> bool:
    """Whether ``assay ARGS`` prints the version: the root's first flag is ``--version`` and
    every flag before the command is one of the root's own (as Click would read them)."""
    leading = []
    for arg in args:
        if not arg.startswith("-"):
            break
        leading.append(arg)
    return bool(leading) and leading[0] == "--version" and all(
        a in _ROOT_FLAGS for a in leading)


def __getattr__(name: str) -> Any:
    """``app``: the Typer app, imported on first access."""
    if name == "app":
        from ._app import app as typer_app
        return typer_app
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def main() -> None:
    """Run the CLI."""
    if asks_version(sys.argv[1:]):
        print(f"assay {__version__}")
        return
    from ._app import app as typer_app
    typer_app()
