"""What the live page of a watch run shows, computed without a web framework: per metric the
rolling mean over time (geometry for an inline SVG, and the same figures as text), the latest
flagged rows, the alerts, and whether the run is still live.

Time is each record's ``watch.scored`` (when ``assay watch`` scored the trace), rows taken in
that order; when a record shown lacks it, every chart uses row positions (and row order)
instead. A row is *flagged* when a metric's
value falls in the bad band of its scale, as the report colours it (``assay.report.value_css``
gives ``v-bad``); unscored results flag nothing.

Example:
    >>> records = [{"id": f"t{i}", "coherence": {"value": v},
    ...             "watch": {"scored": f"2026-11-28T07:00:0{i}+00:00"}}
    ...            for i, v in enumerate([5, 4, 1, 5])]
    >>> view = live_view(records, summary={}, first_position=1, window=2)
    >>> [m["name"] for m in view["metrics"]], view["metrics"][0]["latest"], view["axis"]
    (['coherence'], 3.0, 'time')
    >>> [r["id"] for r in view["flagged"]]
    ['t2']
"""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from typing import Any

from ..report import fmt, metric_names, scale_of, value_css, value_of

__all__ = ["CHART", "FLAGGED_SHOWN", "PALETTE", "alerts_view", "heartbeat_age", "live_view",
           "scored_at"]

#: Flagged rows listed, newest first.
FLAGGED_SHOWN = 20
#: Alerts listed, newest first.
ALERTS_SHOWN = 50
#: Points drawn per series at most (evenly thinned; the last point always kept).
MAX_POINTS = 400
#: The chart's size and margins, in SVG units.
CHART = {"width": 560, "height": 170, "left": 44, "right": 12, "top": 10, "bottom": 26}
#: Series colours, one per metric in turn (readable on white, distinct in greyscale order).
PALETTE = ("#2563eb", "#b45309", "#15803d", "#7c3aed", "#be123c", "#0f766e")


def scored_at(record: Mapping[str, Any]) -> datetime | None:
    """When ``assay watch`` scored the record (``record["watch"]["scored"]``), or None.

    Example:
        >>> scored_at({"watch": {"scored": "2026-11-28T07:00:00Z"}}).minute
        0
        >>> scored_at({"watch": {}}), scored_at({})
        (None, None)
    """
    watch = record.get("watch")
    stamp = watch.get("scored") if isinstance(watch, Mapping) else None
    if not isinstance(stamp, str):
        return None
    try:
        when = datetime.fromisoformat(stamp)
    except ValueError:
        return None
    return when if when.tzinfo else when.replace(tzinfo=UTC)


def heartbeat_age(heartbeat: str | None, now: datetime | None = None) -> float | None:
    """Seconds since a run's heartbeat (the store's ``...Z`` stamps), or None.

    Example:
        >>> heartbeat_age("2026-11-28T07:00:00.000000Z",
        ...               datetime(2026, 11, 28, 7, 0, 12, tzinfo=UTC))
        12.0
    """
    if not heartbeat:
        return None
    try:
        beat = datetime.fromisoformat(heartbeat)
    except ValueError:
        return None
    return ((now or datetime.now(UTC)) - beat).total_seconds()


def _clock(when: datetime) -> str:
    return when.astimezone(UTC).strftime("%H:%M:%S")


def _thin(points: list[tuple[float, float, int]]) -> list[tuple[float, float, int]]:
    if len(points) <= MAX_POINTS:
        return points
    step = len(points) / (MAX_POINTS - 1)
    kept = [points[int(k * step)] for k in range(MAX_POINTS - 1)]
    return [*kept, points[-1]]


def _series(name: str, records: Sequence[Mapping[str, Any]], xs: Sequence[float],
            window: int) -> tuple[list[tuple[float, float, int]], list[float], int]:
    """(points (x, rolling mean, values held), the metric's scored values, unscored count)."""
    held: deque[float] = deque(maxlen=window)
    points, values, unscored = [], [], 0
    for rec, x in zip(records, xs, strict=True):
        if not isinstance(rec.get(name), Mapping):
            continue
        value = value_of(rec, name)
        if value is None:
            unscored += 1
            continue
        held.append(value)
        values.append(value)
        points.append((x, sum(held) / len(held), len(held)))
    return points, values, unscored


def _chart(points: list[tuple[float, float, int]], scale: Any, x_lo: float, x_hi: float,
           bars: Sequence[float]) -> dict[str, Any]:
    c = CHART
    plot_w = c["width"] - c["left"] - c["right"]
    plot_h = c["height"] - c["top"] - c["bottom"]
    span_x = (x_hi - x_lo) or 1.0
    span_y = (scale.hi - scale.lo) or 1.0

    def px(x: float) -> float:
        return round(c["left"] + plot_w * (x - x_lo) / span_x, 1)

    def py(y: float) -> float:
        y = min(max(y, scale.lo), scale.hi)
        return round(c["top"] + plot_h * (1 - (y - scale.lo) / span_y), 1)

    drawn = _thin(points)
    ticks = [(py(v), fmt(v)) for v in (scale.lo, (scale.lo + scale.hi) / 2, scale.hi)]
    return {**c, "base": c["top"] + plot_h, "right_x": c["left"] + plot_w,
            "points": " ".join(f"{px(x)},{py(y)}" for x, y, _ in drawn),
            "last": {"x": px(drawn[-1][0]), "y": py(drawn[-1][1])} if drawn else None,
            "y_ticks": ticks, "bars": [{"y": py(b), "label": fmt(b)} for b in bars
                                       if scale.lo <= b <= scale.hi]}


def live_view(records: Sequence[Mapping[str, Any]], *, summary: Mapping[str, Any],
              first_position: int, window: int) -> dict[str, Any]:
    """The live page's figures over ``records`` (the run's latest rows, in row order; the
    first is row ``first_position``, 1-based), with rolling means over ``window`` values."""
    times = [scored_at(r) for r in records]
    by_time = bool(records) and all(t is not None for t in times)
    if by_time:  # rows added in batches may be a little out of time order: draw them in it
        stamps = [t.timestamp() for t in times if t is not None]
        order = sorted(range(len(records)), key=stamps.__getitem__)
        records, times = [records[k] for k in order], [times[k] for k in order]
    xs = ([t.timestamp() for t in times if t is not None] if by_time
          else [float(first_position + k) for k in range(len(records))])
    x_lo, x_hi = (min(xs), max(xs)) if xs else (0.0, 1.0)
    alerts = alerts_view(summary)
    metrics, scales = [], {}
    for k, name in enumerate(metric_names(summary, records)):
        points, values, unscored = _series(name, records, xs, window)
        scale = scales[name] = scale_of(name, values)
        bars = sorted({float(a["bar"]) for a in alerts["all"]
                       if a["metric"] == name and isinstance(a["bar"], (int, float))})
        latest = points[-1][1] if points else None
        label = (f"{name}: rolling mean over {window} rows, {len(values)} scored"
                 + (f", {unscored} unscored" if unscored else "")
                 + (f"; from {fmt(points[0][1])} to {fmt(latest)}" if points else "; no values"))
        metrics.append({
            "name": name, "color": PALETTE[k % len(PALETTE)], "scale": scale,
            "scored": len(values), "unscored": unscored, "latest": latest,
            "latest_n": points[-1][2] if points else 0,
            "mean": sum(values) / len(values) if values else None,
            "low": min(p[1] for p in points) if points else None,
            "high": max(p[1] for p in points) if points else None,
            "chart": _chart(points, scale, x_lo, x_hi, bars), "label": label})
    if by_time:
        first, last = (datetime.fromtimestamp(x, UTC) for x in (x_lo, x_hi))
        x_labels = (_clock(first) + " UTC", _clock(last) + " UTC")
    else:
        x_labels = (f"row {fmt(x_lo)}", f"row {fmt(x_hi)}")
    return {"metrics": metrics, "axis": "time" if by_time else "row",
            "x_labels": x_labels, "window": window, "rows_shown": len(records),
            "flagged": _flagged(records, times, scales), "alerts": alerts}


def _flagged(records: Sequence[Mapping[str, Any]], times: Sequence[datetime | None],
             scales: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The latest rows with a value in its metric's bad band, newest first."""
    found = []
    for rec, when in zip(reversed(records), reversed(times), strict=True):
        bad = []
        for name, scale in scales.items():
            value = value_of(rec, name)
            if value is not None and value_css(value, scale) == "v-bad":
                result = rec[name]
                reason = str(result.get("reason") or "")
                bad.append({"name": name, "value": fmt(value), "reason": reason[:300]
                            + ("…" if len(reason) > 300 else "")})
        if bad:
            found.append({"id": str(rec.get("id")), "metrics": bad,
                          "when": when.astimezone(UTC).strftime("%Y-%m-%d %H:%M:%S")
                          if when else ""})
            if len(found) == FLAGGED_SHOWN:
                break
    return found


def alerts_view(summary: Mapping[str, Any]) -> dict[str, Any]:
    """The summary's ``alerts`` (``assay.watch._alerts.Alert.as_dict()`` each), newest first: ``all``
    of them and the ``shown`` ones, each with ``at``, ``message``, ``state``, ``metric``,
    ``bar`` and a CSS class; entries that are not mappings are left out."""
    raw = summary.get("alerts")
    entries = [a for a in raw if isinstance(a, Mapping)] if isinstance(raw, list) else []
    ordered = [a for _, a in sorted(enumerate(entries), reverse=True,
                                    key=lambda p: (str(p[1].get("at") or ""), p[0]))]
    shaped = []
    for a in ordered:
        bar = a.get("bar")
        shaped.append({"at": str(a.get("at") or "")[:19].replace("T", " "),
                       "rule": str(a.get("rule") or a.get("metric") or ""),
                       "message": str(a.get("message") or a.get("rule") or ""),
                       "state": str(a.get("state") or ""), "metric": str(a.get("metric") or ""),
                       "bar": bar if isinstance(bar, (int, float)) and not isinstance(bar, bool)
                       and math.isfinite(bar) else None,
                       "css": "bad" if a.get("state") == "firing" else "good"})
    firing: dict[str, bool] = {}
    for a in reversed(shaped):  # oldest first: the last state of each rule wins
        firing[str(a["rule"])] = a["state"] == "firing"
    return {"all": shaped, "shown": shaped[:ALERTS_SHOWN], "total": len(shaped),
            "firing": sum(firing.values())}
