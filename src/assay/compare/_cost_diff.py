"""What two runs' judge calls cost, side by side: each run priced from its records' usage
with one price book (so a ``--prices`` file prices both alike), and the difference B - A, in
total and per metric. A difference is unknown when either side is.

Example:
    >>> from assay.costs import PriceBook
    >>> from assay.records import RunData
    >>> def rec(tokens):
    ...     return {"id": "1", "fluency": {"value": 4.0, "details": {"usage": {
    ...         "openai:gpt-4o-mini": {"requests": 1, "prompt_tokens": tokens}}}}}
    >>> a = RunData("a", {"cost": {}}, [rec(1_000_000)])
    >>> b = RunData("b", {"cost": {}}, [rec(2_000_000)])
    >>> cost = cost_comparison(a, b, PriceBook.load())
    >>> cost["usd_a"], cost["usd_b"], cost["diff"], cost["by_metric"]["fluency"]["diff"]
    (0.15, 0.3, 0.15, 0.15)
    >>> cost_comparison(RunData("old", {}, []), b, PriceBook.load())["unknown_reason"]
    'run old was recorded before assay kept costs'
"""

from __future__ import annotations

from typing import Any

from ..costs import CostTally, PriceBook
from ..records import RunData

__all__ = ["cost_comparison"]


def cost_comparison(a: RunData, b: RunData, book: PriceBook) -> dict[str, Any]:
    """``{"usd_a", "usd_b", "diff", "unknown_reason", "source", "by_metric": {name: {"usd_a",
    "usd_b", "diff"}}, "app": {"usd_a", "usd_b", "diff", "unknown_reason"}}`` (``app``: the
    app under test's own cost, apart, when either run drove one); ``None`` dollars where a
    price is unknown (or a run was recorded before assay kept costs), with the first reason."""
    sides = [_priced(run, book) for run in (a, b)]
    (cost_a, why_a), (cost_b, why_b) = sides
    names = list(dict.fromkeys([*(cost_a or {}).get("by_metric", {}),
                                *(cost_b or {}).get("by_metric", {})]))
    by_metric = {}
    for name in names:
        usd_a = _usd(cost_a, name)
        usd_b = _usd(cost_b, name)
        by_metric[name] = {"usd_a": usd_a, "usd_b": usd_b, "diff": _diff(usd_a, usd_b)}
    usd_a = cost_a["usd"] if cost_a else None
    usd_b = cost_b["usd"] if cost_b else None
    out = {"usd_a": usd_a, "usd_b": usd_b, "diff": _diff(usd_a, usd_b),
           "unknown_reason": why_a or why_b, "source": (cost_b or cost_a or {}).get("source"),
           "by_metric": by_metric}
    apps = [(cost or {}).get("app") for cost in (cost_a, cost_b)]
    if any(apps):  # the app under test's own cost, apart (``--target`` runs)
        app_a, app_b = (app.get("usd") if app else None for app in apps)
        out["app"] = {"usd_a": app_a, "usd_b": app_b, "diff": _diff(app_a, app_b),
                      "unknown_reason": next((app.get("unknown_reason") for app in apps
                                              if app and app.get("usd") is None), None)
                      or next((f"run {run.id} drove no app" for run, app in zip((a, b), apps)
                               if not app), None)}
    return out


def _priced(run: RunData, book: PriceBook) -> tuple[dict[str, Any] | None, str | None]:
    if "cost" not in run.summary:
        return None, f"run {run.id} was recorded before assay kept costs"
    section = CostTally.of_records(run.records).section(book)
    return section, section["unknown_reason"]


def _usd(cost: dict[str, Any] | None, metric: str) -> float | None:
    if cost is None:
        return None
    found = cost["by_metric"].get(metric)
    return 0.0 if found is None else found["usd"]  # no usage recorded: nothing spent


def _diff(a: float | None, b: float | None) -> float | None:
    return None if a is None or b is None else round(b - a, 10)
