"""The geometry of a reliability curve drawn as inline SVG (the calibration section of the
report and of a served calibration run): one point per non-empty bin at (judge mean, human
mean) with its count, joined in bin order, over the identity line on the scale's ends.

Example:
    >>> c = reliability_chart({"domain": [1, 5], "bins": [
    ...     {"label": "1", "n": 3, "judge_mean": 1.0, "human_mean": 1.5},
    ...     {"label": "5", "n": 1, "judge_mean": 5.0, "human_mean": 4.0}]})
    >>> [(p["count"], p["cx"], p["cy"]) for p in c["points"]]
    [('n=3', 52.0, 178.4), ('n=1', 260.0, 65.2)]
    >>> c["identity"]
    {'x1': 52.0, 'y1': 201.0, 'x2': 260.0, 'y2': 20.0}
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["reliability_chart"]

_WIDTH, _HEIGHT = 300, 250
_LEFT, _RIGHT, _TOP, _BOTTOM = 44, 32, 12, 41  # margins: tick labels left, axis titles below
_INSET = 8  # the scale's ends sit this far inside the axes, so no point lies on one


def _num(x: float) -> str:
    return f"{x:.3g}"


def reliability_chart(curve: Any) -> dict[str, Any] | None:
    """Coordinates for the SVG of ``curve`` (a report's ``reliability``: ``domain`` and
    ``bins``), plus the rows of its text equivalent; ``None`` when it has no bins."""
    if not isinstance(curve, Mapping) or not curve.get("bins"):
        return None
    bins = [b for b in curve["bins"] if isinstance(b, Mapping)]
    try:
        low, high = (float(x) for x in curve.get("domain") or (0.0, 1.0))
    except (TypeError, ValueError):
        low, high = 0.0, 1.0
    span = (high - low) or 1.0
    plot_w, plot_h = _WIDTH - _LEFT - _RIGHT, _HEIGHT - _TOP - _BOTTOM

    def sx(v: float) -> float:
        return round(_LEFT + _INSET + (min(max(v, low), high) - low) / span
                     * (plot_w - 2 * _INSET), 1)

    def sy(v: float) -> float:
        return round(_TOP + plot_h - _INSET - (min(max(v, low), high) - low) / span
                     * (plot_h - 2 * _INSET), 1)

    points = [{"cx": sx(float(b["judge_mean"])), "cy": sy(float(b["human_mean"])),
               "count": f"n={b['n']}", "r": 3 + min(int(b["n"]), 40) ** 0.5,
               "title": f"judge {b.get('label')}: {b['n']} rows, judge mean "
                        f"{_num(b['judge_mean'])}, human mean {_num(b['human_mean'])}"}
              for b in bins]
    ticks = sorted({low, (low + high) / 2, high})
    return {
        "width": _WIDTH, "height": _HEIGHT,
        "identity": {"x1": sx(low), "y1": sy(low), "x2": sx(high), "y2": sy(high)},
        "axes": {"x0": _LEFT, "y0": _TOP + plot_h, "x1": _LEFT + plot_w, "y1": _TOP},
        "xticks": [{"x": sx(t), "text": _num(t)} for t in ticks],
        "yticks": [{"y": sy(t), "text": _num(t)} for t in ticks],
        "line": " ".join(f"{p['cx']},{p['cy']}" for p in points),
        "points": points,
        "x_title": str(curve.get("x") or "judge score"),
        "y_title": str(curve.get("y") or "human mean"),
        "rows": [{"label": str(b.get("label", "")), "n": b["n"],
                  "judge": _num(float(b["judge_mean"])), "human": _num(float(b["human_mean"]))}
                 for b in bins],
    }
