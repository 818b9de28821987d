"""What a report needs from every row of a run, gathered in one pass: per metric the count of
each value (for its scale and histogram), how many rows it ran on and why rows went unscored.

A report of a whole run computes them from its records; ``assay serve`` computes them once per
run (streaming the rows from the store) and renders each page of rows against them, so a page
costs what its rows cost, not what the run does.

Example:
    >>> stats = RunStats.of({"metrics": {"f1": {}}}, [
    ...     {"id": "q1", "f1": {"value": 0.5}}, {"id": "q2", "f1": {"value": 0.5}},
    ...     {"id": "q3", "f1": {"value": None, "error": "no answer"}}])
    >>> stats.rows, stats.names, dict(stats.metrics["f1"].counts)
    (3, ['f1'], {0.5: 2})
    >>> stats.metrics["f1"].scored, stats.metrics["f1"].unscored, stats.metrics["f1"].reasons
    (2, 1, [('no answer', 1)])
    >>> pager = Pager(offset=100, limit=100, total=250, href=lambda o: f"?offset={o}")
    >>> pager.first_row, pager.last_row, pager.prev_href, pager.next_href
    (101, 200, '?offset=0', '?offset=200')
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from ..metrics import row_notes

__all__ = ["MetricStats", "Pager", "RunStats"]


@dataclass
class MetricStats:
    """One metric over a run: ``counts`` of each finite value, ``present`` (rows with a
    result for it) and ``reasons`` (why unscored rows were unscored, with counts)."""

    counts: Counter[float] = field(default_factory=Counter)
    present: int = 0
    unscored_reasons: Counter[str] = field(default_factory=Counter)

    @property
    def scored(self) -> int:
        """Rows with a finite value."""
        return sum(self.counts.values())

    @property
    def unscored(self) -> int:
        """Rows with a result but no finite value."""
        return self.present - self.scored

    @property
    def reasons(self) -> list[tuple[str, int]]:
        """(reason, rows), most frequent first."""
        return self.unscored_reasons.most_common()

    @property
    def mean(self) -> float | None:
        """The mean of the finite values (None when there are none)."""
        n = self.scored
        return sum(v * c for v, c in self.counts.items()) / n if n else None


def _value(result: Mapping[str, Any]) -> float | None:
    v = result.get("value")
    if not isinstance(v, (int, float)) or isinstance(v, bool) or not math.isfinite(v):
        return None
    return float(v)


@dataclass
class RunStats:
    """Per-metric statistics of every row of a run (see the module docstring); ``names`` is
    the summary's metric order, then metrics found only in the rows."""

    names: list[str] = field(default_factory=list)
    metrics: dict[str, MetricStats] = field(default_factory=dict)
    rows: int = 0
    #: Headings of the metric families' row notes found in the rows (e.g. ``diagnosis``).
    note_columns: list[str] = field(default_factory=list)

    @classmethod
    def of(cls, summary: Mapping[str, Any] | None,
           records: Iterable[Mapping[str, Any]]) -> RunStats:
        """The statistics of ``records`` (read once, in order) under ``summary``."""
        stats = cls()
        for name in ((summary or {}).get("metrics") or {}):
            stats._metric(str(name))
        for rec in records:
            stats.add(rec)
        return stats

    def _metric(self, name: str) -> MetricStats:
        found = self.metrics.get(name)
        if found is None:
            found = self.metrics[name] = MetricStats()
            self.names.append(name)
        return found

    def add(self, record: Mapping[str, Any]) -> None:
        """Count one more row."""
        self.rows += 1
        for key, result in record.items():
            if key == "id" or not isinstance(result, Mapping) \
                    or not ("value" in result or "error" in result):
                continue
            m = self._metric(key)
            m.present += 1
            value = _value(result)
            if value is None:
                m.unscored_reasons[str(result.get("error") or "no reason recorded")] += 1
            else:
                m.counts[value] += 1
        for heading in row_notes(record):
            if heading not in self.note_columns:
                self.note_columns.append(heading)


@dataclass(frozen=True)
class Pager:
    """Which rows of a run a page shows: ``limit`` rows from ``offset`` (0-based) of
    ``total``, and ``href(offset)``, the link to the page starting at another offset."""

    offset: int
    limit: int
    total: int
    href: Callable[[int], str]

    @property
    def first_row(self) -> int:
        """The 1-based number of the page's first row (0 when the run has none)."""
        return self.offset + 1 if self.total else 0

    @property
    def last_row(self) -> int:
        """The 1-based number of the page's last row."""
        return min(self.offset + self.limit, self.total)

    @property
    def prev_href(self) -> str | None:
        """The previous page, or None on the first."""
        return self.href(max(self.offset - self.limit, 0)) if self.offset > 0 else None

    @property
    def next_href(self) -> str | None:
        """The next page, or None on the last."""
        return self.href(self.offset + self.limit) if self.offset + self.limit < self.total \
            else None

    @property
    def last_href(self) -> str | None:
        """The last page, or None when this is it."""
        if self.next_href is None:
            return None
        return self.href((self.total - 1) // self.limit * self.limit)
