"""Options that several commands share: where the run store is, turning recording off, each
call's deadline, the wait bound on rate limits, the rule for long texts, and reading
comma-separated values. Every command that calls a model takes ``--timeout`` and
``--max-wait`` from here; every command that reads texts a judge sees takes
``--max-field-chars`` and ``--long-fields`` from here.

Example:
    >>> StoreOption.__metadata__[0].help.startswith("Run store")
    True
    >>> comma_names(" groundedness, f1_score,, "), comma_names(None)
    (['groundedness', 'f1_score'], [])
    >>> comma_numbers("--noise-ratios", "0,0.5", float, "0,0.2,0.4")
    [0.0, 0.5]
    >>> DEFAULT_MAX_WAIT, DEFAULT_MAX_FIELD_CHARS
    (600.0, 100000)
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Annotated, TypeVar, get_args

import typer

from ..calls import TIMEOUT_RULE, RetryPolicy, check_timeout
from ..data import FieldLimits, LongFields
from ..errors import AssayError

__all__ = ["DEFAULT_MAX_FIELD_CHARS", "DEFAULT_MAX_WAIT", "LongFieldsOption",
           "MaxFieldCharsOption", "MaxWaitOption", "NoStoreOption", "StoreOption",
           "TimeoutOption", "check_long_fields_flag", "check_max_wait_flag",
           "check_timeout_flag", "comma_names", "comma_numbers", "store_arg"]

#: ``--max-wait``'s default: the library's (RetryPolicy's).
DEFAULT_MAX_WAIT: float = RetryPolicy.max_wait
#: ``--max-field-chars``'s default: the library's (FieldLimits').
DEFAULT_MAX_FIELD_CHARS: int = FieldLimits.max_field_chars

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


def check_max_wait_flag(value: float) -> float:
    """``--max-wait`` as given when it is a finite number of seconds, 0 or more, else a usage
    error (exit 2) that says what it must be.

    Example:
        >>> check_max_wait_flag(30.0)
        30.0
        >>> try:
        ...     check_max_wait_flag(float("inf"))
        ... except typer.BadParameter as e:
        ...     print(e.message)
        Got inf. Must be a finite number of seconds, 0 or more, such as 600.
    """
    if not math.isfinite(value) or value < 0:
        raise typer.BadParameter(f"Got {value}. Must be a finite number of seconds, 0 or more, "
                                 "such as 600.")
    return value


#: ``--max-wait``: how long one model call may wait on rate limits (429) in all.
MaxWaitOption = Annotated[float, typer.Option(
    callback=check_max_wait_flag,
    help="Seconds one model call (judge, user model, attacker, the app under test) may wait "
         "on rate limits (429) in all, backing off between tries; then it fails (its row is "
         "left unscored, with the reason). A server that asks for a longer wait "
         "(Retry-After) fails the call at once, saying so.")]


def check_long_fields_flag(value: str) -> str:
    """``--long-fields`` as given when it is ``refuse`` or ``truncate``, else a usage error
    (exit 2).

    Example:
        >>> try:
        ...     check_long_fields_flag("cut")
        ... except typer.BadParameter as e:
        ...     print(e.message)
        Got cut. Must be one of: refuse, truncate.
    """
    allowed = get_args(LongFields)
    if value not in allowed:
        raise typer.BadParameter(f"Got {value}. Must be one of: {', '.join(allowed)}.")
    return value


#: ``--max-field-chars``: the longest text a judge or simulated user is given.
MaxFieldCharsOption = Annotated[int, typer.Option(
    min=1, help="Longest text a field may hold (characters): each field of a dataset, and each "
                "reply of the app under test before a judge or simulated user reads it.")]
#: ``--long-fields``: what happens to a longer text.
LongFieldsOption = Annotated[str, typer.Option(
    callback=check_long_fields_flag,
    help="refuse (a longer dataset field is an error, nothing is run; a longer app reply "
         "fails its row, saying so) or truncate (cut it to --max-field-chars; each cut is "
         "counted in one warning, and an app reply's cut is recorded in its row).")]


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
