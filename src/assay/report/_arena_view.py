"""An arena run's leaderboard for the HTML report and the web UI: the board the run stored in
its summary under ``arena`` (never refitted here), each rating's 95% interval drawn on one
axis shared by every system, the judge's position line, the rows some systems lack, and a
win matrix (row system against column system: the share of their decided pairs the row
system won, a tie counting half) counted from the run's records.

Charts are inline SVG with an ``aria-label`` and a ``<title>`` per mark; colours are SVG
attributes and CSS classes, never a ``style`` attribute, so both pages' policies hold.

Example:
    >>> records = [{"id": "q1 | v2 vs v1", "preference": {"value": 1.0}},
    ...            {"id": "q2 | v1 vs v2", "preference": {"value": 0.5}},
    ...            {"id": "q3 | v1 vs v2", "preference": {"value": None}}]
    >>> matrix = win_matrix(records, ["v2", "v1"], "preference")
    >>> matrix[("v2", "v1")], matrix[("v1", "v2")]
    ((1.5, 2), (0.5, 2))
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from html import escape
from typing import Any

from markupsafe import Markup

from .._text import percent
from ._model import fmt

__all__ = ["arena_headline", "arena_view", "heat_map", "metric_of", "position_line",
           "win_matrix"]

_BAR_W, _BAR_H = 240, 18
_CELL_W, _CELL_H, _NAME_CHARS = 66, 40, 18
#: The heat map's colours for a share of 0 (lost every pair), 0.5 (even) and 1 (won every).
_LOW, _MID, _HIGH = (215, 48, 39), (247, 247, 247), (26, 152, 80)


def metric_of(summary: Mapping[str, Any]) -> str | None:
    """The arena's pairwise metric: the one metric of its run."""
    return next(iter(summary.get("metrics") or {}), None)


def position_line(position: Mapping[str, Any]) -> str | None:
    """The judge's position figures as one line (None when it gave no single-order answer).

    Example:
        >>> position_line({"first_shown_share": 0.75, "flips": 3, "decided_by": {}})
        'judge position: names the first-shown answer in 75.0% of single-order answers (50%: no lean); 3 pair(s) flipped with the order (counted as ties)'
    """
    if position.get("first_shown_share") is None:
        return None
    by_probabilities = (position.get("decided_by") or {}).get("probabilities", 0)
    how = ("decided by both orders' averaged probabilities" if by_probabilities
           else "counted as ties")
    return (f"judge position: names the first-shown answer in "
            f"{percent(position['first_shown_share'])} of single-order answers (50%: no "
            f"lean); {position.get('flips', 0)} pair(s) flipped with the order ({how})")


def arena_headline(summary: Mapping[str, Any] | None) -> list[str]:
    """The runs list's line for an arena run: its top system (empty without a board).

    Example:
        >>> arena_headline({"arena": {"ratings": [{"system": "v2", "rank": "1",
        ...                                        "rating": 1012.4}]}})
        ['top v2 (1012, rank 1)']
    """
    board = (summary or {}).get("arena")
    ratings = board.get("ratings") if isinstance(board, Mapping) else None
    if not ratings:
        return []
    top = ratings[0]
    rating = "-" if top.get("rating") is None else f"{top['rating']:.0f}"
    return [f"top {top['system']} ({rating}, rank {top['rank']})"]


def win_matrix(records: Iterable[Mapping[str, Any]], systems: Sequence[str], metric: str
               ) -> dict[tuple[str, str], tuple[float, int]]:
    """``{(row system, column system): (pairs won, a tie counting half; decided pairs)}`` over
    the records' pair ids (``ROW | A vs B``) and ``metric`` values (1: A better); unscored
    pairs decide nothing and are not counted."""
    from ..arena import split_pair_id  # the arena imports the run, which imports this

    won = {(a, b): 0.0 for a in systems for b in systems if a != b}
    count = dict.fromkeys(won, 0)
    for record in records:
        _, a, b = split_pair_id(str(record.get("id")))
        result = record.get(metric)
        value = result.get("value") if isinstance(result, Mapping) else None
        if value is None or (a, b) not in won:
            continue
        won[(a, b)] += float(value)
        won[(b, a)] += 1.0 - float(value)
        count[(a, b)] += 1
        count[(b, a)] += 1
    return {key: (won[key], count[key]) for key in won}


def _colour(share: float) -> str:
    """The fill of a cell: red (0) through near-white (0.5) to green (1)."""
    lo, hi, t = (_LOW, _MID, share * 2) if share < 0.5 else (_MID, _HIGH, share * 2 - 1)
    return "#" + "".join(f"{round(x + (y - x) * t):02x}" for x, y in zip(lo, hi, strict=True))


def _short(name: str, chars: int) -> str:
    return name if len(name) <= chars else name[:chars - 1] + "…"


def heat_map(matrix: Mapping[tuple[str, str], tuple[float, int]], systems: Sequence[str]
             ) -> Markup:
    """The win matrix as an SVG grid, rows and columns in ``systems`` order: each cell the
    row system's share of the decided pairs (colour and percent) and their number."""
    left = 8 + 7 * min(max((len(s) for s in systems), default=4), _NAME_CHARS)
    top, k = 24, len(systems)
    width, height = left + k * _CELL_W, top + k * _CELL_H
    parts = [(f'<svg class="heat" width="{width}" height="{height}" viewBox="0 0 {width} '
              f'{height}" role="img" aria-label="win matrix of {k} systems: each cell the '
              f'share of decided pairs the row system won, ties half">')]
    for j, col in enumerate(systems):
        x = left + j * _CELL_W + _CELL_W / 2
        parts.append(f'<text class="col" x="{x:.0f}" y="16" text-anchor="middle">'
                     f'<title>{escape(col)}</title>{escape(_short(col, 9))}</text>')
    for i, row in enumerate(systems):
        y = top + i * _CELL_H
        parts.append(f'<text class="row" x="{left - 6}" y="{y + _CELL_H / 2 + 4:.0f}" '
                     f'text-anchor="end"><title>{escape(row)}</title>'
                     f'{escape(_short(row, _NAME_CHARS))}</text>')
        for j, col in enumerate(systems):
            x = left + j * _CELL_W
            if row == col:
                parts.append(f'<rect class="self" x="{x}" y="{y}" width="{_CELL_W}" '
                             f'height="{_CELL_H}" fill="#e5e5e5"/>')
                continue
            won, n = matrix[(row, col)]
            share = won / n if n else None
            said = (f"{row} vs {col}: {row} won {fmt(won)} of {n} decided pair(s) "
                    f"({percent(share)}, ties half)" if n else
                    f"{row} vs {col}: no decided pair")
            parts.append(
                f'<g class="cell" data-row="{escape(row)}" data-col="{escape(col)}" '
                f'data-won="{won:g}" data-n="{n}"><title>{escape(said)}</title>'
                f'<rect x="{x}" y="{y}" width="{_CELL_W}" height="{_CELL_H}" '
                f'fill="{"#ffffff" if share is None else _colour(share)}" stroke="#ffffff"/>'
                f'<text class="share" x="{x + _CELL_W / 2:.0f}" y="{y + 17}" '
                f'text-anchor="middle">{"–" if share is None else f"{share:.0%}"}</text>'
                f'<text class="n" x="{x + _CELL_W / 2:.0f}" y="{y + 32}" '
                f'text-anchor="middle">n={n}</text></g>')
    parts.append("</svg>")
    return Markup("".join(parts))


def _domain(ratings: Sequence[Mapping[str, Any]]) -> tuple[float, float] | None:
    """The shared axis of the interval bars: every rated system's interval, padded."""
    ends = [v for r in ratings if r.get("rating") is not None
            for v in (r.get("low"), r.get("high"), r.get("rating")) if v is not None]
    if not ends:
        return None
    lo, hi = min(ends), max(ends)
    pad = max((hi - lo) * 0.05, 1.0)
    return lo - pad, hi + pad


def _x(value: float, domain: tuple[float, float]) -> float:
    return 4 + (value - domain[0]) / (domain[1] - domain[0]) * (_BAR_W - 8)


def _interval_bar(r: Mapping[str, Any], domain: tuple[float, float] | None) -> Markup:
    """One system's rating (a dot) and 95% interval (a bar) on the shared axis."""
    if domain is None or r.get("rating") is None:
        return Markup("")
    low, high = r.get("low", r["rating"]), r.get("high", r["rating"])
    x0, x1, xr = _x(low, domain), _x(high, domain), _x(r["rating"], domain)
    label = f"{r['system']}: {r['rating']:.0f} (95% interval {low:.0f} to {high:.0f})"
    mid = _BAR_H / 2
    return Markup(
        f'<svg class="interval" width="{_BAR_W}" height="{_BAR_H}" viewBox="0 0 {_BAR_W} '
        f'{_BAR_H}" role="img" aria-label="{escape(label)}"><title>{escape(label)}</title>'
        f'<line class="axis" x1="4" x2="{_BAR_W - 4}" y1="{mid}" y2="{mid}"/>'
        f'<rect class="ci" x="{x0:.1f}" y="{mid - 4}" width="{max(x1 - x0, 1):.1f}" '
        f'height="8" data-low="{low:.1f}" data-high="{high:.1f}"/>'
        f'<circle class="point" cx="{xr:.1f}" cy="{mid}" r="4"/></svg>')


def _axis(domain: tuple[float, float] | None) -> Markup:
    """The shared axis's ticks, for the interval column's heading."""
    if domain is None:
        return Markup("")
    ticks = [domain[0] + (domain[1] - domain[0]) * f for f in (0.05, 0.5, 0.95)]
    marks = "".join(f'<text class="tick" x="{_x(t, domain):.0f}" y="11" '
                    f'text-anchor="middle">{t:.0f}</text>' for t in ticks)
    return Markup(f'<svg class="axis" width="{_BAR_W}" height="14" viewBox="0 0 {_BAR_W} 14" '
                  f'aria-hidden="true">{marks}</svg>')


def arena_view(summary: Mapping[str, Any], records: Iterable[Mapping[str, Any]]
               ) -> dict[str, Any] | None:
    """What the pages show of an arena run, or None when its summary holds no board (a run
    of another kind, or an arena stopped before its board was written)."""
    board = summary.get("arena")
    if not isinstance(board, Mapping) or not isinstance(board.get("ratings"), list):
        return None
    ratings = [dict(r) for r in board["ratings"]]
    systems = [str(r["system"]) for r in ratings]
    domain = _domain(ratings)
    for r in ratings:
        rated = r.get("rating") is not None
        r["bar"] = _interval_bar(r, domain)
        r["rating_text"] = f"{r['rating']:.0f}" if rated else "-"
        r["interval_text"] = (f"{r['low']:.0f} to {r['high']:.0f}" if rated
                              else "no pair decided")
    metric = metric_of(summary)
    matrix = win_matrix(records, systems, metric) if metric else {}
    missing = [{"system": s, "count": len(rows), "rows": ", ".join(map(str, rows[:5]))
                + (" ..." if len(rows) > 5 else "")}
               for s, rows in (board.get("missing") or {}).items() if rows]
    return {"ratings": ratings, "axis": _axis(domain), "metric": metric,
            "comparisons": board.get("comparisons"), "rows": board.get("rows"),
            "bootstrap": board.get("bootstrap"), "separated": board.get("separated"),
            "position": position_line(board.get("position") or {}), "missing": missing,
            "heat_map": heat_map(matrix, systems) if matrix else None}
