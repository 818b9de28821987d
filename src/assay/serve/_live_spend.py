"""What the live page of a watch run shows of its spend: per minute (from the rows it reads,
:class:`assay.records.MinuteSeries`) the traces scored, the app's and the judge's requests,
tokens and dollars, and p50 / p95 of their seconds, as two inline SVG charts (dollars, seconds)
with the same figures as a table; and the latest scored traces, each with the app's and the
judge's dollars, tokens and seconds. The app and the judge are kept apart; a price nobody
knows is written ``unknown`` with the reason, never ``$0``.

Example:
    >>> records = [{"id": f"t{i}", "watch": {
    ...     "scored": f"2026-12-08T02:0{i}:30+00:00",
    ...     "app": {"usd": 0.002 if i else None, "unknown_reason": "no price for model 'm'",
    ...             "requests": 1, "prompt_tokens": 100, "completion_tokens": 20,
    ...             "models": ["m"], "latency_s": 1.5, "llm_s": 1.0},
    ...     "judge": {"usd": 0.0005, "requests": 1, "prompt_tokens": 400,
    ...               "completion_tokens": 30, "latency_s": 0.4}}} for i in range(3)]
    >>> view = spend_view(records)
    >>> [(m["minute"], m["app_usd"], m["judge_usd"]) for m in view["minutes"]][:2]
    [('02:02', '$0.00200', '$0.000500'), ('02:01', '$0.00200', '$0.000500')]
    >>> view["minutes"][-1]["app_usd"], view["totals"]["app_usd"]
    ('unknown', 'unknown')
    >>> view["totals"]["app_line"]
    "1 trace unpriced (no price for model 'm'); the priced ones: $0.00400"
    >>> view["traces"][0]["id"], view["traces"][-1]["app_usd"], view["traces"][-1]["app_why"]
    ('t2', 'unknown', "no price for model 'm'")
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from typing import Any

from ..costs import usd_text
from ..records import MinuteSeries
from ..report import fmt

__all__ = ["SPEND_CHART", "TRACES_SHOWN", "spend_view"]

#: The latest scored traces listed with their spend, newest first.
TRACES_SHOWN = 20
#: Minutes charted at most (the latest).
MINUTES_SHOWN = 60
#: The charts' size and margins, in SVG units (as the metric charts').
SPEND_CHART = {"width": 560, "height": 170, "left": 64, "right": 12, "top": 10, "bottom": 26}
#: The series of each chart: (key, part, figure, label, colour, dashed).
_SERIES = {
    "usd": (("app", "priced_usd", "app $", "#2563eb", False),
            ("judge", "priced_usd", "judge $", "#b45309", False)),
    "seconds": (("app", "p50", "app p50 s", "#2563eb", False),
                ("app", "p95", "app p95 s", "#2563eb", True),
                ("judge", "p50", "judge p50 s", "#b45309", False),
                ("judge", "p95", "judge p95 s", "#b45309", True)),
}


def _usd(part: Mapping[str, Any] | None) -> str:
    """A part's dollars as text (``unknown`` when any trace's price is)."""
    return usd_text(part.get("usd")) if part else "–"


def _seconds(part: Mapping[str, Any] | None) -> str:
    latency = (part or {}).get("latency")
    return f"{fmt(latency['p50'])} / {fmt(latency['p95'])}" if latency else "–"


def _minute_stamp(minute: str) -> float:
    return datetime.strptime(minute, "%Y-%m-%dT%H:%MZ").replace(tzinfo=UTC).timestamp()


def _chart(minutes: Sequence[Mapping[str, Any]], which: str) -> dict[str, Any]:
    """One chart's geometry: a polyline per series over the minutes (x: the minute's time)."""
    c = SPEND_CHART
    plot_w, plot_h = c["width"] - c["left"] - c["right"], c["height"] - c["top"] - c["bottom"]
    xs = [_minute_stamp(m["minute"]) for m in minutes]
    x_lo, span_x = xs[0], (xs[-1] - xs[0]) or 1.0

    def figure(m: Mapping[str, Any], part: str, key: str) -> float | None:
        got = m[part].get(key) if which == "usd" else (m[part].get("latency") or {}).get(key)
        return float(got) if isinstance(got, (int, float)) else None

    top = max([v for m in minutes for part, key, *_ in _SERIES[which]
               if (v := figure(m, part, key)) is not None] or [0.0]) or 1.0
    series: list[dict[str, Any]] = []
    for part, key, label, colour, dashed in _SERIES[which]:
        points = [(round(c["left"] + plot_w * (x - x_lo) / span_x, 1),
                   round(c["top"] + plot_h * (1 - v / top), 1))
                  for x, m in zip(xs, minutes, strict=True)
                  if (v := figure(m, part, key)) is not None]
        unpriced = [m[part].get("unknown_traces") or 0 if which == "usd" else 0
                    for m in minutes if figure(m, part, key) is not None]
        if points:
            series.append({"label": label, "colour": colour, "dashed": dashed,
                           "points": " ".join(f"{x},{y}" for x, y in points),
                           "last": {"x": points[-1][0], "y": points[-1][1]},
                           "unpriced": [{"x": x, "y": y, "n": n} for (x, y), n
                                        in zip(points, unpriced, strict=True) if n]})
    tick = usd_text if which == "usd" else (lambda v: f"{fmt(v)} s")
    return {**c, "base": c["top"] + plot_h, "right_x": c["left"] + plot_w, "series": series,
            "y_ticks": [(round(c["top"] + plot_h * (1 - f), 1), tick(top * f))
                        for f in (0.0, 0.5, 1.0)],
            "x_labels": (minutes[0]["minute"][11:16] + " UTC",
                         minutes[-1]["minute"][11:16] + " UTC"),
            "label": f"{' and '.join(s['label'] for s in series) or 'nothing'} per minute "
                     f"over {len(minutes)} minute{'s' if len(minutes) != 1 else ''}"}


def _trace(record: Mapping[str, Any]) -> dict[str, Any]:
    watch = record["watch"]
    app, judge = watch.get("app") or {}, watch.get("judge") or {}
    tokens = (f"{fmt(app.get('prompt_tokens'))} / {fmt(app.get('completion_tokens'))}"
              if app.get("prompt_tokens") is not None else "–")
    return {"id": str(record.get("id")), "when": str(watch.get("scored") or "")[:19]
            .replace("T", " "), "models": ", ".join(map(str, app.get("models") or [])),
            "app_tokens": tokens, "app_usd": usd_text(app.get("usd")),
            "app_why": str(app.get("unknown_reason") or "") if app.get("usd") is None else "",
            "app_s": fmt(app.get("latency_s")), "llm_s": fmt(app.get("llm_s")),
            "judge_tokens": f"{fmt(judge.get('prompt_tokens'))} / "
                            f"{fmt(judge.get('completion_tokens'))}" if judge else "–",
            "judge_usd": usd_text(judge.get("usd")) if judge else "–",
            "judge_why": str(judge.get("unknown_reason") or "")
            if judge and judge.get("usd") is None else "",
            "judge_s": fmt(judge.get("latency_s"))}


def spend_view(records: Sequence[Mapping[str, Any]]) -> dict[str, Any] | None:
    """The spend part of the live page over ``records`` (the rows it reads), or ``None``
    when none of them carries the watch's ``app`` / ``judge`` figures."""
    series = MinuteSeries(keep=MINUTES_SHOWN)
    for record in records:
        series.add(record)
    minutes = series.minutes()
    if not minutes:
        return None
    totals = series.totals()
    rows = [{"minute": m["minute"][11:16], "traces": m["traces"],
             "app_requests": m["app"]["requests"], "app_tokens": m["app"]["tokens"],
             "app_usd": _usd(m["app"]), "app_why": m["app"].get("unknown_reason", ""),
             "app_s": _seconds(m["app"]), "judge_requests": m["judge"]["requests"],
             "judge_tokens": m["judge"]["tokens"], "judge_usd": _usd(m["judge"]),
             "judge_s": _seconds(m["judge"])} for m in reversed(minutes)]
    with_spend = [r for r in records if isinstance(r.get("watch"), Mapping)
                  and isinstance(r["watch"].get("app") or r["watch"].get("judge"), Mapping)]
    latest = sorted(with_spend, key=lambda r: str(r["watch"].get("scored") or ""),
                    reverse=True)[:TRACES_SHOWN]
    return {"minutes": rows, "charts": {w: _chart(minutes, w) for w in _SERIES},
            "totals": {"traces": totals["traces"], "app_usd": _usd(totals["app"]),
                       "app_line": _usd_line(totals["app"]),
                       "judge_usd": _usd(totals["judge"]),
                       "judge_line": _usd_line(totals["judge"]),
                       "app_s": _seconds(totals["app"]), "judge_s": _seconds(totals["judge"])},
            "traces": [_trace(r) for r in latest]}


def _usd_line(part: Mapping[str, Any]) -> str:
    """The part's total in words, with the reason when unknown."""
    n = part.get("unknown_traces")
    if part.get("usd") is None and n:
        return (f"{n} trace{'s' if n != 1 else ''} unpriced ({part.get('unknown_reason')}); "
                f"the priced ones: {usd_text(part.get('priced_usd'))}")
    return f"{usd_text(part.get('usd'))} for {part['requests']} requests, {part['tokens']} tokens"
