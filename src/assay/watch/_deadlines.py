"""Deadlines for slow clients of the receiver: a request's headers must arrive within
``header_timeout`` seconds (of connecting, or of the request's first byte) and its body
within ``body_timeout`` seconds of its headers; a connection past either is closed.

uvicorn has no such deadline: its keep-alive timeout only runs between requests, and every
byte that arrives stops it, so a client sending one byte a second holds a connection (and
what it sent) for ever. :func:`deadline_protocol` makes a uvicorn ``h11`` protocol class
that watches the client's side of the HTTP state machine (``h11``'s ``their_state``):
partial headers, then a body, each under its own timer. A body the app stopped reading
(answered early: 413, 503) is still drained by uvicorn, and still under the body deadline.

The receiver is served with ``h11`` whether or not ``httptools`` is installed, so that these
deadlines hold wherever assay runs.

Example:
    >>> cuts = []
    >>> protocol = deadline_protocol(10.0, 30.0, lambda phase, client: cuts.append(phase))
    >>> protocol.__name__, issubclass(protocol, H11Protocol)
    ('DeadlineH11Protocol', True)
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

__all__ = ["CUT_KEY", "deadline_protocol"]

#: The ASGI scope key set (to ``"body"``) on a request whose connection was closed because
#: its body came too slowly, so that the app does not report the same cut as a disconnect.
CUT_KEY = "assay.watch.cut"


def deadline_protocol(header_timeout: float, body_timeout: float,
                      on_cut: Callable[[str, str], None]) -> type[H11Protocol]:
    """A uvicorn HTTP protocol class (``uvicorn.Config(http=...)``) that closes a connection
    whose request headers or body do not arrive in time; ``on_cut(phase, client)`` is
    called first (``phase``: ``"headers"`` or ``"body"``; ``client``: ``HOST:PORT``)."""

    class DeadlineH11Protocol(H11Protocol):
        _timer: asyncio.TimerHandle | None = None
        _phase: str | None = None

        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
            super().connection_made(transport)
            self._arm("headers")  # a client that connects and says nothing is cut too

        def data_received(self, data: bytes) -> None:
            super().data_received(data)
            self._follow()

        def on_response_complete(self) -> None:
            super().on_response_complete()
            self._follow()

        def connection_lost(self, exc: Exception | None) -> None:
            self._arm(None)
            super().connection_lost(exc)

        def _follow(self) -> None:
            """Set the timer for what the client is sending now: headers, a body, or nothing
            (a request being answered; an idle keep-alive, which uvicorn times out)."""
            state = self.conn.their_state
            if state is h11.SEND_BODY:
                phase: str | None = "body"
            elif state is h11.IDLE and (self._phase == "headers" or self.conn.trailing_data[0]):
                phase = "headers"
            else:
                phase = None
            if phase != self._phase:
                self._arm(phase)

        def _arm(self, phase: str | None) -> None:
            if self._timer is not None:
                self._timer.cancel()
                self._timer = None
            self._phase = phase
            if phase is not None and not self.transport.is_closing():
                seconds = header_timeout if phase == "headers" else body_timeout
                self._timer = self.loop.call_later(seconds, self._cut)

        def _cut(self) -> None:
            self._timer = None
            if self.transport.is_closing() or self._phase is None:
                return
            if self._phase == "body" and self.cycle is not None:
                scope: Any = self.cycle.scope
                scope[CUT_KEY] = "body"
            client = f"{self.client[0]}:{self.client[1]}" if self.client else "a client"
            on_cut(self._phase, client)
            self.transport.close()

    return DeadlineH11Protocol
