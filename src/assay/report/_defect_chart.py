"""The safety chart of a run: each severity metric's defect rate at the run's threshold, with
its 95% Wilson interval (from the defects and scored rows the summary counts), as one bar per
category on a 0-100% axis.

Example:
    >>> summary = {"metrics": {"violence": {"defects": {"threshold": "medium",
    ...     "defect_rate": 0.5, "defects": 2, "scored": 4}}}}
    >>> [(r.metric, r.rate, r.ci) for r in defect_rates(summary)]
    [('violence', 0.5, (0.15, 0.85))]
    >>> print(defect_rates_chart(summary).text)
    Defect rates: violence 50.0% [15.0%, 85.0%] (2 of 4 rows at or above medium)
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from html import escape
from typing import Any

from markupsafe import Markup

from .._text import percent
from ..records import wilson_interval
from ._charts import Chart

__all__ = ["DefectRate", "defect_rates", "defect_rates_chart"]


@dataclass(frozen=True)
class DefectRate:
    """One severity metric's defect rate: ``defects`` of ``scored`` rows at ``threshold``."""

    metric: str
    threshold: str
    defects: int
    scored: int
    rate: float
    ci: tuple[float, float] | None

    @property
    def text(self) -> str:
        """``violence 50.0% [15.0%, 85.0%] (2 of 4 rows at or above medium)``."""
        ci = f" [{percent(self.ci[0])}, {percent(self.ci[1])}]" if self.ci else ""
        return (f"{self.metric} {percent(self.rate)}{ci} ({self.defects} of {self.scored} rows "
                f"at or above {self.threshold})")


def defect_rates(summary: Mapping[str, Any]) -> list[DefectRate]:
    """The defect rate of each severity metric of ``summary`` that scored a row."""
    out = []
    for name, agg in (summary.get("metrics") or {}).items():
        d = agg.get("defects") if isinstance(agg, Mapping) else None
        if not isinstance(d, Mapping):
            continue
        scored, defects = d.get("scored"), d.get("defects")
        if not isinstance(scored, int) or not isinstance(defects, int) or scored <= 0 \
                or not 0 <= defects <= scored:
            continue
        out.append(DefectRate(str(name), str(d.get("threshold")), defects, scored,
                              defects / scored, wilson_interval(defects, scored)))
    return out


def defect_rates_chart(summary: Mapping[str, Any], *, width: int = 560) -> Chart | None:
    """The chart of :func:`defect_rates`, None when the run has no severity metric."""
    rates = defect_rates(summary)
    if not rates:
        return None
    row_h, top, name_w, num_w = 24, 20, 150, 200
    plot_l, plot_r = name_w + 6, width - num_w
    height = top + row_h * len(rates) + 6

    def x(share: float) -> float:
        return round(plot_l + share * (plot_r - plot_l), 1)

    text = "Defect rates: " + "; ".join(r.text for r in rates)
    out = [(f'<svg class="defect-rates" viewBox="0 0 {width} {height}" width="{width}" '
           f'height="{height}" role="img" aria-label="{escape(text)}">')]
    for share in (0.0, 0.5, 1.0):
        out.append(f'<text class="tick" x="{x(share)}" y="12" text-anchor="middle">'
                   f"{share:.0%}</text><line class=\"grid\" x1=\"{x(share)}\" y1=\"{top - 4}\" "
                   f'x2="{x(share)}" y2="{height - 2}"/>')
    for k, r in enumerate(rates):
        y = top + k * row_h
        out.append(f'<g class="rate"><title>{escape(r.text)}</title>'
                   f'<text class="name" x="{name_w}" y="{y + 15}" text-anchor="end">'
                   f"{escape(r.metric)}</text>"
                   f'<rect x="{plot_l}" y="{y + 5}" width="{round(x(r.rate) - plot_l, 1)}" '
                   'height="12"/>')
        if r.ci:
            out.append(f'<line class="ci" x1="{x(r.ci[0])}" y1="{y + 11}" x2="{x(r.ci[1])}" '
                       f'y2="{y + 11}"/>')
        ci = f" [{percent(r.ci[0])}, {percent(r.ci[1])}]" if r.ci else ""
        out.append(f'<text class="num" x="{plot_r + 8}" y="{y + 15}">'
                   f"{escape(percent(r.rate) + ci)} · {r.defects}/{r.scored}</text></g>")
    out.append("</svg>")
    return Chart("defects", Markup("".join(out)), text)
