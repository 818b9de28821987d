"""The chart of a metric's results, chosen by what the results are (one place decides, for the
HTML report and the web UI alike): a pairwise metric is a stacked win/tie/loss bar, a 1-5
rating or a 0-7 severity is one bar per value, a 0-1 metric is ten bins named by both edges
(the last one closed, so 1.0 counts in "0.9-1.0"), any other number ten bins over its span.

Each chart is inline SVG (no script, nothing fetched) with an ``aria-label`` and a ``<title>``
per bar, and a one-line text equivalent shown under it.

Example:
    >>> from ._model import scale_of
    >>> chart_kind(scale_of("coherence", []), {})
    'rating'
    >>> chart_kind(scale_of("violence", []), {}), chart_kind(scale_of("f1_score", []), {})
    ('severity', 'unit')
    >>> chart_kind(scale_of("preference", [1.0, 0.5]), {"choices": {"TIE": 1}})
    'pairwise'
    >>> c = distribution_chart("f1_score", {1.0: 3}, scale_of("f1_score", []), {})
    >>> c.kind, c.text
    ('unit', 'f1_score: 0.9-1.0: 3 rows')
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from html import escape

from markupsafe import Markup

from ._model import Bin, Scale, bin_edge, histogram

__all__ = ["CHART_KINDS", "PAIRWISE_WORDS", "Chart", "chart_kind", "distribution_chart",
           "pairwise_counts", "pairwise_word"]

#: What a metric's chart can be: ``pairwise`` (win/tie/loss), ``rating`` (one bar per whole
#: value), ``severity`` (one bar per 0-7 value, coloured by level), ``unit`` (0-1 in ten bins),
#: ``number`` (ten bins over the values' span).
CHART_KINDS = ("pairwise", "rating", "severity", "unit", "number")
#: A pairwise result's value and the word the row table shows for it.
PAIRWISE_WORDS = {1.0: "CANDIDATE", 0.5: "TIE", 0.0: "BASELINE"}
_PAIRWISE_ORDER = ("CANDIDATE", "TIE", "BASELINE")
_PAIRWISE_CSS = {"CANDIDATE": "win", "TIE": "tie", "BASELINE": "loss"}
_PAIRWISE_MEANS = {"CANDIDATE": "candidate better", "TIE": "tie",
                   "BASELINE": "baseline better"}


@dataclass(frozen=True)
class Chart:
    """A drawn chart: its kind, the SVG, and the same facts as one line of text."""

    kind: str
    svg: Markup
    text: str


def chart_kind(scale: Scale, aggregate: Mapping[str, object], *,
               pairwise: bool = False) -> str:
    """Which chart shows a metric: ``pairwise`` when its aggregate counts choices (or
    ``pairwise`` says its rows hold a choice), else by its scale (from the metric registry, see
    :func:`assay.report.scale_of`): ``severity`` (0-7), ``rating`` (whole numbers),
    ``unit`` (0-1) or ``number``.

    Example:
        >>> chart_kind(Scale(0.0, 1.0, False), {}, pairwise=True)
        'pairwise'
        >>> chart_kind(Scale(0.0, 250.0, False), {})
        'number'
    """
    if pairwise or "choices" in aggregate or "candidate_win_rate" in aggregate:
        return "pairwise"
    if scale.severity:
        return "severity"
    if scale.integer:
        return "rating"
    if (scale.lo, scale.hi) == (0.0, 1.0):
        return "unit"
    return "number"


def pairwise_word(value: float | None) -> str | None:
    """The choice a pairwise value stands for: 1 ``CANDIDATE``, 0 ``BASELINE``, 0.5 ``TIE``.

    Example:
        >>> pairwise_word(1.0), pairwise_word(0.0), pairwise_word(0.5), pairwise_word(None)
        ('CANDIDATE', 'BASELINE', 'TIE', None)
    """
    if value is None:
        return None
    return "CANDIDATE" if value > 0.5 else "BASELINE" if value < 0.5 else "TIE"


def pairwise_counts(counts: Mapping[float, int],
                    aggregate: Mapping[str, object]) -> dict[str, int]:
    """Rows per choice: the summary's ``choices`` when it has them (the whole run), else
    counted from the values (1 candidate, 0.5 tie, 0 baseline).

    Example:
        >>> pairwise_counts({1.0: 4, 0.5: 1, 0.0: 2}, {})
        {'CANDIDATE': 4, 'TIE': 1, 'BASELINE': 2}
    """
    choices = aggregate.get("choices")
    if isinstance(choices, Mapping) and choices:
        return {k: int(choices.get(k) or 0) for k in _PAIRWISE_ORDER}  # type: ignore[call-overload]
    out = dict.fromkeys(_PAIRWISE_ORDER, 0)
    for value, n in counts.items():
        word = pairwise_word(value)
        if word is not None:
            out[word] += n
    return out


def _rows(n: int) -> str:
    return f"{n} row{'s' if n != 1 else ''}"


def distribution_chart(name: str, counts: Mapping[float, int], scale: Scale,
                       aggregate: Mapping[str, object], *, pairwise: bool = False) -> Chart:
    """The chart of one metric's scored values (``counts``: each value's rows), of the kind
    :func:`chart_kind` picks.

    Example:
        >>> c = distribution_chart("pref", {1.0: 2, 0.0: 1}, Scale(0.0, 1.0, False), {},
        ...                        pairwise=True)
        >>> c.kind, c.text
        ('pairwise', 'pref: candidate better 2, tie 0, baseline better 1 (3 rows)')
    """
    kind = chart_kind(scale, aggregate, pairwise=pairwise)
    if kind == "pairwise":
        return _pairwise_chart(name, pairwise_counts(counts, aggregate))
    bins = histogram(counts, scale)
    text = f"{name}: " + (", ".join(f"{b.label}: {_rows(b.count)}" for b in bins if b.count)
                          or "no scored rows")
    return Chart(kind, _histogram_svg(name, bins, kind, text), text)


def _histogram_svg(name: str, bins: list[Bin], kind: str, text: str,
                   width: int = 300, height: int = 130) -> Markup:
    left, right, top, bottom = 30, 8, 14, 20
    plot_w, plot_h = width - left - right, height - top - bottom
    base = top + plot_h
    most = max((b.count for b in bins), default=0) or 1
    step = plot_w / max(len(bins), 1)
    out = [(f'<svg class="hist {kind}" viewBox="0 0 {width} {height}" width="{width}" '
           f'height="{height}" role="img" aria-label="{escape(text)}">'),
           f'<line class="axis" x1="{left}" y1="{base}" x2="{width - 4}" y2="{base}"/>',
           f'<text class="tick" x="{left - 4}" y="{top + 4}" text-anchor="end">{most}</text>',
           f'<text class="tick" x="{left - 4}" y="{base}" text-anchor="end">0</text>']
    by_value = kind in ("rating", "severity")
    for k, b in enumerate(bins):
        h = round(plot_h * b.count / most, 1)
        x, cx = round(left + k * step + 1, 1), round(left + (k + 0.5) * step, 1)
        css = " lvl-" + b.level.lower().replace(" ", "-") if b.level else ""
        out.append(f'<g class="bar{css}"><title>{escape(b.label)}: {_rows(b.count)}</title>'
                   f'<rect x="{x}" y="{round(base - h, 1)}" width="{round(max(step - 2, 1), 1)}"'
                   f' height="{h}"/>')
        if b.count:
            out.append(f'<text class="count" x="{cx}" y="{round(base - h - 3, 1)}" '
                       f'text-anchor="middle">{b.count}</text>')
        if by_value and (len(bins) <= 11 or k % 2 == 0):
            out.append(f'<text class="tick" x="{cx}" y="{height - 6}" '
                       f'text-anchor="middle">{escape(b.label)}</text>')
        out.append("</g>")
    if not by_value and bins:  # bins: the edges under their boundaries, every other one
        width_of_bin = bins[0].hi - bins[0].lo
        for k in range(0, len(bins) + 1, 2):
            edge = bin_edge(bins[k].lo if k < len(bins) else bins[-1].hi, width_of_bin)
            out.append(f'<text class="tick" x="{round(left + k * step, 1)}" y="{height - 6}" '
                       f'text-anchor="middle">{escape(edge)}</text>')
    out.append("</svg>")
    return Markup("".join(out))


def _pairwise_chart(name: str, counts: Mapping[str, int], width: int = 300) -> Chart:
    total = sum(counts.values())
    text = (f"{name}: " + ", ".join(f"{_PAIRWISE_MEANS[k]} {counts[k]}" for k in _PAIRWISE_ORDER)
            + f" ({_rows(total)})")
    left, bar_y, bar_h = 4, 8, 30
    plot_w = width - 2 * left
    out = [(f'<svg class="hist pairwise" viewBox="0 0 {width} 96" width="{width}" height="96" '
           f'role="img" aria-label="{escape(text)}">')]
    x = float(left)
    for key in _PAIRWISE_ORDER:
        n = counts[key]
        w = plot_w * n / total if total else 0.0
        out.append(f'<g class="bar seg {_PAIRWISE_CSS[key]}"><title>{key}: {_rows(n)}</title>'
                   f'<rect x="{round(x, 1)}" y="{bar_y}" width="{round(w, 1)}" '
                   f'height="{bar_h}"/>')
        if n and w >= 22:
            out.append(f'<text class="inbar" x="{round(x + w / 2, 1)}" y="{bar_y + 20}" '
                       f'text-anchor="middle">{n}</text>')
        out.append("</g>")
        x += w
    for k, key in enumerate(_PAIRWISE_ORDER):  # the legend, with each count
        lx = left + k * plot_w / 3
        out.append(f'<g class="legend {_PAIRWISE_CSS[key]}"><rect x="{round(lx, 1)}" y="52" '
                   f'width="10" height="10"/><text class="key" x="{round(lx + 14, 1)}" y="61">'
                   f'{key} {counts[key]}</text></g>')
    share = f"{100 * counts['CANDIDATE'] / total:.0f}%" if total else "–"
    out.append(f'<text class="tick" x="{left}" y="84">candidate wins {share} of '
               f'{_rows(total)}</text></svg>')
    return Chart("pairwise", Markup("".join(out)), text)
