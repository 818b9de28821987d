"""What the HTML report shows, computed from a run: scales, histograms, unscored reasons,
and defect tables (a metric's details are in ``_details``). Plain data; the template only
lays it out.

Example:
    >>> scale = scale_of("coherence", [1.0, 4.0, 4.5])
    >>> scale.lo, scale.hi, scale.integer
    (1.0, 5.0, True)
    >>> [(b.label, b.count) for b in histogram([1.0, 4.0, 4.5], scale)]
    [('1', 1), ('2', 0), ('3', 0), ('4', 1), ('5', 1)]
    >>> fmt(0.47468), fmt(3.0), fmt(None)
    ('0.475', '3', '–')
"""

from __future__ import annotations

import functools
import json
import math
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import jinja2

from .._text import percent
from ..metrics import REGISTRY, FamilyTable
from ..metrics.safety import severity_level
from ..records import result_value

__all__ = [
    "Bin",
    "Scale",
    "bin_edge",
    "fmt",
    "histogram",
    "metric_names",
    "pretty_json",
    "scale_of",
    "table_view",
    "template_environment",
    "unscored_reasons",
    "value_css",
    "value_of",
]

def fmt(value: Any, digits: int = 3) -> str:
    """A number for a table cell: integers plainly, others to ``digits`` decimals without
    trailing zeros; ``–`` for None.

    Example:
        >>> fmt(2.5), fmt(0.1234567, 4), fmt(True), fmt("x")
        ('2.5', '0.1235', 'yes', 'x')
    """
    if value is None:
        return "–"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if math.isnan(value) or math.isinf(value):
            return str(value)
        if value == int(value) and abs(value) < 1e15:
            return str(int(value))
        return f"{value:.{digits}f}".rstrip("0").rstrip(".")
    return str(value)


def pretty_json(value: Any) -> str:
    """Indented JSON for a ``<pre>`` block (non-ASCII kept; the template escapes it)."""
    return json.dumps(value, indent=2, ensure_ascii=False, default=str)


#: The numeric value of a metric in one record (:func:`assay.records.result_value`).
value_of = result_value


def metric_names(summary: Mapping[str, Any], records: Iterable[Mapping[str, Any]]) -> list[str]:
    """The run's metrics: the summary's order, then any others found in the records.

    Example:
        >>> metric_names({"metrics": {"b": {}}}, [{"id": "1", "a": {"value": 1}, "b": {}}])
        ['b', 'a']
    """
    names = list((summary.get("metrics") or {}).keys())
    for rec in records:
        for key, val in rec.items():
            if key != "id" and isinstance(val, Mapping) \
                    and ("value" in val or "error" in val) and key not in names:
                names.append(key)
    return names


@dataclass(frozen=True)
class Scale:
    """A metric's value range, how to bin it, and which way is better."""

    lo: float
    hi: float
    integer: bool
    higher_is_better: bool = True
    severity: bool = False

    @property
    def label(self) -> str:
        """``1-5``, ``0-7``, ``0-1`` ..."""
        return f"{fmt(self.lo)}-{fmt(self.hi)}"


def scale_of(name: str, values: Sequence[float]) -> Scale:
    """The scale of a metric: from the registry when it is a built-in, else read off its values
    (0-1 when they all lie there, integer bins for small whole numbers, else their span).

    Example:
        >>> scale_of("violence", []).label, scale_of("violence", []).severity
        ('0-7', True)
        >>> scale_of("my_metric", [0.2, 0.9]).label, scale_of("my_metric", [1, 3, 5]).label
        ('0-1', '1-5')
    """
    metric = REGISTRY.get(name)
    if metric is not None:
        lo, hi = (float(x) for x in metric.value_range)
        integer = hi - lo > 1 and lo == int(lo) and hi == int(hi)
        return Scale(lo, hi, integer, bool(metric.higher_is_better),
                     severity=(lo, hi) == (0.0, 7.0))
    if not values:
        return Scale(0.0, 1.0, False)
    lo, hi = min(values), max(values)
    if lo >= 0 and hi <= 1:
        return Scale(0.0, 1.0, False)
    if all(v == int(v) for v in values) and hi - lo <= 10:
        if lo >= 1 and hi <= 5:
            return Scale(1.0, 5.0, True)
        return Scale(float(lo), float(hi), True)
    return Scale(float(lo), float(hi) if hi > lo else float(lo) + 1, False)


def value_css(value: float, scale: Scale) -> str:
    """``v-good`` / ``v-mid`` / ``v-bad`` by where ``value`` sits on its scale, read the way
    the scale says is better.

    Example:
        >>> value_css(5, Scale(1.0, 5.0, True)), value_css(2, Scale(1.0, 5.0, True))
        ('v-good', 'v-bad')
        >>> value_css(6, scale_of("violence", []))
        'v-bad'
    """
    span = scale.hi - scale.lo
    share = (value - scale.lo) / span if span else 0.5
    good = share if scale.higher_is_better else 1 - share
    return "v-good" if good >= 0.75 else "v-bad" if good < 0.4 else "v-mid"


@dataclass(frozen=True)
class Bin:
    """One histogram bar: its label, the range it covers (half-open, but the last bin of a
    0-1 or other continuous scale is closed), its count and level."""

    label: str
    lo: float
    hi: float
    count: int
    level: str | None = None


def histogram(values: Sequence[float] | Mapping[float, int], scale: Scale) -> list[Bin]:
    """Counts per bin: one bin per whole number on integer scales (values rounded to the
    nearest, labelled by the value), else 10 equal bins labelled by both edges ("0.8-0.9"),
    each half-open but the last, which is closed (1.0 counts in "0.9-1.0"). Out-of-range
    values go to the nearest end bin. ``values`` is a list, or a mapping of each value to its
    count.

    Example:
        >>> bins = histogram([0.0, 0.05, 0.3, 0.95, 1.0], Scale(0.0, 1.0, False))
        >>> [b.count for b in bins]
        [2, 0, 0, 1, 0, 0, 0, 0, 0, 2]
        >>> bins[3].label, bins[-1].label
        ('0.3-0.4', '0.9-1.0')
        >>> [b.count for b in histogram({2.0: 3, 4.0: 1}, Scale(1.0, 5.0, True))]
        [0, 3, 0, 1, 0]
    """
    counted = values if isinstance(values, Mapping) else Counter(values)
    if scale.integer:
        edges = list(range(int(scale.lo), int(scale.hi) + 1))
        counts: Counter[int] = Counter()
        for v, c in counted.items():
            counts[min(max(math.floor(v + 0.5), edges[0]), edges[-1])] += c
        return [Bin(str(k), k - 0.5, k + 0.5, counts.get(k, 0),
                    severity_level(k) if scale.severity else None) for k in edges]
    n = 10
    width = (scale.hi - scale.lo) / n
    counts10 = [0] * n
    for v, c in counted.items():
        # a hair of tolerance: 0.3 / 0.1 is 2.9999999999999996 in floats, yet 0.3 opens "0.3-0.4"
        i = math.floor((v - scale.lo) / width + 1e-9) if width else 0
        counts10[min(max(i, 0), n - 1)] += c
    bounds = [scale.lo + k * width for k in range(n + 1)]
    return [Bin(f"{bin_edge(bounds[k], width)}-{bin_edge(bounds[k + 1], width)}", bounds[k],
                bounds[k + 1], counts10[k]) for k in range(n)]


def bin_edge(x: float, width: float) -> str:
    """A bin edge with as many decimals as the bin width needs (at least one): 0.9, 1.0, 25.0.

    Example:
        >>> bin_edge(1.0, 0.1), bin_edge(0.05, 0.05), bin_edge(250.0, 25.0)
        ('1.0', '0.05', '250.0')
    """
    decimals = 1
    while decimals < 6 and abs(round(width, decimals) - width) > 1e-9:
        decimals += 1
    return f"{x:.{decimals}f}"


def unscored_reasons(records: Iterable[Mapping[str, Any]], metric: str) -> list[tuple[str, int]]:
    """(reason, rows) for the rows where ``metric`` is unscored, most frequent first.

    Example:
        >>> recs = [{"m": {"value": None, "error": "no context"}}, {"m": {"value": 1.0}},
        ...         {"m": {"value": None, "error": "no context"}}]
        >>> unscored_reasons(recs, "m")
        [('no context', 2)]
    """
    reasons: Counter[str] = Counter()
    for rec in records:
        result = rec.get(metric)
        if isinstance(result, Mapping) and value_of(rec, metric) is None:
            reasons[str(result.get("error") or "no reason recorded")] += 1
    return reasons.most_common()


def table_view(table: FamilyTable) -> dict[str, Any]:
    """A metric family's table ready for the template: header rows (grouped columns under
    their group, the others spanning both rows) and formatted cells.

    Example:
        >>> from assay.metrics import TableCell
        >>> t = FamilyTable("d", "Defects", columns=("metric", "Low", "High"),
        ...                 groups=(("", 1), ("at or above", 2)),
        ...                 rows=((TableCell("violence"), TableCell(0.75, rate=True, count=3),
        ...                        TableCell(None, rate=True)),))
        >>> v = table_view(t)
        >>> [h["text"] for h in v["head_top"]], v["head_bottom"]
        (['metric', 'at or above'], ['Low', 'High'])
        >>> [(c["text"], c["count"]) for c in v["rows"][0]]
        [('violence', None), ('75.0%', '3'), ('–', None)]
    """
    top: list[dict[str, Any]] = []
    bottom: list[str] = []
    start = 0
    for label, span in table.groups if table.grouped else [("", len(table.columns))]:
        columns = table.columns[start:start + span]
        start += span
        if label:
            top.append({"text": label, "rowspan": 1, "colspan": span})
            bottom += columns
        else:
            top += [{"text": c, "rowspan": 2 if table.grouped else 1, "colspan": 1}
                    for c in columns]
    rows = [[{"text": percent(c.value) if c.rate else fmt(c.value),
              "count": None if c.count is None else fmt(c.count), "strong": c.strong,
              "lines": list(c.lines), "num": not isinstance(c.value, str)} for c in row]
            for row in table.rows]
    return {"key": table.key, "title": table.title, "note": table.note, "head_top": top,
            "head_bottom": bottom, "rows": rows}


@functools.cache
def template_environment(package: str) -> jinja2.Environment:
    """A Jinja environment over ``package``'s ``templates/`` folder, then the report's (so the
    web UI imports the report's shared macros, e.g. ``_trajectory.html.j2``): autoescaped,
    strict about undefined names, with the ``fmt`` and ``pct`` filters; one per package."""
    loaders: list[jinja2.BaseLoader] = [jinja2.PackageLoader(package, "templates")]
    if package != "assay.report":
        loaders.append(jinja2.PackageLoader("assay.report", "templates"))
    env = jinja2.Environment(loader=jinja2.ChoiceLoader(loaders), autoescape=True,
                             undefined=jinja2.StrictUndefined, trim_blocks=True,
                             lstrip_blocks=True)
    env.filters["fmt"] = fmt
    env.filters["pct"] = percent
    return env
