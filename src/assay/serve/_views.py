"""What the pages of ``assay serve`` show, computed without a web framework: one line per
stored run for the list, one row's inputs and results for its page, links added to a report.

Example:
    >>> from assay.store import open_store
    >>> with open_store(":memory:") as store:
    ...     rid = store.create_run(name="base", tags=["ci"])
    ...     store.add_rows(rid, [{"id": "q1", "f1_score": {"value": 0.5, "reason": "half"}}])
    ...     store.finish_run(rid, summary={"metrics": {"f1_score": {"mean": 0.5}}}, complete=True)
    ...     line = run_line(store.get(rid))
    ...     view = row_view(store, store.get(rid), "q1")
    >>> line["name"], line["status_css"], line["means"]
    ('base', 'good', [('f1_score', '0.5')])
    >>> view["position"], view["metrics"][0]["value"], view["metrics"][0]["reason"]
    (1, 0.5, 'half')
"""

from __future__ import annotations

import html
import math
import re
from collections.abc import Callable, Mapping
from dataclasses import asdict
from functools import lru_cache
from pathlib import Path
from typing import Any
from urllib.parse import quote

from ..costs import usd_text
from ..injection import describe
from ..metrics import row_notes
from ..records import RunData
from ..report import (
    JOB_KINDS,
    RunStats,
    arena_headline,
    find_dataset,
    fmt,
    job_exchanges,
    job_headline,
    job_inputs,
    job_row_notes,
    language_mark,
    load_inputs,
    metric_names,
    metric_views,
    pretty_json,
    row_input_parts,
    scale_of,
    value_css,
)
from ..store import RunInfo, Store

__all__ = ["add_links", "json_safe", "page_inputs", "row_href", "row_view", "run_data",
           "run_inputs", "run_json", "run_line", "run_meta"]

#: Metric means shown per run in the list (the rest are counted).
MEANS_SHOWN = 4
_STATUS_CSS = {"complete": "good", "interrupted": "bad", "running": "warn"}


def row_href(run_id: str, row_id: str) -> str:
    """The URL path of one row's page (the row id quoted, ``/`` included).

    Example:
        >>> row_href("20261121-201500-3fa2", "q 1/a?")
        '/runs/20261121-201500-3fa2/rows/q%201%2Fa%3F'
    """
    return f"/runs/{quote(run_id, safe='')}/rows/{quote(row_id, safe='')}"


def run_line(info: RunInfo) -> dict[str, Any]:
    """One run of the runs list: its facts, formatted, and its first metric means."""
    metrics = (info.summary or {}).get("metrics") or {}
    if info.kind == "arena":  # its pairwise mean depends on which system filled which field
        metrics = {}
    means = [(str(name), fmt(agg.get("mean") if isinstance(agg, Mapping) else None))
             for name, agg in list(metrics.items())[:MEANS_SHOWN]]
    dataset = info.dataset or ""
    return {
        "id": info.id, "name": info.name or "", "kind": info.kind, "status": info.status,
        "status_css": _STATUS_CSS.get(info.status, ""),
        "created": info.created[:19].replace("T", " "), "rows": info.rows,
        "dataset": dataset, "dataset_short": Path(dataset).name if dataset else "",
        "judge": info.judge or "", "tags": list(info.tags), "means": means,
        "more": max(len(metrics) - MEANS_SHOWN, 0),
        "headline": (arena_headline(info.summary) if info.kind == "arena"  # its top system
                     else job_headline(info.kind, info.summary)),  # what a producer run gave
        **_cost_cell(info.summary),
    }


def _cost_cell(summary: Mapping[str, Any] | None) -> dict[str, str]:
    """The runs list's cost cell: the run's total (``unknown``, with why as its title, where
    a price is), blank for a run recorded before costs were.

    Example:
        >>> _cost_cell({"cost": {"usd": None, "unknown_reason": "no price for 'm'"}})
        {'cost': 'unknown', 'cost_title': "no price for 'm'"}
        >>> _cost_cell({})
        {'cost': '', 'cost_title': ''}
    """
    cost = (summary or {}).get("cost")
    if not isinstance(cost, Mapping):
        return {"cost": "", "cost_title": ""}
    return {"cost": usd_text(cost.get("usd")),
            "cost_title": str(cost.get("unknown_reason") or cost.get("source") or "")}


def json_safe(value: Any) -> Any:
    """``value`` with every non-finite float replaced by None, so it is valid JSON.

    Example:
        >>> json_safe({"a": [1.0, float("nan")], "b": float("inf")})
        {'a': [1.0, None], 'b': None}
    """
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, Mapping):
        return {str(k): json_safe(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [json_safe(v) for v in value]
    return value


def run_json(info: RunInfo) -> dict[str, Any]:
    """A stored run's metadata for the JSON API, with the URLs of its page and its JSON."""
    return {**json_safe(asdict(info)), "url": f"/runs/{info.id}", "api": f"/api/runs/{info.id}"}


def run_meta(info: RunInfo) -> dict[str, Any]:
    """The ``meta`` of a ``RunData`` for a stored run (as ``assay.records.load_run`` fills it)."""
    return {"name": info.name, "dataset": info.dataset, "judge": info.judge,
            "status": info.status, "created": info.created, "tags": list(info.tags),
            "kind": info.kind, "dataset_sha256": info.dataset_sha256,
            "metrics": dict(info.metrics), "prompt_sha256": dict(info.prompt_sha256)}


def run_data(store: Store, info: RunInfo) -> RunData:
    """The whole stored run as the comparison reads it (as ``assay.records.load_run`` builds it,
    but never mistaking a run id for a path)."""
    return RunData(id=info.id, summary=dict(info.summary or {}), records=store.rows(info.id),
                   meta=run_meta(info))


@lru_cache(maxsize=8)
def _read_inputs(path: str, _mtime_ns: int, _size: int, mapping: tuple[tuple[str, str], ...]
                 ) -> tuple[dict[str, dict[str, Any]] | None, str | None]:
    return load_inputs(path, mapping=dict(mapping) or None)


def run_inputs(info: RunInfo) -> tuple[dict[str, dict[str, Any]] | None, str | None]:
    """The inputs of the run's rows from the dataset file it recorded (read with the column
    mapping it used), or ``(None, why not)``. A file is read again only once it changes."""
    dataset = (info.summary or {}).get("dataset") or info.dataset
    mapping = (info.settings or {}).get("mapping")
    pairs = tuple(sorted((str(k), str(v)) for k, v in mapping.items())) \
        if isinstance(mapping, Mapping) else ()
    path = find_dataset(dataset)
    if path is None:
        return load_inputs(dataset, mapping=dict(pairs) or None)
    stat = path.stat()
    return _read_inputs(str(path), stat.st_mtime_ns, stat.st_size, pairs)


def page_inputs(store: Store, info: RunInfo, row_ids: list[str]
                ) -> tuple[dict[str, dict[str, Any]] | None, str | None]:
    """The inputs of the rows ``row_ids`` of a run: those the run stored beside its rows
    (so no dataset file is needed), else, for runs recorded before inputs were stored, from
    the dataset file the run recorded (``run_inputs``)."""
    stored = store.inputs(info.id, row_ids) if row_ids else {}
    if stored:
        return {str(k): dict(v) for k, v in stored.items()}, None
    return run_inputs(info)


def _value_css(value: float | None, name: str, stats: RunStats | None) -> str:
    """``v-good`` / ``v-mid`` / ``v-bad`` as the report colours a value on its scale."""
    if value is None:
        return "unscored"
    counts = stats.metrics[name].counts if stats and name in stats.metrics else {value: 1}
    return value_css(value, scale_of(name, list(counts)))


def row_view(store: Store, info: RunInfo, row_id: str, *, stats: RunStats | None = None,
             inputs: Mapping[str, Mapping[str, Any]] | None = None) -> dict[str, Any] | None:
    """Everything the page of row ``row_id`` of a stored run shows, or None when there is no
    such row: its position, neighbours, inputs, and per metric the value, reason, error and
    details (as the report's detail panel lays them out). It reads the row and its two
    neighbours, not the run; ``stats`` (the whole run's, see ``StatsCache``) places a value
    on its metric's scale."""
    found = store.row_at(info.id, row_id)
    if found is None:
        return None
    k, rec = found
    around = store.rows_page(info.id, offset=max(k - 1, 0), limit=3)
    ids = [str(r.get("id")) for r in around]
    at = ids.index(row_id) if row_id in ids else 0
    names = [n for n in (stats.names if stats else []) if n in rec]
    names += [n for n in metric_names(info.summary or {}, [rec]) if n not in names]
    row_inputs = inputs.get(row_id) if inputs is not None else None
    if row_inputs is None and info.kind in JOB_KINDS:  # a producer's row is its own input
        row_inputs = job_inputs(rec)
    parts = row_input_parts(row_inputs, rec, names=names)
    metrics = metric_views(rec, names, lambda name, value: _value_css(value, name, stats),
                           conversation=parts["conversation"])
    return {
        "id": row_id, "position": k + 1, "total": info.rows,
        "prev": ids[at - 1] if at > 0 else None,
        "next": ids[at + 1] if at + 1 < len(ids) else None,
        "metrics": metrics, **parts,
        "notes": row_notes(rec),  # each metric family's note on the row (e.g. diagnosis)
        "injection": describe(rec.get("injection")),
        "injection_language": language_mark(rec),
        "raw": pretty_json(rec),
        "facts": job_row_notes(info.kind, rec),  # a producer row's stop reason, outcome...
        "exchanges": job_exchanges(rec) if info.kind == "attack" else [],
        "record": rec,  # the stored record itself, for pages that read more of it
    }


_HEADER = re.compile(r'<header class="top">\s*')
_DETAIL = re.compile(r'<article class="detail" id="detail-(\d+)"[^>]*>\s*<h3>.*?</h3>', re.DOTALL)


def add_links(page: str, *, nav: Mapping[str, str],
              row_link: Callable[[int], str | None] | None = None) -> str:
    """A report page with a navigation bar (``{label: href}``) at the top of its header and,
    with ``row_link``, a link to each row's own page in its detail panel (``row_link(i)``: the
    href for the report's ``i``-th row). Only plain links are added: no script, no style, so
    the report's Content-Security-Policy holds as it is. A page without the expected markup
    is returned unchanged.

    Example:
        >>> page = '<body><header class="top">\\n<h1>x</h1></header>' \\
        ...        '<article class="detail" id="detail-0" hidden>\\n<h3>q1</h3>\\n</article>'
        >>> print(add_links(page, nav={"All runs": "/"}, row_link=lambda i: f"/r/{i}"))
        ... # doctest: +NORMALIZE_WHITESPACE
        <body><header class="top">
        <nav class="serve"><a href="/">All runs</a></nav>
        <h1>x</h1></header><article class="detail" id="detail-0" hidden>
        <h3>q1</h3><p class="permalink"><a class="row-page" href="/r/0">Open as its own
        page</a></p>
        </article>
    """
    bar = "".join(f'<a href="{html.escape(href)}">{html.escape(label)}</a>'
                  for label, href in nav.items())
    page = _HEADER.sub(lambda m: f'{m.group(0)}<nav class="serve">{bar}</nav>\n', page, count=1)
    if row_link is None:
        return page

    def link(m: re.Match[str]) -> str:
        href = row_link(int(m.group(1)))
        if href is None:
            return m.group(0)
        return (f'{m.group(0)}<p class="permalink"><a class="row-page" href="{html.escape(href)}">'
                "Open as its own page</a></p>")

    return _DETAIL.sub(link, page)
