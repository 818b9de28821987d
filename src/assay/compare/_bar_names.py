"""Check ``--max-drop`` bars of a run against its baseline before any judge call: a bar must
name a metric the run will score and the baseline has (or a severity metric's
``<category>_defect_rate`` both have), else it could never be decided.

Example:
    >>> from assay.metrics import get_metric
    >>> from assay.records import RunData
    >>> base = RunData("base", {}, [{"id": "1", "f1_score": {"value": 0.5}}])
    >>> check_drop_names([get_metric("f1_score")], base, {"f1_score": 0.1})
    >>> try:
    ...     check_drop_names([get_metric("f1_score")], base, {"f1_scor": 0.1})
    ... except ConfigError as e:
    ...     print(str(e).splitlines()[0])
    max_drop='f1_scor=0.1': no metric 'f1_scor' (did you mean f1_score?).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from ..errors import ConfigError, option
from ..metrics import REGISTRY, Metric, similar_metric_names
from ..records import RunData

__all__ = ["check_drop_names"]

_DEFECT = "_defect_rate"


def check_drop_names(metrics: Sequence[Metric], baseline: RunData,
                     max_drop: Mapping[str, float]) -> None:
    """Refuse every ``max_drop`` bar that the run's ``metrics`` and ``baseline`` cannot decide.

    Raises:
        ConfigError: every bad bar (a misspelt name with its did-you-mean; a metric this run
            does not score; one the baseline did not score), then the names that would do.
    """
    scored = {m.name for m in metrics}
    measurable = [m.name for m in metrics] + [f"{m.name}{_DEFECT}" for m in metrics
                                              if _has_defects(m)]
    in_baseline = _baseline_names(baseline)
    usable = [n for n in measurable if n in in_baseline]
    problems = []
    for name, margin in max_drop.items():
        if name in usable:
            continue
        base = name.removesuffix(_DEFECT)
        spec = option("max_drop", f"{name}={margin:g}")
        if name in measurable:
            problems.append(f"{spec}: the baseline run {baseline.id} has no {name} to compare "
                            "with.")
        elif base in scored:
            problems.append(f"{spec}: {base} has no defect rate (only the severity metrics "
                            "do).")
        elif base in REGISTRY:
            problems.append(f"{spec}: {base} is not one of this run's metrics.")
        else:
            close = similar_metric_names(name, known=[*usable, *REGISTRY])
            problems.append(f"{spec}: no metric {name!r} "
                            + (f"(did you mean {', '.join(close)}?)." if close
                               else "(no close name)."))
    if problems:
        raise ConfigError("\n".join(problems) + f"\nBars against this baseline may name: "
                          f"{', '.join(usable) or 'none'}. Fix: use one of those names, or "
                          "a baseline run that scored the metric.")


def _baseline_names(run: RunData) -> set[str]:
    """The metrics the baseline's records hold, and its ``<category>_defect_rate`` names."""
    names = {key for record in run.records for key, result in record.items()
             if isinstance(result, dict) and "value" in result}
    for name, agg in (run.summary.get("metrics") or {}).items():
        if isinstance(agg, Mapping) and isinstance(agg.get("defects"), Mapping):
            names.add(f"{name}{_DEFECT}")
    return names


def _has_defects(metric: Metric) -> bool:
    """Whether the metric's summary has a defect rate (the severity metrics' ``defects``)."""
    try:
        return "defects" in metric.aggregate([])
    except Exception:  # noqa: BLE001 - an aggregate that needs rows: no defect rate to gate on
        return False
