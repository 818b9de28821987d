"""A panel of judges in the report and the web UI: the table ``assay run`` prints after a run
scored by several judges (``summary.panel``): per judge, Krippendorff's alpha with the panel for
each judge metric, its failed rows, requests, tokens and cost; last, each metric's alpha across
the judges.

It is a family that covers no metric: it only reads the run's summary, so that the pages that
show the families' tables show this one too.

Example:
    >>> panel = {"agreement": {"fluency": {"alpha": 0.5, "judges": {
    ...              "a": {"alpha": 0.9, "failed": 0}, "b": {"alpha": 0.4, "failed": 1}}}},
    ...          "usage": {"a": {"requests": 4, "prompt_tokens": 100, "completion_tokens": 8,
    ...                          "cost_usd": 0.0012}, "b": {"requests": 4}}}
    >>> [table] = PANEL_TABLE.tables({"panel": panel})
    >>> table.columns
    ('judge', 'fluency', 'failed rows', 'requests', 'tokens', 'cost $')
    >>> [[c.value for c in row] for row in table.rows]
    [['a', 0.9, 0, 4, '100 + 8', 0.0012], ['b', 0.4, 1, 4, '0 + 0', None], ['across the judges', 0.5, None, None, None, None]]
    >>> PANEL_TABLE.tables({"metrics": {}})
    []
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ._base import Metric
from ._family import BaseFamily, register_family
from ._table import FamilyTable, TableCell

__all__ = ["PANEL_TABLE", "PanelTable"]


class PanelTable(BaseFamily):
    """The panel's agreement and usage table, from ``summary.panel``."""

    name = "panel"

    def covers(self, metric: Metric) -> bool:
        """No metric: the panel is a way of scoring, not a kind of metric."""
        return False

    def tables(self, summary: Mapping[str, Any]) -> list[FamilyTable]:
        """One table when the run was scored by a panel, else none."""
        panel = summary.get("panel")
        if not isinstance(panel, Mapping):
            return []
        agreement = panel.get("agreement") or {}
        usage = panel.get("usage") or {}
        if not agreement and not usage:
            return []
        judges = list(usage) or list(next(iter(agreement.values())).get("judges") or {})
        rows = [_judge_row(judge, agreement, usage.get(judge) or {}) for judge in judges]
        rows.append((TableCell("across the judges"),
                     *(TableCell(m.get("alpha"), strong=True,
                                 lines=((m["alpha_note"],) if m.get("alpha_note") else ()))
                       for m in agreement.values()),
                     TableCell(None), TableCell(None), TableCell(None), TableCell(None)))
        return [FamilyTable(
            "panel", f"Panel of {len(judges)} judges",
            "Krippendorff's alpha of each judge with the panel's value (interval level for "
            "numbers, nominal for labels), and across the judges; a dash where it is undefined.",
            columns=("judge", *agreement, "failed rows", "requests", "tokens", "cost $"),
            rows=tuple(rows))]


def _judge_row(judge: str, agreement: Mapping[str, Any], used: Mapping[str, Any]
               ) -> tuple[TableCell, ...]:
    """One judge's line: its alpha with the panel per metric, failed rows, requests, tokens
    and cost."""
    mine = [(m.get("judges") or {}).get(judge) or {} for m in agreement.values()]
    return (TableCell(judge), *(TableCell(j.get("alpha")) for j in mine),
            TableCell(sum(j.get("failed", 0) for j in mine)),
            TableCell(used.get("requests")),
            TableCell(f"{used.get('prompt_tokens', 0)} + {used.get('completion_tokens', 0)}"),
            TableCell(used.get("cost_usd")))


PANEL_TABLE = register_family(PanelTable())
