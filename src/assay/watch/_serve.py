"""Running a watch: the receiver on its address (uvicorn, with deadlines for slow clients,
bounded bodies and, on a loopback address, loopback ``Host`` names only), the watcher's
tasks, and a clean stop on SIGINT / SIGTERM (the rows being scored finish and are committed;
the run gets its summary).

Example:
    >>> import asyncio, tempfile
    >>> from assay.judges import FakeJudge
    >>> from assay.run import JudgeOptions
    >>> folder = tempfile.mkdtemp()
    >>> options = WatchOptions(metrics="fluency", judge=FakeJudge(), listen=None,
    ...                        judging=JudgeOptions(cache=None),
    ...                        follow=[f"{folder}/none.jsonl"], spool=f"{folder}/spool",
    ...                        store=f"{folder}/runs.sqlite", status_every=0)
    >>> async def briefly():
    ...     return await watch_async(options, stop_after=0.3)
    >>> summary = asyncio.run(briefly())
    >>> summary["complete"], summary["watch"]["scored"]
    (True, 0)
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
import socket
from collections.abc import Callable, Iterator
from typing import Any

from starlette.middleware.trustedhost import TrustedHostMiddleware

from .._http_host import allowed_host_names
from ..errors import ConfigError, option
from ._body_budget import BodyBudget
from ._options import WatchOptions, check_listen
from ._receiver import receiver_app
from ._watch import Watcher

__all__ = ["watch_async"]

log = logging.getLogger("assay.watch")


async def watch_async(options: WatchOptions, *, stop_after: float | None = None,
                      on_start: Callable[[Watcher], None] | None = None) -> dict[str, Any]:
    """Watch until SIGINT or SIGTERM (or ``stop_after`` seconds); the run's final summary.

    Raises:
        ConfigError: a bad option, the spool in use, the address taken.
    """
    if options.listen is not None:
        _check_free(*check_listen(options.listen, token=options.token))
    watcher = Watcher(options)
    server = None
    serving: asyncio.Task[None] | None = None
    try:
        if options.listen is not None:
            import uvicorn

            from ._deadlines import deadline_protocol

            host, port = check_listen(options.listen, token=options.token)
            app = receiver_app(watcher, budget=BodyBudget(options.max_bodies,
                                                          options.max_buffered))
            config = uvicorn.Config(_host_checked(app, host), host=host, port=port,
                                    log_level="warning", access_log=False, lifespan="off",
                                    http=deadline_protocol(options.header_timeout,
                                                           options.body_timeout, app.state.cut))
            server = _Server(config)
            serving = asyncio.create_task(server.serve())
            while not server.started:
                if serving.done():  # could not bind: uvicorn logged why and gave up
                    await serving
                    raise OSError(f"cannot listen on {options.listen}")
                await asyncio.sleep(0.02)
        if on_start is not None:
            on_start(watcher)
        with _signals(watcher.stop):
            if stop_after is not None:
                asyncio.get_running_loop().call_later(stop_after, watcher.stop)
            return await watcher.run()
    finally:
        if server is not None and serving is not None:
            server.should_exit = True
            with contextlib.suppress(BaseException):
                await serving


def _host_checked(app: Any, host: str) -> Any:
    """``app`` answering, on a loopback address, only requests addressed to a loopback name,
    as ``assay serve`` does: a web page that rebinds its own name to 127.0.0.1 can neither
    post traces (and spend judge calls) nor read the status. Elsewhere the token guards it."""
    allowed = allowed_host_names(host)
    return app if allowed is None else TrustedHostMiddleware(app, allowed_hosts=allowed)


def _check_free(host: str, port: int) -> None:
    """Raise ConfigError, naming the fix, when ``host:port`` cannot be bound (before the
    watch opens its spool and run).

    Example:
        >>> import socket
        >>> with socket.socket() as taken:
        ...     taken.bind(("127.0.0.1", 0)); taken.listen()
        ...     _check_free("127.0.0.1", taken.getsockname()[1])
        Traceback (most recent call last):
        ...
        assay.errors.ConfigError: Cannot listen on 127.0.0.1:...
    """
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind((host, port))
        except OSError as e:
            raise ConfigError(f"Cannot listen on {host}:{port}: {e.strerror or e}. Fix: "
                              f"stop the program using it, or give another {option('listen')} "
                              "address.") from None


class _Server:
    """uvicorn's server without its own signal handling (the watch stops it)."""

    def __new__(cls, config: Any) -> Any:
        import uvicorn

        class Quiet(uvicorn.Server):
            @contextlib.contextmanager
            def capture_signals(self) -> Iterator[None]:
                yield

        return Quiet(config)


@contextlib.contextmanager
def _signals(stop: Callable[[], None]) -> Iterator[None]:
    """SIGINT and SIGTERM call ``stop`` while inside (where the loop can take them)."""
    loop = asyncio.get_running_loop()
    added = []
    for sig in (signal.SIGINT, signal.SIGTERM):
        try:
            loop.add_signal_handler(sig, stop)
            added.append(sig)
        except (NotImplementedError, RuntimeError, ValueError):  # not the main thread
            pass
    try:
        yield
    finally:
        for sig in added:
            loop.remove_signal_handler(sig)
