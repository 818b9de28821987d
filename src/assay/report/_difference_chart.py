"""What changed between two runs, at a glance: each metric's difference B − A with its 95%
interval, as one horizontal interval per metric around a zero line, coloured by what it
means: ``better`` (green), ``worse`` (red), or ``unclear`` (grey: the interval holds 0).

Which way is better is the metric's (from the registry: a severity or defect rate is better
lower, see :func:`assay.report.scale_of`). Metrics on different scales share one axis as a
share of each metric's range, so a 0.2 on a 1-5 rating is not drawn as big as a 0.2 on 0-1;
the numbers beside each interval are the metric's own.

Example:
    >>> direction_of([0.05, 0.2], higher_is_better=True)
    'better'
    >>> direction_of([0.5, 1.5], higher_is_better=False), direction_of([-0.1, 0.2], True)
    ('worse', 'unclear')
    >>> direction_of(None, True)
    'too few pairs'
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from html import escape
from typing import Any

from markupsafe import Markup

from ._model import fmt, scale_of

__all__ = ["DIRECTION_WORDS", "Difference", "difference_of", "differences_svg", "direction_of"]

#: What each direction says in the comparison table and chart.
DIRECTION_WORDS = {"better": "B better", "worse": "B worse", "unclear": "no clear difference",
                   "too few pairs": "too few pairs"}


def direction_of(ci: Sequence[float | None] | None, higher_is_better: bool) -> str:
    """``better`` or ``worse`` when the 95% interval of B − A excludes 0 (read the metric's
    way), ``unclear`` when it holds 0, ``too few pairs`` without an interval."""
    if not isinstance(ci, (list, tuple)) or len(ci) != 2 or None in ci:
        return "too few pairs"
    lo, hi = float(ci[0]), float(ci[1])  # type: ignore[arg-type]
    if lo > 0 or hi < 0:
        return "better" if (lo > 0) == higher_is_better else "worse"
    return "unclear"


@dataclass(frozen=True)
class Difference:
    """One metric's change: B − A (``diff``), its interval, the metric's range and direction."""

    metric: str
    diff: float | None
    ci: tuple[float, float] | None
    span: float
    higher_is_better: bool
    direction: str

    @property
    def words(self) -> str:
        """``B better`` / ``B worse`` / ``no clear difference`` / ``too few pairs``."""
        return DIRECTION_WORDS[self.direction]

    @property
    def numbers(self) -> str:
        """``+0.1 [+0.05, +0.2]``."""
        ci = f" [{_signed(self.ci[0])}, {_signed(self.ci[1])}]" if self.ci else ""
        return _signed(self.diff) + ci


def _signed(value: Any) -> str:
    if not isinstance(value, (int, float)) or isinstance(value, bool):
        return "–"
    return ("+" if value > 0 else "") + fmt(value)


def difference_of(name: str, m: Mapping[str, Any]) -> Difference:
    """The :class:`Difference` of one metric of a comparison (``compare_runs(...)["metrics"]``).

    Example:
        >>> d = difference_of("violence", {"diff": 1.0, "ci95": [0.5, 1.5], "mean_a": 1.0})
        >>> d.direction, d.span, d.numbers
        ('worse', 7.0, '+1 [+0.5, +1.5]')
    """
    means = [float(v) for v in (m.get("mean_a"), m.get("mean_b")) if isinstance(v, (int, float))]
    scale = scale_of(name, means)
    raw = m.get("ci95")
    ci = (float(raw[0]), float(raw[1])) if isinstance(raw, (list, tuple)) and len(raw) == 2 \
        and None not in raw else None
    diff = m.get("diff")
    return Difference(name, float(diff) if isinstance(diff, (int, float)) else None, ci,
                      (scale.hi - scale.lo) or 1.0, scale.higher_is_better,
                      direction_of(ci, scale.higher_is_better))


def differences_svg(diffs: Sequence[Difference], *, width: int = 440) -> Markup:
    """One row per metric: its name, its interval (a line, and a dot at B − A) on an axis
    centred on 0, and its numbers; coloured by :func:`direction_of`. The ``aria-label`` says
    it all as text.

    Example:
        >>> svg = differences_svg([difference_of("f1_score", {"diff": 0.1, "ci95": [0.05, 0.2]})])
        >>> 'class="diff better"' in svg, "f1_score: B − A +0.1 [+0.05, +0.2], B better" in svg
        (True, True)
    """
    row_h, top, name_w, num_w = 22, 22, 104, 150
    plot_l, plot_r = name_w + 6, width - num_w
    mid = (plot_l + plot_r) / 2
    shares = [abs(v) / d.span for d in diffs
              for v in ((*d.ci, d.diff) if d.ci else (d.diff,)) if v is not None]
    extent = max([*shares, 0.02]) * 1.15
    height = top + row_h * len(diffs) + 8

    def x(value: float, span: float) -> float:
        return round(mid + (value / span) / extent * (plot_r - plot_l) / 2, 1)

    text = "Differences B − A with 95% intervals: " + "; ".join(
        f"{d.metric} {d.numbers}, {d.words}" for d in diffs)
    out = [(f'<svg class="diffs" viewBox="0 0 {width} {height}" width="{width}" '
           f'height="{height}" role="img" aria-label="{escape(text)}">'),
           f'<text class="tick" x="{plot_l}" y="12">−{escape(_share(extent))}</text>',
           f'<text class="tick" x="{mid}" y="12" text-anchor="middle">0</text>',
           (f'<text class="tick" x="{plot_r}" y="12" text-anchor="end">'
           f'+{escape(_share(extent))}</text>'),
           f'<line class="zero" x1="{mid}" y1="{top - 6}" x2="{mid}" y2="{height - 4}"/>']
    for k, d in enumerate(diffs):
        y = top + k * row_h + row_h / 2
        out.append(f'<g class="diff {d.direction.replace(" ", "-")}"><title>'
                   f"{escape(d.metric)}: B − A {escape(d.numbers)}, {escape(d.words)}</title>"
                   f'<text class="name" x="{name_w}" y="{y + 4}" text-anchor="end">'
                   f"{escape(d.metric)}</text>")
        if d.ci:
            out.append(f'<line class="ci" x1="{x(d.ci[0], d.span)}" y1="{y}" '
                       f'x2="{x(d.ci[1], d.span)}" y2="{y}"/>')
        if d.diff is not None:
            out.append(f'<circle cx="{x(d.diff, d.span)}" cy="{y}" r="4"/>')
        out.append(f'<text class="num" x="{plot_r + 8}" y="{y + 4}">{escape(d.numbers)}'
                   "</text></g>")
    out.append("</svg>")
    return Markup("".join(out))


def _share(x: float) -> str:
    return f"{100 * x:.0f}%" if x >= 0.1 else f"{100 * x:.1f}%"
