"""Options that several commands share: where the run store is, turning recording off, each
call's deadline, and reading comma-separated values.

Example:
    >>> StoreOption.__metadata__[0].help.startswith("Run store")
    True
    >>> comma_names(" groundedness, f1_score,, "), comma_names(None)
    (['groundedness', 'f1_score'], [])
    >>> comma_numbers("--noise-ratios", "0,0.5", float, "0,0.2,0.4")
    [0.0, 0.5]
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, TypeVar

import typer

from ..calls import TIMEOUT_RULE, check_timeout
from ..errors import AssayError

__all__ = ["NoStoreOption", "StoreOption", "TimeoutOption", "check_timeout_flag", "comma_names",
           "comma_numbers", "store_arg"]

Number = TypeVar("Number", int, float)

#: ``--store``: the run store to record in or to read from.
StoreOption = Annotated[str | None, typer.Option(
    help="Run store: a path or postgresql:// URL. Default: ASSAY_STORE or runs.sqlite in the "
         "user data dir.")]
#: ``--no-store``: record nothing.
NoStoreOption = Annotated[bool, typer.Option("--no-store", help="Do not record in the run store.")]


def check_timeout_flag(value: float) -> float:
    """``--timeout`` as given when it is a positive finite number, else a usage error (exit 2)
    that says what it must be.

    Example:
        >>> check_timeout_flag(30.0)
        30.0
        >>> try:
        ...     check_timeout_flag(float("nan"))
        ... except typer.BadParameter as e:
        ...     print(e.message)
        Got nan. Must be a positive finite number of seconds (the longest one call may take), such as 120.
    """
    try:
        return check_timeout(value)
    except AssayError:
        raise typer.BadParameter(f"Got {value}. {TIMEOUT_RULE}") from None


#: ``--timeout``: the longest one call (judge, embedder, app under test, tool) may take.
TimeoutOption = Annotated[float, typer.Option(
    callback=check_timeout_flag,
    help="Seconds one call may take in all (judge, embedder, the app under test, a tool): "
         "connecting, waiting and reading the answer. A call past it is tried once more, "
         "then its row is unscored ('timed out after N s') and counts as a failed call.")]


def store_arg(store: str | None, no_store: bool = False) -> str | bool:
    """What ``evaluate(store=...)`` gets from the two options: False, the path/URL, or True
    (the default store).

    Example:
        >>> store_arg(None), store_arg("runs.sqlite"), store_arg(None, no_store=True)
        (True, 'runs.sqlite', False)
    """
    return False if no_store else (store or True)


def comma_names(value: str | None) -> list[str]:
    """The items of a comma-separated value, stripped, empty ones left out."""
    return [item.strip() for item in (value or "").split(",") if item.strip()]


def comma_numbers(flag: str, value: str, kind: Callable[[str], Number], example: str
                  ) -> list[Number]:
    """The items of a comma-separated value as ``kind`` (``int`` or ``float``); anything else is
    an :class:`~assay.errors.AssayError` naming ``flag`` with ``example``.

    Example:
        >>> comma_numbers("--shots", "1,two", int, "1,2")
        Traceback (most recent call last):
        ...
        assay.errors.AssayError: Got --shots '1,two'. Must be whole numbers such as 1,2.
    """
    try:
        return [kind(item) for item in comma_names(value)]
    except ValueError:
        what = "whole numbers" if kind is int else "numbers"
        raise AssayError(f"Got {flag} {value!r}. Must be {what} such as {example}.") from None
