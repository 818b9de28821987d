"""Who is writing a running run, and whether that process still lives.

A ``running`` run records its owner (host name, PID and the process's start time where the
system tells it cheaply: Linux's ``/proc``) and a heartbeat, refreshed on every batch of rows
and by the recorder at least every ``HEARTBEAT_S`` seconds. Readers report such a run as
``interrupted`` when its owner is gone: on the same host, the PID is not alive (or now belongs
to a process started at another time); on any host, the heartbeat is older than
``STALE_AFTER_S``. Nothing is written when reading, so a read-only store reads the same.

Example:
    >>> me = Owner.current()
    >>> me.pid == os.getpid(), me.alive()
    (True, True)
    >>> now = datetime(2026, 1, 1, 12, 0, tzinfo=UTC)
    >>> effective_status("running", me.host, me.pid, me.start, "2026-01-01T11:59:50.000000Z", now)
    'running'
    >>> effective_status("running", "elsewhere", 1, None, "2026-01-01T11:50:00.000000Z", now)
    'interrupted'
    >>> effective_status("complete", None, None, None, None, now)
    'complete'
"""

from __future__ import annotations

import os
import socket
import sys
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

__all__ = ["HEARTBEAT_S", "STALE_AFTER_S", "Owner", "effective_status"]

#: How often a live recorder refreshes its run's heartbeat, at least.
HEARTBEAT_S = 30.0
#: A running run whose heartbeat is older than this reads as ``interrupted`` (six missed beats).
STALE_AFTER_S = 180.0


def _start_token(pid: int) -> str | None:
    """The process's start time in clock ticks since boot (Linux ``/proc/PID/stat`` field 22),
    or None where that is not available. A zombie reads as no process (``"dead"``)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = stat[stat.rfind(")") + 2:].split()  # after "(comm)", which may hold spaces
    if not fields or fields[0] in ("Z", "X"):
        return "dead"
    return fields[19] if len(fields) > 19 else None


def _pid_alive(pid: int) -> bool:
    if sys.platform == "win32":  # pragma: no cover - os.kill(pid, 0) is not a probe there
        return True  # rely on the heartbeat
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # another user's live process
    except OSError:  # pragma: no cover - an unexpected platform answer: rely on the heartbeat
        return True
    return True


@dataclass(frozen=True)
class Owner:
    """A process that writes runs: host name, PID and start-time token (or None)."""

    host: str
    pid: int
    start: str | None

    @classmethod
    def current(cls) -> Owner:
        """This process (looked up once per process: a forked child is a new owner)."""
        pid = os.getpid()
        if pid not in _CURRENT:
            _CURRENT.clear()
            _CURRENT[pid] = cls(socket.gethostname()[:255], pid, _start_token(pid))
        return _CURRENT[pid]

    def alive(self) -> bool:
        """Whether this process still runs, as far as this host can tell (True for another
        host: only its heartbeat can say)."""
        if self.host != socket.gethostname()[:255]:
            return True
        if not _pid_alive(self.pid):
            return False
        now = _start_token(self.pid)
        if now == "dead":
            return False
        return self.start is None or now is None or now == self.start


_CURRENT: dict[int, Owner] = {}


def _parse(stamp: str) -> datetime | None:
    try:
        return datetime.strptime(stamp, "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=UTC)
    except (TypeError, ValueError):
        return None


def effective_status(status: str, host: str | None, pid: int | None, start: str | None,
                     heartbeat: str | None, now: datetime | None = None) -> str:
    """The status to show: ``interrupted`` for a ``running`` run whose owner is gone (see the
    module docstring); the stored status otherwise. ``heartbeat`` is the last write's time (for
    a run from before owners were recorded, its creation time)."""
    if status != "running":
        return status
    if host is not None and pid is not None and not Owner(host, int(pid), start).alive():
        return "interrupted"
    beat = _parse(heartbeat) if heartbeat else None
    if beat is not None and (now or datetime.now(UTC)) - beat > timedelta(seconds=STALE_AFTER_S):
        return "interrupted"
    return status
