"""Deadlines for the calls assay makes (judges, embedders, the app under test, an agent's
tools): ``--timeout`` bounds the whole call (connecting, waiting and reading the body), not
each read, and a plain (blocking) Python function runs where it can be abandoned at its
deadline.

A call past its deadline raises :class:`~assay.errors.CallTimeoutError` ("timed out after
N s"); the retry policy gives it one more try, then its row is left unscored with that reason
and counted as a failed call.

Example:
    >>> import asyncio, time
    >>> asyncio.run(within(1.0, asyncio.sleep(0, result="done")))
    'done'
    >>> asyncio.run(within(0.05, asyncio.sleep(5)))
    Traceback (most recent call last):
    ...
    assay.errors.CallTimeoutError: timed out after 0.05 s
    >>> asyncio.run(within(0.05, in_daemon_thread(time.sleep, 5)))  # the thread is left behind
    Traceback (most recent call last):
    ...
    assay.errors.CallTimeoutError: timed out after 0.05 s
"""

from __future__ import annotations

import asyncio
import contextvars
import math
import threading
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from ..errors import CallTimeoutError, ConfigError, option

__all__ = ["DEFAULT_TIMEOUT", "TIMEOUT_RULE", "check_timeout", "in_daemon_thread", "within"]

T = TypeVar("T")

#: Seconds one call may take (``--timeout``) unless told otherwise.
DEFAULT_TIMEOUT = 120.0
#: What a timeout must be, as error messages say it.
TIMEOUT_RULE = ("Must be a positive finite number of seconds (the longest one call may take), "
                "such as 120.")


def check_timeout(seconds: object) -> float:
    """``seconds`` as a float when it is a positive finite number, else a ConfigError that
    says what a timeout must be.

    Example:
        >>> check_timeout(30), check_timeout(0.5)
        (30.0, 0.5)
        >>> check_timeout(float("nan"))
        Traceback (most recent call last):
        ...
        assay.errors.ConfigError: Got timeout=nan. Must be a positive finite number of seconds (the longest one call may take), such as 120.
    """
    ok = (isinstance(seconds, (int, float)) and not isinstance(seconds, bool)
          and math.isfinite(seconds) and seconds > 0)
    if not ok:
        raise ConfigError(f"Got {option('timeout', seconds)}. {TIMEOUT_RULE}")
    return float(seconds)  # type: ignore[arg-type]


async def within(seconds: float | None, call: Awaitable[T]) -> T:
    """Await ``call``, cancelling it once ``seconds`` have passed (``None``: no deadline).

    Raises:
        CallTimeoutError: the deadline passed ("timed out after N s"). A ``TimeoutError``
            the call raises itself passes through as it is.
    """
    if seconds is None:
        return await call
    deadline = asyncio.timeout(seconds)
    try:
        async with deadline:
            return await call
    except TimeoutError as e:
        if not deadline.expired():
            raise
        raise CallTimeoutError(f"timed out after {seconds:g} s") from e


async def in_daemon_thread(fn: Callable[..., T], /, *args: Any, **kwargs: Any) -> T:
    """``fn(*args, **kwargs)`` in a new daemon thread (with this task's context variables),
    awaited without blocking the event loop.

    Unlike ``asyncio.to_thread``, whose pooled threads ``asyncio.run`` and the interpreter wait
    for at exit, a call that is cancelled (its deadline passed, Ctrl-C) is abandoned: a hung
    function neither stalls the run nor blocks the process from ending. Its thread goes on
    until the function returns (or the process ends), and its result is dropped.
    """
    loop = asyncio.get_running_loop()
    future: asyncio.Future[T] = loop.create_future()
    context = contextvars.copy_context()

    def deliver(value: Any, error: BaseException | None) -> None:
        if future.done():  # cancelled meanwhile: nobody waits for it
            return
        if error is not None:
            future.set_exception(error)
        else:
            future.set_result(value)

    def work() -> None:
        value, error = None, None
        try:
            value = context.run(fn, *args, **kwargs)
        except BaseException as e:  # noqa: BLE001 - handed to the waiting task
            error = e
        try:
            loop.call_soon_threadsafe(deliver, value, error)
        except RuntimeError:  # the loop has closed: the run is over
            pass

    name = getattr(fn, "__qualname__", None) or type(fn).__name__
    threading.Thread(target=work, name=f"assay-call:{name}", daemon=True).start()
    return await future
