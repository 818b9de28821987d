"""A watch run's spend per minute and in all, from its records' ``watch`` entries (``assay
watch`` keeps the series in its status and summary; the live page draws it from the rows it
reads): for the traces scored in each minute (UTC, by ``watch.scored``), how many, the app's and the judge's requests, tokens and dollars, and
p50 / p95 of the app's and the judge's seconds; the app and the judge kept apart.

A minute's (or the total's) dollars are unknown (``None``, with the first reason and how many
traces were unpriced) when any trace in it has an unknown cost, never ``$0``; ``priced_usd``
says what the priced traces cost.

Example:
    >>> series = MinuteSeries()
    >>> for second, usd in ((5, 0.5), (20, 0.25), (70, None)):
    ...     series.add({"id": "t", "watch": {
    ...         "scored": f"2026-12-08T02:{second // 60:02d}:{second % 60:02d}+00:00",
    ...         "app": {"usd": usd, "unknown_reason": None if usd else "no price",
    ...                 "requests": 1, "prompt_tokens": 100, "completion_tokens": 10,
    ...                 "latency_s": 2.0},
    ...         "judge": {"usd": 0.01, "requests": 2, "prompt_tokens": 50,
    ...                   "completion_tokens": 5, "latency_s": 0.5}}})
    >>> first, second = series.minutes()
    >>> first["minute"], first["traces"], first["app"]["usd"], first["app"]["tokens"]
    ('2026-12-08T02:00Z', 2, 0.75, 220)
    >>> second["app"]["usd"], second["app"]["unknown_traces"], second["judge"]["usd"]
    (None, 1, 0.01)
    >>> series.totals()["app"]["priced_usd"], series.totals()["judge"]["requests"]
    (0.75, 6)
"""

from __future__ import annotations

from array import array
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

from ._latency import percentiles

__all__ = ["MINUTES_KEPT", "MinuteSeries", "minute_of"]

#: Minutes a series keeps (the latest).
MINUTES_KEPT = 60
_WHO = ("app", "judge")


def minute_of(record: Mapping[str, Any]) -> str | None:
    """The UTC minute the record was scored in, ``YYYY-MM-DDTHH:MMZ``, or None.

    Example:
        >>> minute_of({"watch": {"scored": "2026-12-08T03:04:59.9+01:00"}})
        '2026-12-08T02:04Z'
    """
    watch = record.get("watch")
    stamp = watch.get("scored") if isinstance(watch, Mapping) else None
    try:
        when = datetime.fromisoformat(stamp) if isinstance(stamp, str) else None
    except ValueError:
        return None
    if when is None:
        return None
    when = when if when.tzinfo else when.replace(tzinfo=UTC)
    return when.astimezone(UTC).strftime("%Y-%m-%dT%H:%MZ")


class _Part:
    """One side's (the app's or the judge's) sums over some traces."""

    def __init__(self) -> None:
        self.requests = self.prompt_tokens = self.completion_tokens = 0
        self.priced_usd, self.unknown_traces, self.unknown_reason = 0.0, 0, ""
        self.seconds = array("d")

    def add(self, figures: Mapping[str, Any]) -> None:
        self.requests += int(figures.get("requests") or 0)
        self.prompt_tokens += int(figures.get("prompt_tokens") or 0)
        self.completion_tokens += int(figures.get("completion_tokens") or 0)
        usd = figures.get("usd")
        if isinstance(usd, (int, float)):
            self.priced_usd = round(self.priced_usd + usd, 10)
        else:
            self.unknown_traces += 1
            self.unknown_reason = self.unknown_reason or str(figures.get("unknown_reason")
                                                             or "a price is unknown")
        if isinstance(figures.get("latency_s"), (int, float)):
            self.seconds.append(float(figures["latency_s"]))

    def figures(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "usd": None if self.unknown_traces else self.priced_usd,
            "priced_usd": self.priced_usd, "requests": self.requests,
            "tokens": self.prompt_tokens + self.completion_tokens,
            "prompt_tokens": self.prompt_tokens, "completion_tokens": self.completion_tokens,
            "latency": percentiles(self.seconds) if self.seconds else None}
        if self.unknown_traces:
            out.update(unknown_traces=self.unknown_traces, unknown_reason=self.unknown_reason)
        return out


class _Sums:
    def __init__(self) -> None:
        self.traces = 0
        self.parts = {who: _Part() for who in _WHO}

    def add(self, watch: Mapping[str, Any]) -> None:
        self.traces += 1
        for who in _WHO:
            if isinstance(watch.get(who), Mapping):
                self.parts[who].add(watch[who])

    def figures(self) -> dict[str, Any]:
        return {"traces": self.traces, **{who: p.figures() for who, p in self.parts.items()}}


class MinuteSeries:
    """Scored records' spend per minute (the latest ``keep`` minutes) and in all (see the
    module docstring); records without the watch's ``app`` / ``judge`` figures are left
    out."""

    def __init__(self, keep: int = MINUTES_KEPT) -> None:
        self.keep = keep
        self._minutes: dict[str, _Sums] = {}
        self._total = _Sums()

    def add(self, record: Mapping[str, Any]) -> None:
        """Count one scored record."""
        watch = record.get("watch")
        minute = minute_of(record)
        if not isinstance(watch, Mapping) or minute is None or not (
                isinstance(watch.get("app"), Mapping) or isinstance(watch.get("judge"), Mapping)):
            return
        self._total.add(watch)
        if minute not in self._minutes:
            if len(self._minutes) >= self.keep and minute < min(self._minutes):
                return  # older than every minute kept
            self._minutes[minute] = _Sums()
            for old in sorted(self._minutes)[:-self.keep]:
                del self._minutes[old]
        self._minutes[minute].add(watch)

    def minutes(self) -> list[dict[str, Any]]:
        """One entry per minute with scored traces, oldest first: ``minute``, ``traces``, and
        ``app`` / ``judge``: ``usd`` (or ``None``: see ``unknown_traces``,
        ``unknown_reason``), ``priced_usd``, ``requests``, ``tokens`` (prompt and
        completion, also apart) and ``latency`` (``{p50, p95, rows}`` in seconds, or
        ``None``)."""
        return [{"minute": m, **self._minutes[m].figures()} for m in sorted(self._minutes)]

    def totals(self) -> dict[str, Any]:
        """The same figures over every record counted."""
        return self._total.figures()

    def section(self) -> dict[str, Any]:
        """``{"totals", "per_minute"}``: the status's and the summary's ``spend``."""
        return {"totals": self.totals(), "per_minute": self.minutes()}
