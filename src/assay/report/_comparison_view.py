"""The comparison section of the report: this run against another, metric by metric, defect
rate by defect rate, and the rows whose scores changed.

Example:
    >>> from assay.records import RunData
    >>> run = RunData(id="b", summary={}, records=[])
    >>> report_sides(run, {"a": {"id": "a"}, "b": {"id": "b"}}, None)
    ('b', 'A')
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeGuard

from .._text import percent
from ..costs import cost_diff_line
from ..metrics import comparison_tables
from ..records import RunData, latency_lines
from ._difference_chart import difference_of, differences_svg
from ._model import fmt, table_view

__all__ = ["comparison_view", "report_sides"]


def report_sides(run: RunData, comparison: Mapping[str, Any] | None,
                 other: RunData | None) -> tuple[str, str]:
    """Which side of the comparison ``run`` is (``a`` or ``b``), and the label of the other
    run's values in the detail panel."""
    if comparison:
        a_id = str((comparison.get("a") or {}).get("id"))
        b_id = str((comparison.get("b") or {}).get("id"))
        side = "a" if a_id == str(run.id) and b_id != str(run.id) else "b"
    else:
        side = "b"
    if not comparison:
        return side, "other run"
    return side, "A" if side == "b" else "B"


_DIRECTION_CSS = {"better": "good", "worse": "bad"}


def _signed(value: Any, digits: int = 3) -> str:
    if not isinstance(value, (int, float)) or isinstance(value, bool):
        return "–"
    return ("+" if value > 0 else "") + fmt(value, digits)


def comparison_view(comparison: Mapping[str, Any], run: RunData, other: RunData | None,
                    side: str, index: Mapping[str, int]) -> dict[str, Any]:
    """The comparison section's data, for ``run`` on ``side`` (``a`` or ``b``) of
    ``comparison``; ``index`` maps row ids to their place in the row table. ``warnings`` are
    the comparison's own (``compare_runs(...)["warnings"]``, as ``assay compare``
    prints them), ``chart`` the differences drawn (see :mod:`._difference_chart`)."""
    a, b = comparison.get("a") or {}, comparison.get("b") or {}
    metrics = []
    differences = []
    for name, m in (comparison.get("metrics") or {}).items():
        d = difference_of(name, m)
        differences.append(d)
        ci = m.get("ci95")
        metrics.append({
            "name": name, "mean_a": fmt(m.get("mean_a")), "mean_b": fmt(m.get("mean_b")),
            "diff": _signed(m.get("diff")), "ci": (f"[{_signed(ci[0])}, {_signed(ci[1])}]"
                                                   if isinstance(ci, (list, tuple))
                                                   and len(ci) == 2 else "–"),
            "paired": fmt(m.get("paired")),
            "scored": f"{fmt(m.get('scored_a'))} / {fmt(m.get('scored_b'))}",
            "unscored": f"{fmt(m.get('unscored_a'))} / {fmt(m.get('unscored_b'))}",
            "verdict": d.words, "css": _DIRECTION_CSS.get(d.direction, ""),
            "lower_better": not d.higher_is_better,
        })
    defects = []
    for name, d in (comparison.get("defects") or {}).items():
        diff = d.get("diff")
        pp = (("+" if diff > 0 else "") + f"{100 * diff:.1f} pp"
              if isinstance(diff, (int, float)) else "–")
        defects.append({"name": name, "threshold": d.get("threshold"),
                        "rate_a": percent(d.get("rate_a")), "rate_b": percent(d.get("rate_b")),
                        "diff": pp, "css": ("bad" if isinstance(diff, (int, float)) and diff > 0
                                            else "good" if isinstance(diff, (int, float))
                                            and diff < 0 else "")})
    tables = []
    if other is not None:
        run_a, run_b = (run, other) if side == "a" else (other, run)
        tables = [table_view(t) for t in comparison_tables(run_a.summary, run_b.summary)]
    changed = [{"id": str(c.get("id")), "i": index.get(str(c.get("id"))),
                "metric": c.get("metric"), "a": fmt(c.get("a")), "b": fmt(c.get("b")),
                "delta": _signed(c.get("delta")), "reason_a": c.get("reason_a"),
                "reason_b": c.get("reason_b")}
               for c in comparison.get("changed") or [] if isinstance(c, Mapping)]
    return {"a": {"id": a.get("id"), "rows": a.get("rows")},
            "b": {"id": b.get("id"), "rows": b.get("rows")},
            "warnings": [str(w.get("message")) for w in comparison.get("warnings") or []
                         if isinstance(w, Mapping) and w.get("message")],
            "chart": differences_svg(differences) if differences else None,
            "this": side.upper(), "shared_rows": comparison.get("shared_rows"),
            "metrics": metrics, "defects": defects, "tables": tables, "changed": changed,
            "cost": cost_diff_line(cost) if _spent(cost := comparison.get("cost")) else None,
            "latency": "; ".join(latency_lines(comparison.get("latency"))) or None}


def _spent(cost: object) -> TypeGuard[Mapping[str, Any]]:
    """Whether a comparison's cost has anything to show: some judge usage recorded in either
    run (two runs of lexical metrics, or runs recorded before assay kept costs, get no cost
    line, which would only say "$0" or "unknown")."""
    return isinstance(cost, Mapping) and bool(cost.get("by_metric") or cost.get("app"))
