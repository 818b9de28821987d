"""What a watch adds to a scored record, and reads from it: the ``"watch"`` entry's times
(ISO 8601 UTC with milliseconds), the failed judge call behind an unscored result; and its
status line, with the skipped traces counted by reason.

Example:
    >>> iso(0.25)
    '1970-01-01T00:00:00.250Z'
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

from ..costs import usd_text
from ..records import is_call_failure

__all__ = ["call_failed", "iso", "short_id", "short_reason", "skipped_text", "spend_text",
           "status_line"]

#: Skip reasons named on the status line at most (the others are counted together).
STATUS_REASONS = 3
_SHORT_REASON = 60


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
    """The status line of a watch's status (``GET /v1/status``): the skipped traces with
    their most common reasons, short (:func:`skipped_text`).

    Example:
        >>> status_line({"spans": 8, "traces": 4, "scored": 3, "skipped": 1,
        ...              "skip_reasons": {"sampled out (sample)": 1},
        ...              "backlog_spans": 0, "scoring": 0, "failed_rows": 0, "bad_spans": 2})
        'watch: 8 spans received, 4 traces finished: 3 scored, 1 skipped (1 sampled out); backlog 0 spans, 0 scoring, 2 bad spans'
    """
    s = status
    return (f"watch: {s['spans']} spans received, {s['traces']} traces finished: "
            f"{s['scored']} scored, {skipped_text(s['skipped'], s.get('skip_reasons') or {})}; "
            f"backlog {s['backlog_spans']} spans, {s['scoring']} scoring"
            + (f", {s['failed_rows']} rows with failed judge calls" if s["failed_rows"] else "")
            + (f", {s['bad_spans']} bad spans" if s["bad_spans"] else "")
            + (f"; {spend}" if (spend := spend_text(s.get("spend"))) else ""))


def spend_text(spend: Mapping[str, Any] | None) -> str | None:
    """What the app and the judge spent on the traces scored (the status's or the summary's
    ``spend``) on one line, or None before any; an unknown price is ``unknown``, never $0.

    Example:
        >>> spend_text({"totals": {"traces": 3, "app": {
        ...     "usd": None, "priced_usd": 0.0045, "unknown_traces": 1,
        ...     "latency": {"p50": 2.5, "p95": 2.95, "rows": 3}},
        ...     "judge": {"usd": 0.00168, "latency": {"p50": 0.4, "p95": 0.9, "rows": 3}}}})
        'app unknown (1 trace unpriced; the rest $0.00450), p95 2.95 s; judge $0.00168, p95 0.9 s'
        >>> spend_text(None), spend_text({"totals": {"traces": 0}})
        (None, None)
    """
    totals = (spend or {}).get("totals") or {}
    if not totals.get("traces"):
        return None
    parts = []
    for who in ("app", "judge"):
        part = totals.get(who) or {}
        text = f"{who} {usd_text(part.get('usd'))}"
        if part.get("usd") is None and part.get("unknown_traces"):
            n = part["unknown_traces"]
            text += (f" ({n} trace{'s' if n != 1 else ''} unpriced; the rest "
                     f"{usd_text(part.get('priced_usd'))})")
        if part.get("latency"):
            text += f", p95 {part['latency']['p95']:.3g} s"
        parts.append(text)
    return "; ".join(parts)


def short_reason(reason: str) -> str:
    """A skip reason as the status line names it: before its fix and its parenthesis, cut
    to 60 characters.

    Example:
        >>> short_reason("no user message in the trace's chat spans. Fix: record them.")
        "no user message in the trace's chat spans"
        >>> short_reason("filtered out (filter)")
        'filtered out'
    """
    text = re.split(r"\.? Fix: ", reason, maxsplit=1)[0]
    text = text.split(" (", 1)[0].rstrip(".") or reason
    return text if len(text) <= _SHORT_REASON else text[:_SHORT_REASON - 1] + "…"


def skipped_text(total: int, reasons: Mapping[str, int]) -> str:
    """``N skipped`` with the most common of ``reasons`` (counts by reason), short; traces
    of the other reasons are counted together.

    Example:
        >>> skipped_text(0, {}), skipped_text(8, {"a": 1, "b": 5, "c": 1, "d": 1})
        ('0 skipped', '8 skipped (5 b, 1 a, 1 c, 1 other)')
    """
    ranked = Counter(reasons).most_common(STATUS_REASONS)
    parts = [f"{n} {short_reason(r)}" for r, n in ranked]
    other = total - sum(n for _, n in ranked)
    if other > 0 and parts:
        parts.append(f"{other} other")
    return f"{total} skipped" + (f" ({', '.join(parts)})" if parts else "")


def short_id(trace_id: str) -> str:
    """A trace id as a log line shows it: its first 8 and last 4 characters, like a short
    commit hash (a whole 32-character id looks like a key to the secret masker, which would
    print ``***``); the stored row keeps the whole id.

    Example:
        >>> short_id("0af7651916cd43dd8448eb211c80319c"), short_id("t1")
        ('0af76519…319c', 't1')
    """
    return trace_id if len(trace_id) <= 16 else f"{trace_id[:8]}…{trace_id[-4:]}"
