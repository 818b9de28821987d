"""The web UI's page of an arena run: the leaderboard and the win matrix first (as the report
shows them, see :mod:`assay.report._arena_view`), then one page of its pairs, each opening
the two answers side by side under their systems' names with the judge's reason per order.

The board is the one the run stored in its summary under ``arena`` (never refitted here);
the win matrix is counted from every stored row, the pairs listed are one page of them.

Example:
    >>> record = {"id": "q1 | v2 vs v1", "preference": {"value": 0.0, "reason": "v1 cites",
    ...     "details": {"orders": [{"order": "candidate_first", "verdict": "BASELINE",
    ...                             "reason": "B cites"},
    ...                            {"order": "baseline_first", "verdict": "BASELINE",
    ...                             "reason": "A cites"}]}}}
    >>> pair = pair_view(record, {"question": "2+2?", "answer": "5",
    ...                           "extra": {"baseline_model_response": "4"}}, "preference")
    >>> pair["outcome"], pair["answers"]
    ('v1 better', [('v2', '5'), ('v1', '4')])
    >>> [(o["first"], o["chose"], o["reason"]) for o in pair["orders"]]
    [('v2', 'v1', 'B cites'), ('v1', 'v1', 'A cites')]
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol
from urllib.parse import quote

from ..report import Pager, arena_view, metric_of
from ..store import RunInfo, Store
from ._review import review_href
from ._urls import paged_href
from ._views import page_inputs, row_href

__all__ = ["arena_page", "pair_view"]

_OUTCOME_CSS = {1.0: "win", 0.5: "tie", 0.0: "loss"}


class _Renders(Protocol):
    store: Store

    def render(self, template: str, *, title: str, crumbs: Any = ..., **context: Any) -> str:
        ...


def _baseline_answer(inputs: Mapping[str, Any]) -> Any:
    """The stored inputs' ``baseline_model_response`` (kept under ``extra`` by the store)."""
    if "baseline_model_response" in inputs:
        return inputs["baseline_model_response"]
    extra = inputs.get("extra")
    return extra.get("baseline_model_response") if isinstance(extra, Mapping) else None


def pair_view(record: Mapping[str, Any], inputs: Mapping[str, Any] | None,
              metric: str | None) -> dict[str, Any]:
    """One judged pair of an arena run: its test row, its two systems (A in ``answer``, B in
    ``baseline_model_response``), the outcome in their names, both answers and each order's
    choice and reason."""
    from ..arena import split_pair_id  # the arena imports the run, which imports this

    pair = str(record.get("id"))
    row, a, b = split_pair_id(pair)
    result = record.get(metric) if metric else None
    result = result if isinstance(result, Mapping) else {}
    value = result.get("value")
    names = {"CANDIDATE": a, "BASELINE": b, "TIE": "a tie"}
    if value is None:
        outcome = "unscored"
    else:
        outcome = {1.0: f"{a} better", 0.0: f"{b} better", 0.5: "tie"}.get(
            float(value), f"{a} {float(value):.2f}")
    details = result.get("details")
    orders = []
    for order in (details.get("orders") or []) if isinstance(details, Mapping) else []:
        if not isinstance(order, Mapping):
            continue
        a_first = order.get("order") == "candidate_first"
        orders.append({"first": a if a_first else b, "second": b if a_first else a,
                       "chose": names.get(str(order.get("verdict")), "no usable answer"),
                       "reason": order.get("reason") or order.get("error") or ""})
    given = inputs or {}
    return {"id": pair, "row": row, "a": a, "b": b, "outcome": outcome,
            "css": "unscored" if value is None else _OUTCOME_CSS.get(float(value), ""),
            "reason": result.get("reason") or "", "error": result.get("error") or "",
            "decided_by": details.get("decided_by") if isinstance(details, Mapping) else None,
            "question": given.get("question"),
            "answers": [(a, given.get("answer")), (b, _baseline_answer(given))],
            "orders": orders}


def arena_page(site: _Renders, info: RunInfo, offset: int, limit: int) -> str | None:
    """The arena page of the stored run ``info`` (pairs ``offset`` to ``offset + limit``), or
    None when its summary holds no board (then the run page is the plain report)."""
    summary = dict(info.summary or {})
    if not isinstance(summary.get("arena"), Mapping):
        return None
    records = site.store.rows(info.id)
    view = arena_view(summary, records)
    shown = records[offset:offset + limit]
    ids = [str(r.get("id")) for r in shown]
    inputs, note = page_inputs(site.store, info, ids)
    metric = metric_of(summary)
    pairs = [dict(pair_view(r, (inputs or {}).get(i), metric), href=row_href(info.id, i))
             for r, i in zip(shown, ids, strict=True)]
    pager = Pager(offset=offset, limit=limit, total=info.rows,
                  href=paged_href(f"/runs/{quote(info.id, safe='')}", limit))
    title = f"assay arena {info.id}" + (f" ({info.name})" if info.name else "")
    return site.render("arena.html.j2", title=title,
                       crumbs=(("All runs", "/"), ("Review rows", review_href(info.id)),
                               ("JSON", f"/api/runs/{info.id}")),
                       arena=view, pairs=pairs, pager=pager, inputs_note=note, run=info)
