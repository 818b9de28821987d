"""Tables a metric family adds to the report and the web UI: plain values, formatted by the
reader (numbers, or rates as percentages), with an optional second header row of groups.

Example:
    >>> t = FamilyTable("defects", "Defect rates", columns=("metric", "Low", "High"),
    ...                 groups=(("", 1), ("at or above", 2)),
    ...                 rows=((TableCell("violence"), TableCell(0.5, rate=True, count=2),
    ...                        TableCell(0.25, rate=True, count=1)),))
    >>> t.rows[0][1].count, t.grouped
    (2, True)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

__all__ = ["FamilyTable", "TableCell"]


@dataclass(frozen=True)
class TableCell:
    """One cell: ``value`` (a number, text or None), shown as a percentage when ``rate``;
    ``count`` in brackets after it; ``strong`` in bold; ``lines``: small notes under it."""

    value: Any
    rate: bool = False
    count: Any = None
    strong: bool = False
    lines: tuple[str, ...] = ()


@dataclass(frozen=True)
class FamilyTable:
    """A table: ``key`` (its anchor), ``title``, a ``note`` under the title, ``columns`` and
    ``rows`` of cells. ``groups``: ``(label, span)`` over the columns, left to right, for a
    header row above the columns (label ``""``: the column is not grouped)."""

    key: str
    title: str
    note: str = ""
    columns: tuple[str, ...] = ()
    groups: tuple[tuple[str, int], ...] = ()
    rows: tuple[tuple[TableCell, ...], ...] = ()

    @property
    def grouped(self) -> bool:
        """Whether the table has a row of group headers."""
        return any(label for label, _ in self.groups)
