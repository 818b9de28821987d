"""Check a run's quality bars against the metrics it will score, before any judge call.

A bar on a misspelt metric, or on a metric the run does not score, can never pass: finding it
after the judge was paid for wastes the run. :func:`check_bar_names` finds it as soon as the
plan is known (after the dataset is read, before the first row is scored).

Example:
    >>> from assay.metrics import get_metric
    >>> check_bar_names([get_metric("f1_score")], fail_under={"f1_score": 0.5,
    ...                 "f1_score_unscored_rate": 0.1}, fail_over={})
    >>> try:
    ...     check_bar_names([get_metric("f1_score")], fail_under={"f1_scor": 0.5}, fail_over={})
    ... except ConfigError as e:
    ...     print(str(e).splitlines()[0])
    fail_under='f1_scor=0.5': no metric 'f1_scor' (did you mean f1_score, f1_score_unscored_rate?).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from ..errors import ConfigError, option
from ..metrics import REGISTRY, Metric, similar_metric_names

__all__ = ["check_bar_names"]

_DEFECT = "_defect_rate"
_UNSCORED = "_unscored_rate"


def check_bar_names(metrics: Sequence[Metric], *, fail_under: Mapping[str, float],
                    fail_over: Mapping[str, float], skipped: Sequence[str] = ()) -> None:
    """Refuse every bar that names no value of a run scoring ``metrics``.

    A bar may name one of ``metrics`` (its mean), ``<metric>_unscored_rate``, or a severity
    metric's ``<metric>_defect_rate``. ``skipped`` are the plan's lines for the metrics it
    left out (``"name: why"``), quoted when a bar names one of them.

    Raises:
        ConfigError: every bad bar, each with its did-you-mean or why the run lacks it, then
            the names this run's bars may use and the fix.

    Example:
        >>> from assay.metrics import get_metric
        >>> try:
        ...     check_bar_names([get_metric("f1_score")], fail_under={"fluency": 4.0},
        ...                     fail_over={"f1_score_defect_rate": 0.1},
        ...                     skipped=["fluency: skipped, no row can be scored (no answer)"])
        ... except ConfigError as e:
        ...     print(e)  # doctest: +NORMALIZE_WHITESPACE
        fail_under='fluency=4.0': fluency is not one of this run's metrics (fluency: skipped, no row can be scored (no answer)).
        fail_over='f1_score_defect_rate=0.1': f1_score has no defect rate (only the severity metrics do).
        This run's bars may name: f1_score, f1_score_unscored_rate. Fix: use one of those names, or add the metric to metrics.
    """
    by_name = {m.name: m for m in metrics}
    problems = [f"{option(keyword, f'{name}={limit}')}: {problem}"
                for keyword, bars in (("fail_under", fail_under), ("fail_over", fail_over))
                for name, limit in bars.items()
                if (problem := _problem(name, by_name, skipped)) is not None]
    if problems:
        usable = ", ".join(_bar_names(by_name))
        raise ConfigError("\n".join(problems) + f"\nThis run's bars may name: {usable or 'none'}."
                          f" Fix: use one of those names, or add the metric to "
                          f"{option('metrics')}.")


def _problem(name: str, metrics: Mapping[str, Metric], skipped: Sequence[str]) -> str | None:
    """Why the bar ``name`` cannot be measured on a run of ``metrics`` (None: it can)."""
    if name in metrics:
        return None
    for suffix in (_UNSCORED, _DEFECT):
        base = name[:-len(suffix)] if name.endswith(suffix) else None
        if base is not None and base in metrics:
            if suffix == _DEFECT and not _has_defects(metrics[base]):
                return f"{base} has no defect rate (only the severity metrics do)."
            return None
    base = next((name[:-len(s)] for s in (_UNSCORED, _DEFECT)
                 if name.endswith(s) and name[:-len(s)] in REGISTRY), name)
    if base in REGISTRY or base in (line.partition(":")[0] for line in skipped):
        why = next((line for line in skipped if line.partition(":")[0] == base), None)
        return f"{base} is not one of this run's metrics" + (f" ({why})." if why else ".")
    close = similar_metric_names(name, known=[*REGISTRY, *_bar_names(metrics)])
    return (f"no metric {name!r} (did you mean {', '.join(close)}?)." if close
            else f"no metric {name!r} (no close name).")


def _bar_names(metrics: Mapping[str, Metric]) -> list[str]:
    """Every name a bar on a run of ``metrics`` may use."""
    return [*metrics, *(f"{n}{_UNSCORED}" for n in metrics),
            *(f"{n}{_DEFECT}" for n, m in metrics.items() if _has_defects(m))]


def _has_defects(metric: Metric) -> bool:
    """Whether the metric's summary has a defect rate (the severity metrics' ``defects``)."""
    try:
        return "defects" in metric.aggregate([])
    except Exception:  # noqa: BLE001 - an aggregate that needs rows: none to gate on
        return False
