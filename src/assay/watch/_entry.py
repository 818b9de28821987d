"""What a watch adds to a scored record, and reads from it: the ``"watch"`` entry's times
(ISO 8601 UTC with milliseconds), the failed judge call behind an unscored result; and its
status line.

Example:
    >>> iso(0.25)
    '1970-01-01T00:00:00.250Z'
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

from ..records import is_call_failure

__all__ = ["call_failed", "iso", "short_id", "status_line"]


def iso(seconds: float) -> str:
    """Wall-clock seconds as an ISO 8601 UTC time with milliseconds.

    Example:
        >>> iso(0.25)
        '1970-01-01T00:00:00.250Z'
    """
    return datetime.fromtimestamp(seconds, UTC).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"


def call_failed(result: Any) -> str | None:
    """The failed judge call that left a metric result unscored (a conversation metric whose
    turns all failed says so in its own error: ``assistant turn N could not be scored: judge
    call failed: ...``), else ``None``.

    Example:
        >>> call_failed({"value": None, "error": "assistant turn 1 could not be scored: "
        ...              "judge call failed: HTTP 500: down"})
        'assistant turn 1 could not be scored: judge call failed: HTTP 500: down'
        >>> call_failed({"value": 4.0, "error": None}) is None
        True
    """
    if not isinstance(result, Mapping) or result.get("value") is not None:
        return None
    error = result.get("error")
    return str(error) if is_call_failure(error) else None


def status_line(status: Mapping[str, Any]) -> str:
    """The status line of a watch's status (``GET /v1/status``).

    Example:
        >>> status_line({"spans": 8, "traces": 4, "scored": 3, "skipped": 1,
        ...              "backlog_spans": 0, "scoring": 0, "failed_rows": 0, "bad_spans": 2})
        'watch: 8 spans received, 4 traces finished: 3 scored, 1 skipped; backlog 0 spans, 0 scoring, 2 bad spans'
    """
    s = status
    return (f"watch: {s['spans']} spans received, {s['traces']} traces finished: "
            f"{s['scored']} scored, {s['skipped']} skipped; backlog {s['backlog_spans']} spans, "
            f"{s['scoring']} scoring"
            + (f", {s['failed_rows']} rows with failed judge calls" if s["failed_rows"] else "")
            + (f", {s['bad_spans']} bad spans" if s["bad_spans"] else ""))


def short_id(trace_id: str) -> str:
    """A trace id as a log line shows it: its first 8 and last 4 characters, like a short
    commit hash (a whole 32-character id looks like a key to the secret masker, which would
    print ``***``); the stored row keeps the whole id.

    Example:
        >>> short_id("0af7651916cd43dd8448eb211c80319c"), short_id("t1")
        ('0af76519…319c', 't1')
    """
    return trace_id if len(trace_id) <= 16 else f"{trace_id[:8]}…{trace_id[-4:]}"
