"""Running a coroutine to the end from synchronous code, whether or not an event loop is already
running in this thread (a Jupyter cell, a FastAPI endpoint, an async test).

Without a running loop, :func:`run_sync` is ``asyncio.run``. With one, ``asyncio.run`` would
refuse, so the coroutine runs on a fresh loop in a worker thread while this thread waits (its
loop is blocked meanwhile: async code should ``await`` the coroutine instead). The worker runs
in a copy of the caller's context variables; its exceptions reach the caller as they are. A
KeyboardInterrupt in the waiting thread (Ctrl-C in a notebook) cancels the coroutine, waits for
its clean-up (as ``asyncio.run`` does on Ctrl-C), then goes on up; so does a cancellation of
the calling task (``asyncio.run`` cancels its main task on Ctrl-C), which then ends in
CancelledError.

Example:
    >>> async def add(a, b):
    ...     await asyncio.sleep(0)
    ...     return a + b
    >>> run_sync(lambda: add(1, 2))
    3
    >>> async def notebook_cell():  # a loop is running here: the call goes to a worker thread
    ...     return run_sync(lambda: add(2, 3))
    >>> asyncio.run(notebook_cell())
    5
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import contextvars
import threading
from collections.abc import Callable, Coroutine
from typing import Any, TypeVar

__all__ = ["run_sync"]

T = TypeVar("T")

#: How often the waiting thread checks whether its own task was cancelled (seconds).
_POLL_S = 0.2


def run_sync(make_coroutine: Callable[[], Coroutine[Any, Any, T]]) -> T:
    """The result of the coroutine that ``make_coroutine()`` returns, run to the end on a new
    event loop: in this thread when no loop is running here, else in a worker thread (the
    coroutine is made in the thread that runs it)."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(make_coroutine())
    return _run_in_worker(make_coroutine)


class _Worker:
    """The loop and task of a coroutine running in a worker thread, once it has started."""

    def __init__(self, make_coroutine: Callable[[], Coroutine[Any, Any, T]]) -> None:
        self._make = make_coroutine
        self._lock = threading.Lock()
        self._cancelled = False
        self._loop: asyncio.AbstractEventLoop | None = None
        self._task: asyncio.Task[Any] | None = None

    async def main(self) -> Any:
        with self._lock:
            if self._cancelled:
                raise asyncio.CancelledError
            self._loop, self._task = asyncio.get_running_loop(), asyncio.current_task()
        return await self._make()

    def cancel(self) -> None:
        """Cancel the coroutine from another thread: at once if it has not started, else on
        its loop (nothing to do once that loop has closed)."""
        with self._lock:
            self._cancelled = True
            if self._loop is not None and self._task is not None:
                try:
                    self._loop.call_soon_threadsafe(self._task.cancel)
                except RuntimeError:  # the loop has closed: the coroutine is over
                    pass


def _run_in_worker(make_coroutine: Callable[[], Coroutine[Any, Any, T]]) -> T:
    caller = asyncio.current_task()  # the task whose code made this call (None in a callback)
    worker = _Worker(make_coroutine)
    context = contextvars.copy_context()
    outcome: concurrent.futures.Future[T] = concurrent.futures.Future()

    def target() -> None:  # set only once the coroutine's loop has closed: after its clean-up
        try:
            outcome.set_result(context.run(asyncio.run, worker.main()))
        except BaseException as e:  # noqa: BLE001 - handed to the waiting thread
            outcome.set_exception(e)

    thread = threading.Thread(target=target, name="assay-evaluate", daemon=True)
    try:
        # Inside the try: the worker may get far (even to a Ctrl-C) before start() returns.
        thread.start()
        while not concurrent.futures.wait([outcome], timeout=_POLL_S).done:
            if caller is not None and caller.cancelling():
                # The calling task was cancelled while this thread waited (asyncio.run does
                # that on Ctrl-C): cancel the run too, and end as a cancelled call.
                _stop(worker, thread, outcome)
                raise asyncio.CancelledError
        return outcome.result()
    except KeyboardInterrupt:
        _stop(worker, thread, outcome)
        raise


def _stop(worker: _Worker, thread: threading.Thread,
          outcome: concurrent.futures.Future[Any]) -> None:
    """Cancel the worker's coroutine and wait until it has cleaned up (released files, marked
    a stored run interrupted); a second Ctrl-C stops the wait. (A coroutine cancelled before it
    started ends at once: there is nothing to wait for.)"""
    worker.cancel()
    if thread.is_alive() or outcome.done():
        with contextlib.suppress(BaseException):
            outcome.result()
