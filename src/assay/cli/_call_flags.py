"""The judge-call flags, declared once: every command that calls a model (``run``, ``watch``,
``calibrate``, ``align``, ``explain``, ``generate``, ``simulate``, ``jailbreak``,
``robustness``) takes ``--concurrency``, ``--timeout``, ``--max-attempts``, ``--max-wait``,
``--tpm``, ``--rpm``, ``--cache PATH`` and ``--no-cache`` with these types, defaults and help
texts, and turns them into one :class:`~assay.calls.JudgeCallOptions` with :func:`call_options`.
``--concurrency`` is model requests in flight only; the items a command works on at a time
(conversations, attacks, test inputs) are its ``--parallel`` (:func:`parallel_help`).

Example:
    >>> options = call_options(concurrency=None, timeout=30.0, max_attempts=6, max_wait=600.0,
    ...                        tpm=None, rpm=None, cache=None, no_cache=True)
    >>> options.timeout, options.cache
    (30.0, None)
    >>> call_options(**{**CALL_FLAG_DEFAULTS, "cache": Path("c.sqlite")}).cache
    PosixPath('c.sqlite')
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from ..calls import DEFAULT_TIMEOUT, JudgeCallOptions
from ._options import DEFAULT_MAX_WAIT, MaxWaitOption, TimeoutOption

__all__ = [
    "CALL_FLAGS",
    "CALL_FLAG_DEFAULTS",
    "DEFAULT_MAX_ATTEMPTS",
    "CacheOption",
    "ConcurrencyOption",
    "MaxAttemptsOption",
    "MaxCostOption",
    "MaxTokensOption",
    "MaxWaitOption",
    "NoCacheOption",
    "RpmOption",
    "TimeoutOption",
    "TpmOption",
    "call_options",
]

#: ``--max-attempts``'s default: the library's (JudgeCallOptions').
DEFAULT_MAX_ATTEMPTS: int = JudgeCallOptions().attempts

#: ``--concurrency``: model requests in flight.
ConcurrencyOption = Annotated[int | None, typer.Option(
    min=1, help="Model requests in flight (judge, user model, attacker), fixed. Default: an "
                "API judge adapts to the endpoint (64 at first, more while latency stays "
                "flat, half after a 429 or 5xx, at most 128); a local judge keeps 8. "
                "--tpm / --rpm cap both.")]
#: ``--tpm``: the token budget per minute.
TpmOption = Annotated[int | None, typer.Option(
    min=1, help="Model token budget per minute (client-side; requests wait for room).")]
#: ``--rpm``: the request budget per minute.
RpmOption = Annotated[int | None, typer.Option(
    min=1, help="Model request budget per minute (client-side; requests wait for room).")]


def parse_max_cost(value: object) -> float:
    """``--max-cost`` read as a number of US dollars (0, a negative or an infinite number is
    refused later with the limit's own words); a word is a usage error (exit 2) in ours.

    Example:
        >>> parse_max_cost("2.50")
        2.5
        >>> try:
        ...     parse_max_cost("abc")
        ... except typer.BadParameter as e:
        ...     print(e.message)
        Got 'abc'. Must be a number of US dollars above 0, e.g. --max-cost 5.
    """
    try:
        return float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        raise typer.BadParameter(f"Got {str(value)!r}. Must be a number of US dollars above 0, "
                                 "e.g. --max-cost 5.") from None


def parse_max_tokens(value: object) -> int:
    """``--max-tokens`` read as a whole number of tokens; anything else is a usage error.

    Example:
        >>> parse_max_tokens("20000")
        20000
        >>> try:
        ...     parse_max_tokens("1.5")
        ... except typer.BadParameter as e:
        ...     print(e.message)
        Got '1.5'. Must be a whole number of tokens above 0, e.g. --max-tokens 200000.
    """
    try:
        return int(str(value).strip())
    except ValueError:
        raise typer.BadParameter(f"Got {str(value)!r}. Must be a whole number of tokens above "
                                 "0, e.g. --max-tokens 200000.") from None


#: ``--max-cost USD``: the run's spending limit in US dollars.
MaxCostOption = Annotated[float | None, typer.Option(
    parser=parse_max_cost, metavar="USD", help="Stop sending model requests before their cost would pass USD "
                        "(those in flight finish; exit 6; --resume continues). Needs the "
                        "judge's price (--prices FILE for a model genai-prices does not list).")]
#: ``--max-tokens N``: the run's spending limit in tokens.
MaxTokensOption = Annotated[int | None, typer.Option(
    parser=parse_max_tokens, metavar="N", help="Stop sending model requests before their tokens (prompt and "
                      "completion, in all) would pass N (exit 6; --resume continues).")]
#: ``--max-attempts``: tries per call for errors worth retrying.
MaxAttemptsOption = Annotated[int, typer.Option(
    min=1, help="Tries per model call for errors worth retrying (5xx, resets; a call past "
                "--timeout gets two at most); 429s do not count: see --max-wait.")]
#: ``--cache PATH``: the cache file.
CacheOption = Annotated[Path | None, typer.Option(
    help="Judge and embedding cache file (SQLite). Default: judge-cache.sqlite in the user "
         "cache dir.")]
#: ``--no-cache``: no cache.
NoCacheOption = Annotated[bool, typer.Option(
    "--no-cache", help="Do not read or write the cache.")]


def parallel_help(what: str) -> str:
    """The help of ``--parallel N``: the ``what`` a command works on at a time (not model
    requests), declared as ``Annotated[int, typer.Option(min=1, help=parallel_help(...))]``.

    Example:
        >>> parallel_help("Conversations")
        'Conversations at a time (model requests in flight are --concurrency).'
    """
    return f"{what} at a time (model requests in flight are --concurrency)."


#: The judge-call flags and their defaults (as each command declares them).
CALL_FLAG_DEFAULTS: dict[str, Any] = {
    "concurrency": None, "timeout": DEFAULT_TIMEOUT, "max_attempts": DEFAULT_MAX_ATTEMPTS,
    "max_wait": DEFAULT_MAX_WAIT, "tpm": None, "rpm": None, "cache": None, "no_cache": False}
#: The flags, as a command's ``-h`` lists them.
CALL_FLAGS = ("--concurrency", "--timeout", "--max-attempts", "--max-wait", "--tpm", "--rpm",
              "--cache", "--no-cache")


def call_options(*, concurrency: int | None, timeout: float, max_attempts: int,
                 max_wait: float, tpm: int | None, rpm: int | None, cache: Path | None,
                 no_cache: bool, max_cost: float | None = None,
                 max_tokens: int | None = None, prices: Path | None = None) -> JudgeCallOptions:
    """The judge-call flags as one :class:`~assay.calls.JudgeCallOptions` (``--cache``
    unset: the default cache file; ``--no-cache``: none; ``--max-cost`` / ``--max-tokens``
    for the commands that take them, priced with ``--prices`` where given).

    Raises:
        ConfigError: a bad value (``--max-cost 0``, a negative one, ...).
    """
    return JudgeCallOptions.with_overrides(
        None, concurrency=concurrency, timeout=timeout, attempts=max_attempts,
        max_wait=max_wait, tpm=tpm, rpm=rpm, cache=False if no_cache else (cache or True),
        max_cost=max_cost, max_tokens=max_tokens, prices=prices)
