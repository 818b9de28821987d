"""The traces a watch run skipped, as its summary records them (``summary["watch"]["skips"]``,
written by ``assay watch``): how many, and why, each reason with its fix and the latest
trace ids. They are no rows: they are listed beside the rows, never scored or counted among
them. ``assay show``, the report and the live page of ``assay serve`` read them from here.

Example:
    >>> summary = {"watch": {"skips": {"total": 5, "reasons": [
    ...     {"reason": "sampled out (sample)", "count": 4, "latest": ["t9", "t7"]}]}}}
    >>> found = skipped_traces(summary)
    >>> found.total, found.reasons[0].count, found.unlisted
    (5, 4, 1)
    >>> skipped_traces({"watch": {"skips": {"total": 0, "reasons": []}}}) is None
    True
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

__all__ = ["SkipReason", "SkippedTraces", "skipped_traces"]


@dataclass(frozen=True)
class SkipReason:
    """One reason traces were skipped: the reason (with its fix), how many, and the latest
    trace ids (shortened: ``0af76519…319c``), newest first."""

    reason: str
    count: int
    latest: tuple[str, ...]


@dataclass(frozen=True)
class SkippedTraces:
    """A watch run's skipped traces: ``total``, the ``reasons`` listed (most common first),
    and the traces of reasons not listed (``unlisted``)."""

    total: int
    reasons: tuple[SkipReason, ...]

    @property
    def unlisted(self) -> int:
        return max(self.total - sum(r.count for r in self.reasons), 0)


def _count(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 0


def skipped_traces(summary: Mapping[str, Any] | None) -> SkippedTraces | None:
    """The skipped traces a run's summary records, or None when it records none (a run that
    is not a watch, or skipped nothing). Malformed entries are left out.

    Example:
        >>> skipped_traces({"watch": {"skips": {"total": 2, "reasons": [
        ...     {"reason": "filtered out (filter)", "count": 2, "latest": "x"}, "bad"]}}})
        SkippedTraces(total=2, reasons=(SkipReason(reason='filtered out (filter)', count=2, latest=()),))
        >>> skipped_traces({"metrics": {}}) is None
        True
    """
    watch = (summary or {}).get("watch")
    skips = watch.get("skips") if isinstance(watch, Mapping) else None
    if not isinstance(skips, Mapping):
        return None
    raw = skips.get("reasons")
    reasons = []
    for entry in raw if isinstance(raw, list) else []:
        if not isinstance(entry, Mapping) or not _count(entry.get("count")):
            continue
        latest = entry.get("latest")
        reasons.append(SkipReason(
            str(entry.get("reason") or "no reason recorded"), _count(entry.get("count")),
            tuple(str(t) for t in latest) if isinstance(latest, list) else ()))
    total = max(_count(skips.get("total")), sum(r.count for r in reasons))
    return SkippedTraces(total, tuple(reasons)) if total else None
