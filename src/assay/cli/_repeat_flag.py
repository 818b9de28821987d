"""``--repeat K``: how many times each judge metric is asked per row.

Example:
    >>> check_repeat_flag(3)
    3
    >>> try:
    ...     check_repeat_flag(0)
    ... except typer.BadParameter as e:
    ...     print(e.message)
    Got 0. Must be a whole number, 1 or more: how many times each judge metric is asked per row, such as 3 (1 asks once).
"""

from __future__ import annotations

import typer

from ..errors import AssayError
from ..run import RunOptions

__all__ = ["check_repeat_flag"]


def check_repeat_flag(value: int) -> int:
    """``--repeat`` as given when it is 1 or more, else a usage error (exit 2) that says what
    it must be (a value that is not a whole number is refused by the option's type)."""
    try:
        return RunOptions(repeat=value).repeat
    except AssayError as e:
        raise typer.BadParameter(f"Got {value}. {str(e).split('. ', 1)[1]}") from None
