"""Verdicts against a baseline: per ``--max-drop`` bar, pass, fail or inconclusive from the
paired difference and its interval, never from the two means alone.

A bar ``METRIC=D`` allows the candidate to be at most ``D`` worse than the baseline. With the
paired difference (candidate - baseline over the rows scored in both) and its interval at
``confidence``: **pass** when the interval's worse end is within ``D`` (confidently no worse
than the margin), **fail** when the whole interval is beyond it (confidently worse),
**inconclusive** otherwise, with about how many more shared rows (or repeats) would decide it.

The interval of a metric's mean difference is Student's t interval over the rows
(:func:`paired_t_interval`: a judge's noise on a row shows in the differences' spread, so the
verdict holds at its confidence without repeats); a ``<category>_defect_rate`` bar's is
Newcombe's paired square-and-add interval (:func:`newcombe_paired_interval`). Worse means
lower, or higher for lower-is-better metrics (safety severities, defect rates).

Example:
    >>> comparison = {"a": {"id": "base", "rows": 40}, "b": {"id": "cand", "rows": 40},
    ...               "shared_rows": 40, "defects": {}, "metrics": {"groundedness": {
    ...                   "paired": 40, "diff": -0.05, "sd": 0.3, "fell": [], "rose": []}}}
    >>> (outcome,) = decide_drops(comparison, {"groundedness": 0.2})
    >>> outcome.verdict, outcome.interval
    ('pass', (-0.1459, 0.0459))
    >>> outcome.message
    'groundedness: no worse than -0.2 (diff -0.050, 95% CI [-0.146, +0.046] over 40 rows)'
"""

from __future__ import annotations

import math
from collections.abc import Collection, Iterable, Mapping
from typing import TYPE_CHECKING, Any

from ..errors import ConfigError, option
from ..gate import BarOutcome, RowNote, Verdict, worst_verdict
from ._paired import newcombe_paired_interval, paired_t_interval

if TYPE_CHECKING:
    from ..records import RunData

__all__ = ["allowed_text", "check_margins", "check_shared_rows", "decide_drops",
           "with_verdicts"]

_DEFECT = "_defect_rate"
#: Candidate repeats tried when saying whether ``--repeat K`` would decide a bar.
_REPEATS = range(2, 11)
_EPS = 1e-9


def check_margins(max_drop: Mapping[str, float], *, confidence: float = 0.95) -> None:
    """Refuse a negative margin or a confidence outside (0.5, 1), every problem at once.

    Example:
        >>> check_margins({"groundedness": 0.2})
        >>> check_margins({"groundedness": -0.2}, confidence=1.5)
        Traceback (most recent call last):
        ...
        assay.errors.ConfigError: max_drop='groundedness=-0.2': a margin is how much worse the candidate may be, so it cannot be negative. Fix: give 0 or more, e.g. max_drop='groundedness=0.2'.
        confidence=1.5: must be over 0.5 and under 1. Fix: e.g. confidence=0.95.
    """
    problems = [f"{option('max_drop', f'{name}={margin:g}')}: a margin is how much worse the "
                "candidate may be, so it cannot be negative. Fix: give 0 or more, e.g. "
                f"{option('max_drop', f'{name}={abs(margin):g}')}."
                for name, margin in max_drop.items() if margin < 0]
    if not 0.5 < confidence < 1:
        problems.append(f"{option('confidence', confidence)}: must be over 0.5 and under 1. "
                        f"Fix: e.g. {option('confidence', 0.95)}.")
    if problems:
        raise ConfigError("\n".join(problems))


def decide_drops(comparison: Mapping[str, Any], max_drop: Mapping[str, float], *,
                 confidence: float = 0.95,
                 lower_is_better: Iterable[str] | None = None) -> list[BarOutcome]:
    """One :class:`~assay.gate.BarOutcome` (kind ``max_drop``) per bar, in the bars' order.

    Args:
        comparison: :func:`compare_runs`' output (run ``a`` the baseline, ``b`` the candidate).
        max_drop: ``{name: D}``: a compared metric, or ``<category>_defect_rate`` of a severity
            category both runs have; ``D`` is how much worse the candidate may be.
        confidence: the interval's level (two-sided).
        lower_is_better: metrics for which higher is worse; default: the registered metrics
            that say so (the safety severities). Defect rates always are.

    Raises:
        ConfigError: a bar names nothing compared (with the names that would do), a negative
            margin, a confidence outside (0.5, 1), or a baseline that shares under half of
            the candidate's rows (a verdict would speak for rows it did not see).
    """
    check_margins(max_drop, confidence=confidence)
    if not max_drop:
        return []
    _check_names(comparison, max_drop)
    _check_shared(comparison)
    lower = set(_registered_lower() if lower_is_better is None else lower_is_better)
    metrics, defects = comparison.get("metrics") or {}, comparison.get("defects") or {}
    outcomes = []
    for name, margin in max_drop.items():
        if name in metrics:
            outcomes.append(_decide_mean(name, metrics[name], margin, confidence, name in lower))
        else:
            outcomes.append(_decide_defects(name, defects[name[:-len(_DEFECT)]], margin,
                                            confidence))
    return outcomes


def with_verdicts(comparison: Mapping[str, Any], outcomes: list[BarOutcome]) -> dict[str, Any]:
    """The comparison with the verdicts beside it: ``verdict`` (the worst), ``bars`` (each
    bar's ``verdict``, ``difference``, ``interval``, ``bar``, ``decide``, ...) and each
    decided metric's (or defect category's) own ``verdict``.

    Example:
        >>> c = {"metrics": {"g": {"diff": -1.0}}, "defects": {}}
        >>> o = BarOutcome(name="g", kind="max_drop", bar=0.2, verdict="fail", value=-1.0)
        >>> out = with_verdicts(c, [o])
        >>> out["verdict"], out["metrics"]["g"]["verdict"], out["bars"]["g"]["difference"]
        ('fail', 'fail', -1.0)
    """
    out = dict(comparison)
    metrics = {k: dict(v) for k, v in (comparison.get("metrics") or {}).items()}
    defects = {k: dict(v) for k, v in (comparison.get("defects") or {}).items()}
    for o in outcomes:
        if o.name in metrics:
            metrics[o.name]["verdict"] = o.verdict
        elif o.name.endswith(_DEFECT) and o.name[:-len(_DEFECT)] in defects:
            defects[o.name[:-len(_DEFECT)]]["verdict"] = o.verdict
    out.update(metrics=metrics, defects=defects, verdict=worst_verdict(outcomes), bars={
        o.name: {"verdict": o.verdict, "difference": o.value,
                 "interval": list(o.interval) if o.interval else None, "bar": o.bar,
                 "decide": o.decide, "message": o.message, "kind": o.kind,
                 "lower_is_better": o.lower_is_better,
                 "worst": [{"id": r.id, "shown": r.shown, "reason": r.reason} for r in o.worst]}
        for o in outcomes})
    return out


def _decide_mean(name: str, m: Mapping[str, Any], margin: float, confidence: float,
                 lower: bool) -> BarOutcome:
    n, diff, sd = int(m.get("paired") or 0), m.get("diff"), m.get("sd")
    interval = (paired_t_interval(n=n, mean=diff, sd=sd, level=confidence)
                if diff is not None and sd is not None else None)
    moved = m.get("rose" if lower else "fell") or []
    return _outcome(name, margin, diff, interval, n, sd, confidence, lower, moved,
                    _repeat_noise(m) if _judged(name) else (0.0, 1))


def _decide_defects(name: str, d: Mapping[str, Any], margin: float,
                    confidence: float) -> BarOutcome:
    p = d["paired"]
    n, only_a, only_b = p["rows"], p["only_a"], p["only_b"]
    interval = newcombe_paired_interval(both=p["both"], only_a=only_a, only_b=only_b,
                                        neither=n - p["both"] - only_a - only_b,
                                        level=confidence)
    diff = (only_b - only_a) / n if n else None
    sd = (math.sqrt(max(0.0, (only_a + only_b - n * diff * diff) / (n - 1)))
          if diff is not None and n > 1 else None)
    return _outcome(name, margin, None if diff is None else round(diff, 6), interval, n, sd,
                    confidence, True, p.get("new_defects") or [],
                    None if _judged(name[:-len(_DEFECT)]) else (0.0, 1))


def _outcome(name: str, margin: float, diff: float | None,
             interval: tuple[float, float] | None, n: int, sd: float | None,
             confidence: float, lower: bool, moved: list[Mapping[str, Any]],
             noise: tuple[float, int] | None) -> BarOutcome:
    """Decide one bar on the "worse" scale (positive = worse): pass when the interval's worse
    end is within the margin, fail when its better end is beyond it."""
    sign = 1.0 if lower else -1.0
    bar_text = allowed_text(margin, lower)
    level = f"{confidence * 100:g}% CI"
    if diff is None or interval is None:
        return BarOutcome(
            name=name, kind="max_drop", bar=margin, verdict="inconclusive", value=diff,
            message=f"{name}: cannot tell whether it is worse than {bar_text}: {n} row"
                    f"{'' if n == 1 else 's'} scored in both runs, a verdict needs 2 or more",
            decide="rows scored in both runs (at least 2)", lower_is_better=lower,
            worst=_notes(moved))
    worse_lo, worse_hi = sorted((sign * interval[0], sign * interval[1]))
    worse = sign * diff
    verdict: Verdict = ("pass" if worse_hi <= margin + _EPS
                        else "fail" if worse_lo > margin + _EPS else "inconclusive")
    said = {"pass": "no worse than", "fail": "worse than",
            "inconclusive": "cannot tell whether it is worse than"}[verdict]
    note = " (lower is better)" if lower else ""
    message = (f"{name}: {said} {bar_text}{note} (diff {diff:+.3f}, {level} "
               f"[{interval[0]:+.3f}, {interval[1]:+.3f}] over {n} rows)")
    decide = None
    if verdict == "inconclusive":
        half = worse_hi - worse if worse <= margin else worse - worse_lo
        decide = _rows_to_decide(n, half, abs(worse - margin), sd, noise)
    return BarOutcome(name=name, kind="max_drop", bar=margin, verdict=verdict, value=diff,
                      interval=interval, message=message, decide=decide,
                      worst=() if verdict == "pass" else _notes(moved), lower_is_better=lower)


def allowed_text(margin: float, lower: bool) -> str:
    """The margin as the difference it allows: ``-0.2`` (higher is better), ``+0.05``
    (lower is better), ``0``.

    Example:
        >>> allowed_text(0.2, False), allowed_text(0.05, True), allowed_text(0.0, False)
        ('-0.2', '+0.05', '0')
    """
    return f"{(1 if lower else -1) * margin:+g}" if margin else "0"


def _rows_to_decide(n: int, half: float, room: float, sd: float | None,
                    noise: tuple[float, int] | None) -> str:
    """What would decide a bar whose interval reaches ``half`` from the difference towards
    the margin, ``room`` away: an interval narrows as 1/sqrt(rows), so about
    ``n * (half / room)**2`` rows (the difference staying where it is); and when the runs
    were repeated, the fewest repeats that would narrow it enough on these rows. ``noise``:
    ``(judge variance, repeats)``; None: unknown (a judged metric, not repeated)."""
    if room <= _EPS:
        return ("the difference sits on the margin: no number of rows decides it; set the "
                "margin by what matters, not by this run")
    more = max(1, math.ceil(n * (half / room) ** 2) - n)
    text = f"about {more} more shared rows"
    if noise is None:
        return text + " (if the judge is noisy, --repeat 3 on both runs may do instead)"
    judge_var, repeats = noise
    total = (sd or 0.0) ** 2
    rows_var = max(0.0, total - judge_var / repeats)
    for k in _REPEATS:
        if k > repeats and total and math.sqrt((rows_var + judge_var / k) / total) * half <= room:
            return text + f", or --repeat {k} on both runs"
    return text


def _judged(name: str) -> bool:
    """Whether a judge scores the metric (its scores may be noisy); a metric the registry
    does not know (a --metric-file metric) is taken to be judged."""
    from ..metrics import REGISTRY

    metric = REGISTRY.get(name)
    return metric is None or bool(metric.uses_judge)


def _repeat_noise(m: Mapping[str, Any]) -> tuple[float, int] | None:
    """``(judge variance of one answer in a row's difference, repeats)`` from the runs'
    repeats (None when neither run was repeated, so the judge's share is unknown)."""
    sds = [s for s in (m.get("within_row_sd") or []) if s is not None]
    if not sds:
        return None
    repeats = min(int(k) for k in (m.get("repeats") or [1]))
    return 2 * float(sum(s * s for s in sds) / len(sds)), max(1, repeats)


def _notes(moved: list[Mapping[str, Any]]) -> tuple[RowNote, ...]:
    return tuple(RowNote(id=str(r["id"]), shown=f"{r['a']:g} -> {r['b']:g}",
                         reason=_reasons(r.get("reason_a"), r.get("reason_b")))
                 for r in moved[:3])


def _reasons(before: str | None, after: str | None) -> str | None:
    parts = [f"{who}: {' '.join(text.split())}" for who, text in
             (("baseline", before), ("candidate", after)) if text]
    return "; ".join(parts) or None


def _usable(comparison: Mapping[str, Any]) -> list[str]:
    defects = comparison.get("defects") or {}
    return [*(comparison.get("metrics") or {}),
            *(f"{c}{_DEFECT}" for c, d in defects.items() if isinstance(d.get("paired"), Mapping))]


def _check_names(comparison: Mapping[str, Any], max_drop: Mapping[str, float]) -> None:
    from ..metrics import similar_metric_names

    usable = _usable(comparison)
    problems = []
    for name, margin in max_drop.items():
        if name in usable:
            continue
        close = similar_metric_names(name, known=usable)
        why = (f"did you mean {', '.join(close)}?" if close
               else "not a metric of both runs")
        problems.append(f"{option('max_drop', f'{name}={margin:g}')}: no metric {name!r} to "
                        f"compare ({why}).")
    if problems:
        raise ConfigError("\n".join(problems) + "\nBars may name: "
                          f"{', '.join(usable) or 'none (no metric is scored in both runs)'}. "
                          "Fix: use one of those names.")


def check_shared_rows(baseline: RunData, ids: Collection[str]) -> None:
    """Refuse, before the candidate is scored, a baseline run that shares under half of the
    candidate's rows (``ids``): the refusal :func:`decide_drops` would make after the run,
    made before its judge calls are paid for.

    Example:
        >>> from assay.records import RunData
        >>> base = RunData("base", {}, [{"id": "a"}, {"id": "b"}])
        >>> check_shared_rows(base, ["a", "b", "c"])
        >>> check_shared_rows(base, ["a", "x", "y"])
        Traceback (most recent call last):
        ...
        assay.errors.ConfigError: The baseline run base shares 1 of the candidate's 3 rows (rows pair by id), so a verdict would speak for rows it did not see. Fix: compare with a baseline run of the same dataset (same row ids).
    """
    known = {str(r.get("id")) for r in baseline.records}
    _check_shared({"shared_rows": sum(str(i) in known for i in ids), "b": {"rows": len(ids)},
                   "a": {"id": baseline.id}})


def _check_shared(comparison: Mapping[str, Any]) -> None:
    shared, rows = comparison.get("shared_rows", 0), (comparison.get("b") or {}).get("rows", 0)
    if rows and shared * 2 < rows:
        base = (comparison.get("a") or {}).get("id", "the baseline")
        raise ConfigError(
            f"The baseline run {base} shares {shared} of the candidate's {rows} rows (rows pair "
            "by id), so a verdict would speak for rows it did not see. Fix: compare with a "
            "baseline run of the same dataset (same row ids).")


def _registered_lower() -> list[str]:
    from ..metrics import REGISTRY

    return [name for name, metric in REGISTRY.items() if not metric.higher_is_better]
