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
from typing import Any

from .._text import percent
from ..metrics import comparison_tables
from ..records import RunData
from ._model import fmt, scale_of, table_view

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


def _signed(value: Any, digits: int = 3) -> str:
    if not isinstance(value, (int, float)) or isinstance(value, bool):
        return "–"
    return ("+" if value > 0 else "") + fmt(value, digits)


def comparison_view(comparison: Mapping[str, Any], run: RunData, other: RunData | None,
                    side: str, index: Mapping[str, int]) -> dict[str, Any]:
    """The comparison section's data, for ``run`` on ``side`` (``a`` or ``b``) of
    ``comparison``; ``index`` maps row ids to their place in the row table."""
    a, b = comparison.get("a") or {}, comparison.get("b") or {}
    metrics = []
    for name, m in (comparison.get("metrics") or {}).items():
        scale = scale_of(name, [])
        ci = m.get("ci95")
        diff = m.get("diff")
        verdict, css = "no clear change", ""
        if isinstance(ci, (list, tuple)) and len(ci) == 2 and None not in ci and (
                ci[0] > 0 or ci[1] < 0):
            better = (ci[0] > 0) == scale.higher_is_better
            verdict, css = ("B better", "good") if better else ("B worse", "bad")
        elif ci is None:
            verdict = "too few pairs"
        metrics.append({
            "name": name, "mean_a": fmt(m.get("mean_a")), "mean_b": fmt(m.get("mean_b")),
            "diff": _signed(diff), "ci": (f"[{_signed(ci[0])}, {_signed(ci[1])}]"
                                          if isinstance(ci, (list, tuple)) and len(ci) == 2
                                          else "–"),
            "paired": fmt(m.get("paired")),
            "scored": f"{fmt(m.get('scored_a'))} / {fmt(m.get('scored_b'))}",
            "unscored": f"{fmt(m.get('unscored_a'))} / {fmt(m.get('unscored_b'))}",
            "verdict": verdict, "css": css,
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
            "this": side.upper(), "shared_rows": comparison.get("shared_rows"),
            "metrics": metrics, "defects": defects, "tables": tables, "changed": changed}
