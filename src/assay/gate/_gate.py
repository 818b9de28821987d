"""Quality bars for CI: parse ``NAME=NUMBER`` specs, check a run's summary or a comparison
against them, and say every bar that failed.

A bar that cannot be checked (a metric the run does not have, nothing scored) is a failure: a
gate must never pass by accident.

Example:
    >>> summary = {"rows": 4, "metrics": {"groundedness": {"mean": 3.62, "scored": 4,
    ...                                                    "unscored": 0}}}
    >>> check_summary(summary, fail_under=parse_bars(["groundedness=4.0"], "fail_under"),
    ...               fail_over={})
    ['groundedness mean 3.62 is under the bar 4.0']
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from ..errors import ConfigError, option

__all__ = ["check_comparison", "check_summary", "parse_bars"]

_DEFECT = "_defect_rate"
_UNSCORED = "_unscored_rate"


def parse_bars(specs: Sequence[str], keyword: str) -> dict[str, float]:
    """``{name: limit}`` from ``NAME=NUMBER`` specs; one spec may hold several, comma-separated.

    Raises:
        ConfigError: a spec is not ``NAME=NUMBER``, or one name gets two different limits; the
            message names the option (``keyword``; the flag inside a CLI command), the spec
            and the fix.

    Example:
        >>> parse_bars(["groundedness=4", "f1_score=0.5,violence_defect_rate=0.05"], "fail_under")
        {'groundedness': 4.0, 'f1_score': 0.5, 'violence_defect_rate': 0.05}
        >>> parse_bars(["groundedness"], "fail_under")
        Traceback (most recent call last):
        ...
        assay.errors.ConfigError: Got fail_under='groundedness': missing '=NUMBER'. Fix: write NAME=NUMBER, e.g. fail_under='groundedness=4.0' (several: fail_under='groundedness=4.0,f1_score=0.5').
    """
    bars: dict[str, float] = {}
    for spec in specs:
        for piece in spec.split(","):
            if not piece.strip():
                continue
            name, sep, number = (s.strip() for s in piece.partition("="))
            problem = None
            if not sep:
                problem = "missing '=NUMBER'"
            elif not name:
                problem = "missing the metric name before '='"
            else:
                try:
                    limit = float(number)
                except ValueError:
                    limit = math.nan
                if not math.isfinite(limit):
                    problem = f"{number!r} is not a number"
                elif name in bars and bars[name] != limit:
                    problem = f"{name} already has the bar {bars[name]}"
            if problem:
                if piece.strip() != spec.strip():
                    problem = f"in {piece.strip()!r}, {problem}"
                raise ConfigError(
                    f"Got {option(keyword, spec)}: {problem}. Fix: write NAME=NUMBER, e.g. "
                    f"{option(keyword, 'groundedness=4.0')} (several: "
                    f"{option(keyword, 'groundedness=4.0,f1_score=0.5')}).")
            bars[name] = limit
    return bars


def check_summary(summary: Mapping[str, Any], *, fail_under: Mapping[str, float],
                  fail_over: Mapping[str, float]) -> list[str]:
    """One message per failed bar of a run summary (as in ``summary.json``); empty: all pass.

    Bar names: a metric name is its mean; ``<category>_defect_rate`` is a severity metric's
    defect rate (``summary["metrics"][category]["defects"]["defect_rate"]``);
    ``<metric>_unscored_rate`` is the share of the run's rows that metric left unscored (rows
    the run has not reached count as unscored). A value equal to its bar passes.

    Example:
        >>> summary = {"rows": 10, "rows_done": 10, "metrics": {
        ...     "violence": {"mean": 0.4, "scored": 9, "unscored": 1,
        ...                  "defects": {"threshold": "medium", "defect_rate": 0.1}}}}
        >>> for message in check_summary(summary, fail_under={"relevance": 3.0}, fail_over={
        ...         "violence_defect_rate": 0.05, "violence_unscored_rate": 0.2}):
        ...     print(message)
        relevance: no such metric in this run, so the bar 3.0 cannot pass. Metrics: violence; also violence_defect_rate, <metric>_unscored_rate.
        violence defect rate 0.1 is over the bar 0.05
    """
    failures: list[str] = []
    for bars, word, fails in ((fail_under, "under", lambda v, lim: v < lim),
                              (fail_over, "over", lambda v, lim: v > lim)):
        for name, limit in bars.items():
            label, value, problem = _measure(summary, name)
            if problem:
                failures.append(f"{name}: {problem}, so the bar {limit} cannot pass."
                                + (_known(summary) if "no such metric" in problem else ""))
            elif value is None:
                failures.append(f"{label} is missing (nothing scored), so it cannot pass the "
                                f"bar {limit}")
            elif fails(value, limit):
                failures.append(f"{label} {_num(value)} is {word} the bar {limit}")
    return failures


def check_comparison(comparison: Mapping[str, Any], *, max_drop: Mapping[str, float],
                     lower_is_better: Sequence[str] | None = None) -> list[str]:
    """One message per metric of :func:`assay.compare.compare_runs`' output whose mean got
    worse from run ``a`` (baseline) to run ``b`` (candidate) by more than its allowed drop.

    For metrics where lower is better (``lower_is_better``; default: the registered metrics
    that say so, such as the safety severities) getting worse means rising.

    Example:
        >>> comparison = {"metrics": {"groundedness": {"mean_a": 4.1, "mean_b": 3.75},
        ...                           "violence": {"mean_a": 0.5, "mean_b": 0.5}}}
        >>> check_comparison(comparison, max_drop={"groundedness": 0.2, "violence": 0.1})
        ['groundedness dropped 0.35 (4.10 -> 3.75), more than 0.2']
    """
    metrics = comparison.get("metrics") or {}
    lower = set(_lower_is_better() if lower_is_better is None else lower_is_better)
    failures: list[str] = []
    for name, limit in max_drop.items():
        m = metrics.get(name)
        if not isinstance(m, Mapping):
            failures.append(f"{name}: not a metric of this comparison, so the bar {limit} cannot "
                            f"pass. Metrics compared: {', '.join(metrics) or 'none'}.")
            continue
        a, b = m.get("mean_a"), m.get("mean_b")
        if a is None or b is None:
            which = " and ".join(r for r, v in (("baseline", a), ("candidate", b)) if v is None)
            failures.append(f"{name}: nothing scored in the {which} run, so the bar {limit} "
                            "cannot pass")
            continue
        worse = round(b - a if name in lower else a - b, 9)
        if worse > limit:
            verb, note = ("rose", " (lower is better)") if name in lower else ("dropped", "")
            failures.append(f"{name} {verb} {_num(worse)} ({_num(a, 2)} -> {_num(b, 2)}), more "
                            f"than {limit}{note}")
    return failures


def _measure(summary: Mapping[str, Any], name: str) -> tuple[str, float | None, str | None]:
    """``(label, value, problem)`` of one bar name."""
    metrics = summary.get("metrics") or {}
    if name in metrics:
        return f"{name} mean", metrics[name].get("mean"), None
    if name.endswith(_DEFECT) and name[:-len(_DEFECT)] in metrics:
        cat = name[:-len(_DEFECT)]
        defects = metrics[cat].get("defects")
        if not isinstance(defects, Mapping):
            return name, None, f"{cat} has no defect rate (only severity metrics do)"
        return f"{cat} defect rate", defects.get("defect_rate"), None
    if name.endswith(_UNSCORED) and name[:-len(_UNSCORED)] in metrics:
        agg = metrics[name[:-len(_UNSCORED)]]
        rows = summary.get("rows") or 0
        if not rows:
            return name, None, "the run has no rows"
        not_reached = rows - summary.get("rows_done", rows)
        rate = (agg.get("unscored", 0) + max(0, not_reached)) / rows
        return f"{name[:-len(_UNSCORED)]} unscored rate", rate, None
    return name, None, "no such metric in this run"


def _known(summary: Mapping[str, Any]) -> str:
    metrics = summary.get("metrics") or {}
    if not metrics:
        return " This run has no metrics (is its summary.json missing or empty?)."
    defects = [f"{c}{_DEFECT}" for c, agg in metrics.items()
               if isinstance(agg, Mapping) and isinstance(agg.get("defects"), Mapping)]
    return (f" Metrics: {', '.join(metrics)}; also "
            + ", ".join([*defects, f"<metric>{_UNSCORED}"]) + ".")


def _num(x: float, min_decimals: int = 1) -> str:
    """Up to 4 decimals, trailing zeros cut, at least ``min_decimals``: 3.0, 3.62, 0.0417."""
    text = f"{x:.4f}".rstrip("0")
    decimals = len(text.partition(".")[2])
    if decimals < min_decimals:
        text += "0" * (min_decimals - decimals)
    return text


def _lower_is_better() -> list[str]:
    from ..metrics import REGISTRY
    return [name for name, metric in REGISTRY.items()
            if not metric.higher_is_better]
