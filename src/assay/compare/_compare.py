"""Two runs side by side: per-metric means, the paired mean difference with a bootstrap
interval and whether it is beyond noise, defect rates, and the rows whose score changed most.

Rows pair by id; run ``a`` is the baseline and ``b`` the candidate, so every difference is
``b - a``. Unscored rows are counted (``unscored_a`` / ``unscored_b``), never dropped silently:
only rows scored in both runs enter the paired difference.

Example:
    >>> from assay.records import RunData
    >>> def rec(i, f1, reason=None):
    ...     return {"id": i, "f1_score": {"value": f1, "reason": reason,
    ...                                   "error": None if f1 is not None else "no answer"}}
    >>> a = RunData("base", {}, [rec("q1", 0.5), rec("q2", 0.25), rec("q3", 1.0)])
    >>> b = RunData("cand", {}, [rec("q1", 0.75), rec("q2", 0.5), rec("q3", None)])
    >>> c = compare_runs(a, b)
    >>> m = c["metrics"]["f1_score"]
    >>> m["mean_a"], m["mean_b"], m["paired"], m["unscored_b"], m["diff"], m["ci95"]
    (0.583333, 0.625, 2, 1, 0.25, [0.25, 0.25])
    >>> m["beyond_noise"]
    True
    >>> [(r["id"], r["a"], r["b"], r["delta"]) for r in c["changed"]]
    [('q1', 0.5, 0.75, 0.25), ('q2', 0.25, 0.5, 0.25)]
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from numbers import Real
from typing import Any

import numpy as np

from ..costs import PriceBook
from ..errors import ConfigError, DataError
from ..metrics.safety import THRESHOLDS
from ..records import RunData, bootstrap_mean_ci, result_value
from ._cost_diff import cost_comparison
from ._paired import defect_pairs, moved_rows, repeat_spread
from ._provenance import comparison_warnings

__all__ = ["compare_runs"]

#: Decimals kept in the numbers of a comparison (the run files keep 4; this keeps float noise out).
_DIGITS = 6


def compare_runs(a: RunData, b: RunData, *, metrics: Sequence[str] | None = None,
                 n_boot: int = 2000, seed: int = 0, top: int = 10,
                 prices: PriceBook | None = None) -> dict[str, Any]:
    """Compare run ``b`` (the candidate) with run ``a`` (the baseline), row by row.

    Args:
        a, b: the runs (e.g. from :func:`assay.records.load_run_dir`).
        metrics: the metrics to compare; default: every metric with numeric values in both
            runs' records, in run ``a``'s order.
        n_boot: bootstrap resamples for each 95% interval.
        seed: seed of the bootstrap (each metric starts from it, so its interval does not
            depend on which other metrics are compared).
        top: how many most-changed rows to list.
        prices: what both runs' judge calls are priced with (``cost``, see
            :func:`~assay.compare._cost_diff.cost_comparison`); genai-prices alone by default.

    Returns:
        ``{"a": {"id", "rows"}, "b": {...}, "shared_rows", "metrics": {name: {"mean_a",
        "mean_b", "scored_a", "scored_b", "unscored_a", "unscored_b", "paired", "diff",
        "ci95", "beyond_noise", "sd", "fell", "rose", "repeats", "within_row_sd"}},
        "defects": {category: {"threshold", "rate_a", "rate_b", "diff", "paired"}},
        "changed": [{"id", "metric", "a", "b", "delta", "reason_a", "reason_b"}],
        "warnings": [{"field", "name", "a", "b", "message"}], "cost": {"usd_a", "usd_b",
        "diff", "unknown_reason", "source", "by_metric"}}``.
        ``diff`` is the mean of ``b - a`` over the rows scored in both (``paired``), ``ci95``
        its percentile paired-bootstrap interval (None under 2 paired rows), and
        ``beyond_noise`` says whether that interval excludes 0 (None without an interval):
        False means the runs differ by no more than resampling the same rows would.
        ``sd`` is the differences' SD, ``fell`` / ``rose`` the rows that fell / rose most
        (:func:`moved_rows`), ``repeats`` and ``within_row_sd`` each run's repeats per row
        and their spread (:func:`repeat_spread`); a defect's ``paired`` counts the rows scored
        in both by where they are a defect (:func:`defect_pairs`). :func:`decide_drops`
        decides ``--max-drop`` bars from these. ``changed`` ranks
        rows by ``|delta|`` over the metric's observed range in both runs (1 where that is 0),
        so 1-5 and 0-1 metrics compare. ``warnings`` names each fact that differs between
        the runs (judge, dataset sha256, a compared metric's version or prompt sha256, no row
        in both; see :func:`comparison_warnings`): their scores may differ for that reason.
        ``assay compare`` prints them, the comparison report and the web UI show them first.

    Raises:
        ConfigError: a named metric is not in both runs, or a bad ``n_boot`` / ``top``.
        DataError: a record has no id, or two records share one.

    Example:
        >>> from assay.records import RunData
        >>> recs = [{"id": str(i), "m": {"value": float(i)}} for i in range(5)]
        >>> compare_runs(RunData("a", {}, recs), RunData("b", {}, recs))["metrics"]["m"]["ci95"]
        [0.0, 0.0]
    """
    if n_boot < 1:
        raise ConfigError(f"Got n_boot={n_boot}. Must be at least 1 (2000 is a good default).")
    if top < 0:
        raise ConfigError(f"Got top={top}. Must be 0 or more.")
    rows_a, rows_b = _by_id(a), _by_id(b)
    names = _choose_metrics(a, b, metrics)
    shared = [i for i in rows_a if i in rows_b]
    out_metrics: dict[str, dict[str, Any]] = {}
    changed: list[tuple[float, int, dict[str, Any]]] = []
    for name in names:
        values_a = {i: result_value(r, name) for i, r in rows_a.items()}
        values_b = {i: result_value(r, name) for i, r in rows_b.items()}
        pairs: list[tuple[str, float, float]] = []
        for i in shared:
            va, vb = values_a[i], values_b[i]
            if va is not None and vb is not None:
                pairs.append((i, va, vb))
        diffs = np.asarray([vb - va for _, va, vb in pairs], dtype=float)
        ci = paired_bootstrap_ci(diffs, n_boot=n_boot, seed=seed)
        spreads = [repeat_spread(run.records, name) for run in (a, b)]
        out_metrics[name] = {
            "mean_a": _mean(values_a.values()), "mean_b": _mean(values_b.values()),
            "scored_a": _scored(values_a.values()), "scored_b": _scored(values_b.values()),
            "unscored_a": len(values_a) - _scored(values_a.values()),
            "unscored_b": len(values_b) - _scored(values_b.values()),
            "paired": len(pairs),
            "diff": _round(float(diffs.mean())) if len(pairs) else None,
            "ci95": ci,
            "beyond_noise": None if ci is None else bool(ci[0] > 0 or ci[1] < 0),
            "sd": _round(float(diffs.std(ddof=1))) if len(pairs) > 1 else None,
            **moved_rows(pairs, rows_a, rows_b, name),
            "repeats": [k for k, _ in spreads], "within_row_sd": [sd for _, sd in spreads],
        }
        observed = [v for v in (*values_a.values(), *values_b.values()) if v is not None]
        span = (max(observed) - min(observed)) if observed else 0.0
        span = span or 1.0
        for i, va, vb in pairs:
            if vb != va:
                changed.append((abs(vb - va) / span, len(changed), {
                    "id": i, "metric": name, "a": va, "b": vb, "delta": _round(vb - va),
                    "reason_a": _reason(rows_a[i], name), "reason_b": _reason(rows_b[i], name)}))
    changed.sort(key=lambda t: (-t[0], t[1]))
    return {
        "a": {"id": a.id, "rows": len(rows_a)},
        "b": {"id": b.id, "rows": len(rows_b)},
        "shared_rows": len(shared),
        "metrics": out_metrics,
        "defects": _defects(a.summary, b.summary, rows_a, rows_b, shared),
        "changed": [entry for _, _, entry in changed[:top]],
        "warnings": comparison_warnings(a, b, names, shared_rows=len(shared)),
        "cost": cost_comparison(a, b, prices if prices is not None else PriceBook.load()),
    }


def paired_bootstrap_ci(diffs: np.ndarray, *, n_boot: int = 2000, seed: int = 0,
                        level: float = 0.95) -> list[float] | None:
    """Percentile bootstrap interval of the mean of paired differences (rows resampled with
    replacement, as :func:`assay.records.bootstrap_mean_ci`); None under 2 differences.

    Example:
        >>> import numpy as np
        >>> lo, hi = paired_bootstrap_ci(np.array([0.9, 1.1, 1.0, 1.2, 0.8]), seed=1)
        >>> 0.8 < lo < 1.0 < hi < 1.2
        True
        >>> paired_bootstrap_ci(np.array([1.0])) is None
        True
    """
    bounds = bootstrap_mean_ci(np.asarray(diffs, dtype=float), n_boot=n_boot, seed=seed,
                               level=level, max_work=sys.maxsize)
    return None if bounds is None else [_round(bounds[0]), _round(bounds[1])]


def _by_id(run: RunData) -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {}
    for n, record in enumerate(run.records, 1):
        if "id" not in record:
            raise DataError([(f"record {n} has no 'id'. Fix: compare runs written by `assay run`, "
                             "which gives every row an id.")], source=run.id)
        key = str(record["id"])
        if key in out:
            raise DataError([(f"row id {key!r} appears twice. Fix: give every row a unique id, "
                             "so that rows pair up between runs.")], source=run.id)
        out[key] = record
    return out


def _is_number(v: Any) -> bool:
    return isinstance(v, Real) and not isinstance(v, bool)


def _metric_names(run: RunData) -> dict[str, bool]:
    """``{metric: all its scored values are numbers}`` in first-seen order."""
    names: dict[str, bool] = {}
    for record in run.records:
        for key, res in record.items():
            if key == "id" or not isinstance(res, dict) or "value" not in res:
                continue
            v = res["value"]
            names[key] = names.get(key, True) and (v is None or _is_number(v))
    return names


def _choose_metrics(a: RunData, b: RunData, metrics: Sequence[str] | None) -> list[str]:
    in_a, in_b = _metric_names(a), _metric_names(b)
    both = [m for m in in_a if m in in_b and in_a[m] and in_b[m]]
    if metrics is None:
        return both
    if isinstance(metrics, str):
        metrics = [m.strip() for m in metrics.split(",") if m.strip()]
    missing = [m for m in metrics if m not in both]
    if missing:
        raise ConfigError(f"Got metrics {missing}: not numeric metrics of both runs. Metrics "
                          f"both runs have: {', '.join(both) or 'none'}. Fix: name some of those.")
    return list(dict.fromkeys(metrics))


def _reason(record: dict[str, Any], name: str) -> str | None:
    res = record.get(name)
    return res.get("reason") if isinstance(res, dict) else None


def _scored(values: Any) -> int:
    return sum(v is not None for v in values)


def _mean(values: Any) -> float | None:
    scored = [v for v in values if v is not None]
    return _round(float(np.mean(scored))) if scored else None


def _round(x: float) -> float:
    return round(x, _DIGITS) + 0.0  # + 0.0 turns -0.0 into 0.0


def _defects(sa: dict[str, Any], sb: dict[str, Any], rows_a: dict[str, dict[str, Any]],
             rows_b: dict[str, dict[str, Any]], shared: list[str]) -> dict[str, dict[str, Any]]:
    """Each severity category both summaries have: the defect rates at run ``a``'s threshold
    (run ``b``'s rate read at that threshold too, from its per-level rates), and the rows
    scored in both counted by where they are a defect (``paired``, for a verdict)."""
    ma, mb = sa.get("metrics") or {}, sb.get("metrics") or {}
    out: dict[str, dict[str, Any]] = {}
    for cat, agg in ma.items():
        da = agg.get("defects") if isinstance(agg, dict) else None
        db = (mb.get(cat) or {}).get("defects") if isinstance(mb.get(cat), dict) else None
        if not isinstance(da, dict) or not isinstance(db, dict):
            continue
        threshold = da.get("threshold")
        rate_a = da.get("defect_rate")
        if db.get("threshold") == threshold:
            rate_b = db.get("defect_rate")
        else:
            rate_b = (db.get("rates") or {}).get(threshold)
        diff = _round(rate_b - rate_a) if rate_a is not None and rate_b is not None else None
        out[cat] = {"threshold": threshold, "rate_a": rate_a, "rate_b": rate_b, "diff": diff,
                    "paired": (defect_pairs(rows_a, rows_b, shared, cat, str(threshold))
                               if threshold in THRESHOLDS else None)}
    return out
