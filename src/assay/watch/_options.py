"""The options of one watch (``assay watch``'s flags), checked before anything starts.

Example:
    >>> WatchOptions(metrics="fluency").listen
    '127.0.0.1:4318'
    >>> check_listen("0.0.0.0:4318", token=None)
    Traceback (most recent call last):
    ...
    assay.errors.ConfigError: Got listen='0.0.0.0:4318' without a token: anyone who can reach this machine could send traces to be scored (with your judge). Fix: listen on 127.0.0.1, or set token and send it as Authorization: Bearer TOKEN.
    >>> check_listen("[::1]:4318", token=None)
    ('::1', 4318)
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from .._http_host import is_loopback
from ..errors import ConfigError, option
from ..run import JudgeOptions, ScoringOptions

if TYPE_CHECKING:
    from ..judges import Judge
    from ..store import Store

__all__ = ["DEFAULT_SPOOL", "WatchOptions", "check_listen"]

#: Where the spool goes when no folder is given.
DEFAULT_SPOOL = Path(".assay") / "watch"


@dataclass(frozen=True, kw_only=True)
class WatchOptions:
    """What one watch does.

    Attributes:
        metrics: the metrics scored on every trace's row (named; not ``auto``).
        judge, embeddings, scoring, judging: as for :func:`assay.evaluate`.
        listen: ``HOST:PORT`` of the OTLP/HTTP receiver, or ``None`` (files only).
        follow: OTLP JSON files (one export per line) to follow as they grow.
        sample: the share of traces scored (0-1), chosen by trace id.
        filter: ``KEY=VALUE`` terms a trace must match (see :mod:`assay.watch._select`).
        store: the run store (as :class:`assay.RunOptions` ``store``).
        spool: the spool folder (durable spans, trace states, the run id).
        idle: seconds without a new span after which a trace without its root is finished.
        grace: seconds after the root span for late spans of the same trace.
        token: required as ``Authorization: Bearer TOKEN`` on every request, when set.
        max_backlog: spans waiting to be scored from which the receiver answers 429.
        max_body: the largest request body (bytes, inflated).
        max_bodies: request bodies read and decoded at once; the receiver answers 503 with
            ``Retry-After`` to more.
        max_buffered: bytes of request bodies held at once (as received and inflated); 503
            with ``Retry-After`` beyond.
        header_timeout: seconds a client has to send a request's headers (from its first
            byte, or from connecting); the connection is closed after.
        body_timeout: seconds a client has to send a request's body once its headers came
            (the OTLP exporters give a request up after 10 s); the connection is closed after.
        name, tags: the stored run's name and tags.
        alerts, alert_command: alert rules (``"groundedness<3.5 over 50"``) and a command
            run when one fires.
        export_otlp: an OTLP/HTTP endpoint that gets each score as an event on its trace.
        status_every: seconds between status lines (0: none).
        max_field_chars: a longer text field is cut to this length.
    """

    metrics: str | Sequence[str]
    judge: str | Judge | Sequence[str | Judge] = "local"
    embeddings: str = "local"
    scoring: ScoringOptions = field(default_factory=ScoringOptions)
    judging: JudgeOptions = field(default_factory=JudgeOptions)
    listen: str | None = "127.0.0.1:4318"
    follow: Sequence[str | Path] = ()
    sample: float = 1.0
    filter: str | None = None
    store: str | Path | Store | bool | None = True
    spool: str | Path = DEFAULT_SPOOL
    idle: float = 10.0
    grace: float = 1.0
    token: str | None = field(default=None, repr=False)  # never shown
    max_backlog: int = 10_000
    max_body: int = 64 << 20  # the OTLP exporters' own limit
    max_bodies: int = 16
    max_buffered: int = 256 << 20
    header_timeout: float = 10.0
    body_timeout: float = 30.0
    name: str | None = None
    tags: Sequence[str] = ()
    alerts: Sequence[str] = ()
    alert_command: str | None = None
    export_otlp: str | None = None
    status_every: float = 5.0
    max_field_chars: int = 100_000

    def __post_init__(self) -> None:
        if not 0.0 <= self.sample <= 1.0:
            raise ConfigError(f"Got {option('sample', self.sample)}. Must be between 0 and 1 "
                              "(the share of traces scored).")
        if not (0 < self.idle < math.inf and 0 <= self.grace < math.inf):
            raise ConfigError(f"Got {option('idle', self.idle)} and "
                              f"{option('grace', self.grace)}. Idle must be positive and "
                              "grace at least 0, both finite (seconds), e.g. 10 and 1.")
        if not 0 <= self.status_every < math.inf:
            raise ConfigError(f"Got {option('status_every', self.status_every)}. Must be a "
                              "finite number of seconds, at least 0 (0: no status lines).")
        self._check_receiver_limits()
        if self.max_backlog < 1:
            raise ConfigError(f"Got {option('max_backlog', self.max_backlog)}. Must be at "
                              "least 1 (spans).")
        if self.listen is None and not self.follow:
            raise ConfigError(f"Nothing to watch: give {option('listen')} (an OTLP/HTTP "
                              f"address) or {option('follow')} (files), or both.")
        if self.listen is not None:
            check_listen(self.listen, token=self.token)

    def _check_receiver_limits(self) -> None:
        problems = [f"Got {option(name, getattr(self, name))}. Must be a positive finite "
                    "number of seconds." for name in ("header_timeout", "body_timeout")
                    if not 0 < getattr(self, name) < math.inf]
        problems += [f"Got {option(name, getattr(self, name))}. Must be at least 1."
                     for name in ("max_body", "max_bodies") if getattr(self, name) < 1]
        if self.max_buffered < self.max_body:
            problems.append(f"Got {option('max_buffered', self.max_buffered)} with "
                            f"{option('max_body', self.max_body)}. Must be at least max_body "
                            "(else a body of the largest size could never be read).")
        if problems:
            raise ConfigError(" ".join(problems))


def check_listen(listen: str, *, token: str | None) -> tuple[str, int]:
    """``(host, port)`` of ``HOST:PORT``; a non-loopback host needs a token.

    Raises:
        ConfigError: not ``HOST:PORT``, or a non-loopback host without a token.
    """
    host, sep, port = listen.rpartition(":")
    host = host.strip("[]")
    if not sep or not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise ConfigError(f"Got {option('listen', listen)}. Must be HOST:PORT, e.g. "
                          "127.0.0.1:4318.")
    if not is_loopback(host) and not token:
        raise ConfigError(f"Got {option('listen', listen)} without a token: anyone who can "
                          "reach this machine could send traces to be scored (with your "
                          f"judge). Fix: listen on 127.0.0.1, or set {option('token')} and "
                          "send it as Authorization: Bearer TOKEN.")
    return host, int(port)
