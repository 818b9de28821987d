"""One self-contained HTML file for a run: summary, score distributions, defect rates,
calibration, a sortable and filterable per-row table with a detail panel, and a comparison.

The page makes no network request: styles and the script are inline, charts are inline SVG,
images are data URIs, and a Content-Security-Policy allows nothing else (the script by its
hash). Every piece of data is escaped by jinja2's autoescape; the script never parses HTML
from data (it only shows, hides and reorders elements), so an answer holding ``</script>`` or
``<!--`` stays text.

Example:
    >>> from assay.records import RunData
    >>> run = RunData(id="runs/demo", summary={"rows": 1, "rows_done": 1, "complete": True,
    ...     "metrics": {"f1_score": {"mean": 0.5, "scored": 1, "unscored": 0}}},
    ...     records=[{"id": "q1", "f1_score": {"value": 0.5, "reason": None, "error": None,
    ...                                        "details": {}}}])
    >>> html = render_report(run)
    >>> html.startswith("<!DOCTYPE html>"), "q1" in html, "http://" in html
    (True, True, False)
"""

from __future__ import annotations

import base64
import hashlib
from collections.abc import Mapping, Sequence
from importlib import resources
from typing import Any

import jinja2
from markupsafe import Markup

from ..costs import cost_line
from ..injection import describe
from ..metrics import row_notes, summary_notes, summary_tables
from ..records import RunData, latency_line, metric_latency_line
from ._arena_view import arena_view
from ._calibration_view import calibration_view
from ._charts import distribution_chart, pairwise_word
from ._comparison_view import comparison_view, report_sides
from ._defect_chart import defect_rates_chart
from ._jobs import JOB_KINDS, job_exchanges, job_inputs, job_row_notes, job_summary
from ._model import (
    Scale,
    fmt,
    metric_names,
    scale_of,
    table_view,
    template_environment,
    value_css,
    value_of,
)
from ._row import metric_views, row_input_parts
from ._skipped import skipped_traces
from ._stats import MetricStats, Pager, RunStats

__all__ = ["render_report"]

def _environment() -> jinja2.Environment:
    return template_environment("assay.report")


def _static(name: str) -> str:
    return (resources.files("assay.report") / "templates" / name).read_text(encoding="utf-8")


def render_report(run: RunData, *, inputs: Mapping[str, Mapping[str, Any]] | None = None,
                  comparison: Mapping[str, Any] | None = None, other: RunData | None = None,
                  calibration: Mapping[str, Any] | None = None, title: str | None = None,
                  inputs_note: str | None = None, stats: RunStats | None = None,
                  pager: Pager | None = None) -> str:
    """The HTML report of ``run`` as one string.

    Args:
        run: the run (e.g. from :func:`assay.records.load_run_dir`).
        inputs: ``{row id: {question, context, contexts, answer, ground_truth, messages,
            extra}}`` for the detail panel (see :func:`assay.report.load_inputs`); without it
            the panel shows ``inputs_note`` (or a generic line) instead.
        comparison: a comparison of two runs (from ``assay.compare.compare_runs``); ``run`` is
            the side whose ``id`` matches, else side ``b``.
        other: the other run of the comparison: its values and reasons join the detail panel.
        calibration: a ``calibration.json`` dict (``{"metric", "reports": {name: stats}}``):
            each report's figures, confusion matrix and reliability curve are shown.
        title: the page title (default: ``assay report: <run id>``).
        inputs_note: why inputs are missing, shown instead of them.
        stats: the statistics of every row of the run, when ``run.records`` holds only some
            of them (one page): the summary, distributions and unscored reasons come from
            ``stats``, the row table from ``run.records``. Default: computed from the records.
        pager: which rows of the run ``run.records`` are, with links to the other pages.
    """
    records = list(run.records)
    summary = dict(run.summary or {})
    if stats is None:
        stats = RunStats.of(summary, records)
    names = list(stats.names)
    names += [n for n in metric_names({}, records) if n not in stats.metrics]
    side, other_label = report_sides(run, comparison, other)
    other_by_id = {str(r.get("id")): r for r in other.records} if other else {}
    kind = str(run.meta.get("kind") or "run")
    job = job_summary(kind, summary)
    if job is not None and inputs is None:  # a producer's row is its own input
        inputs = {str(r.get("id")): job_inputs(r) for r in records}
        inputs_note = None
    if inputs is None and inputs_note is None:
        inputs_note = "Inputs are not shown: no dataset was given to the report."

    pairwise = _pairwise_names(summary, records, names)
    metrics = [_metric_view(name, summary, stats.metrics.get(name) or MetricStats(),
                            pairwise=name in pairwise) for name in names]
    scales = {m["name"]: m["scale"] for m in metrics}
    rows = []
    for i, rec in enumerate(records):
        rid = str(rec.get("id"))
        rows.append(_row_view(i, rid, rec, names, scales, pairwise,
                              None if inputs is None else inputs.get(rid),
                              other_by_id.get(rid), other_label))
        rows[-1]["exchanges"] = job_exchanges(rec) if kind == "attack" else []
        if kind in JOB_KINDS:
            rows[-1]["notes"] = {h: {"text": text, "detail": detail}
                                 for h, (text, detail) in job_row_notes(kind, rec).items()}
    index = {r["id"]: r["i"] for r in rows}

    script = _static("report.js")
    csp_hash = base64.b64encode(hashlib.sha256(script.encode("utf-8")).digest()).decode()
    context = {
        "title": title or f"assay report: {run.id}",
        "run": _run_view(run, summary, stats.rows),
        "metrics": metrics,
        "tables": [table_view(t) for t in summary_tables(summary)],  # e.g. defect rates
        "defect_chart": defect_rates_chart(summary),
        "job": job,  # a generate, simulate or attack run: its own summary, not metrics
        "arena": arena_view(summary, records),  # an arena run's board, None for others
        "calibration": calibration_view(calibration) if calibration else None,
        "rows": rows,
        "note_columns": _note_columns(stats.note_columns, rows),
        "pager": pager,
        "has_inputs": inputs is not None,
        "inputs_note": inputs_note,
        "comparison": (comparison_view(comparison, run, other, side, index)
                       if comparison else None),
        "style": Markup(_static("report.css")),
        "script": Markup(script),
        "csp": f"default-src 'none'; img-src data:; style-src 'unsafe-inline'; "
               f"script-src 'sha256-{csp_hash}'; base-uri 'none'; form-action 'none'",
    }
    return _environment().get_template("report.html.j2").render(context)


# ---------------------------------------------------------------- summary and distributions


def _note_columns(found: Sequence[str], rows: Sequence[Mapping[str, Any]]) -> list[str]:
    """The row notes' headings: those found over the run, then any only on this page."""
    columns = list(found)
    for row in rows:
        columns += [h for h in row["notes"] if h not in columns]
    return columns


def _run_view(run: RunData, summary: Mapping[str, Any], rows: int) -> dict[str, Any]:
    judge = summary.get("judge")
    judge = judge if isinstance(judge, Mapping) else ({"id": judge} if judge else {})
    judge_stats = ", ".join(f"{k.replace('_', ' ')} {fmt(judge[k])}" for k in
                            ("requests", "cache_hits", "prompt_tokens", "processed_prompt_tokens",
                             "completion_tokens", "retries", "failed") if judge.get(k) is not None)
    emb = summary.get("embeddings")
    return {
        "id": run.id,
        "dataset": summary.get("dataset") or run.meta.get("dataset"),
        "judge": judge.get("id") or run.meta.get("judge"),
        "judge_stats": judge_stats,
        "cost": cost_line(summary.get("cost")),  # total and per metric; unknown with why
        "latency": latency_line(summary.get("latency")),  # none for runs made before it was
        "metric_latency": metric_latency_line(summary.get("latency")),
        "embeddings": emb.get("id") if isinstance(emb, Mapping) else emb,
        "rows": summary.get("rows"),
        "rows_done": summary.get("rows_done", rows),
        "complete": summary.get("complete"),
        "elapsed": summary.get("elapsed_s"),
        "lang": summary.get("lang"),
        "skipped": [str(s) for s in summary.get("skipped") or []],
        "kind": run.meta.get("kind"), "status": run.meta.get("status"),
        "skipped_traces": skipped_traces(summary),  # a watch's traces that gave no row
        "notes": summary_notes(summary),  # each metric family's lines (safety, diagnosis)
        "injection": _injection_line(summary.get("injection")),
        "injection_language": unknown_language_line(summary.get("injection")),
    }


def _injection_line(found: object) -> str | None:
    """The summary's injection count as one line, None when no row was flagged."""
    if not isinstance(found, Mapping) or not found.get("flagged_rows"):
        return None
    kinds = ", ".join(f"{k} {n}" for k, n in (found.get("kinds") or {}).items())
    return (f"{found['flagged_rows']} row(s) address the evaluator ({kinds}); "
            f"--on-injection {found.get('mode')}")


def unknown_language_line(found: object) -> str | None:
    """The summary's rows judged in a language the injection detector does not know, as one
    line; None when there were none.

    Example:
        >>> unknown_language_line({"unknown_language": {"rows": 3, "languages": {"th": 2,
        ...                                                                     "sw": 1}}})
        '3 row(s) have a judged text in a language the injection detector does not know (th 2, sw 1): the defence is thinner there'
        >>> unknown_language_line({"flagged_rows": 0}) is None
        True
    """
    unknown = found.get("unknown_language") if isinstance(found, Mapping) else None
    if not isinstance(unknown, Mapping) or not unknown.get("rows"):
        return None
    langs = ", ".join(f"{k} {n}" for k, n in (unknown.get("languages") or {}).items())
    return (f"{unknown['rows']} row(s) have a judged text in a language the injection detector "
            f"does not know ({langs}): the defence is thinner there")


def language_mark(record: Mapping[str, Any]) -> str | None:
    """A row's ``injection_language`` (``{field: language}``) as one line, or None.

    Example:
        >>> language_mark({"injection_language": {"answer": "th"}})
        'answer in th, a language the injection detector does not know'
    """
    langs = record.get("injection_language")
    if not isinstance(langs, Mapping) or not langs:
        return None
    return (", ".join(f"{field} in {lang}" for field, lang in langs.items())
            + ", a language the injection detector does not know")


def _pairwise_names(summary: Mapping[str, Any], records: Sequence[Mapping[str, Any]],
                    names: Sequence[str]) -> set[str]:
    """The pairwise metrics: their aggregate counts choices, or a row's result holds one."""
    aggs = summary.get("metrics") or {}
    found = {n for n in names if isinstance(aggs.get(n), Mapping)
             and ("choices" in aggs[n] or "candidate_win_rate" in aggs[n])}
    for rec in records:
        for n in names:
            result = rec.get(n)
            details = result.get("details") if isinstance(result, Mapping) else None
            if isinstance(details, Mapping) and details.get("choice") in (
                    "CANDIDATE", "BASELINE", "TIE"):
                found.add(n)
    return found


def _metric_view(name: str, summary: Mapping[str, Any], stats: MetricStats, *,
                 pairwise: bool = False) -> dict[str, Any]:
    agg = (summary.get("metrics") or {}).get(name) or {}
    scale = scale_of(name, list(stats.counts))
    mean = agg.get("mean")
    if mean is None:
        mean = stats.mean
    return {
        "name": name,
        "scale": scale,
        "pairwise": pairwise,
        "mean": mean,
        "mean_weighted": agg.get("mean_weighted"), "retest": agg.get("retest"),
        "ci95": agg.get("ci95") if isinstance(agg.get("ci95"), list) else None,
        "scored": agg.get("scored", stats.scored),
        "unscored": agg.get("unscored", stats.unscored),
        "reasons": stats.reasons,
        "chart": (distribution_chart(name, stats.counts, scale, agg, pairwise=pairwise)
                  if stats.counts else None),
    }


# ---------------------------------------------------------------- rows and details


def _row_view(i: int, rid: str, rec: Mapping[str, Any], names: Sequence[str],
              scales: Mapping[str, Scale], pairwise: set[str], inputs: Mapping[str, Any] | None,
              other: Mapping[str, Any] | None, other_label: str) -> dict[str, Any]:
    cells = []
    for name in names:
        result = rec.get(name)
        value = value_of(rec, name)
        if not isinstance(result, Mapping):
            cells.append({"text": "", "v": "", "css": "absent", "title": "not run on this row"})
            continue
        error = result.get("error")
        na = value is None and str(error or "").startswith("does not apply")
        shown = (pairwise_word(value) or "") if name in pairwise else fmt(value)
        cells.append({"text": ("n/a" if na else "unscored") if value is None else shown,
                      "v": "" if value is None else repr(value), "css": _css(name, value, scales),
                      "title": error or result.get("reason") or ""})
    parts = row_input_parts(inputs, rec, names=names)
    metrics = metric_views(rec, names, lambda name, value: _css(name, value, scales),
                           conversation=parts["conversation"])
    for m in metrics:
        other_result = other.get(m["name"]) if other else None
        m["other"] = ({"label": other_label,
                       "value": value_of({m["name"]: other_result}, m["name"]),
                       "reason": other_result.get("reason"), "error": other_result.get("error")}
                      if isinstance(other_result, Mapping) else None)
    return {"i": i, "id": rid, "cells": cells, "metrics": metrics,
            "notes": {heading: {"text": note.text,
                                "detail": ", ".join(f"{k} {fmt(v)}" for k, v in note.values.items())}
                      for heading, note in row_notes(rec).items()},
            "injection": describe(rec.get("injection")),
            "injection_language": language_mark(rec), **parts}


def _css(name: str, value: float | None, scales: Mapping[str, Scale]) -> str:
    return "unscored" if value is None else value_css(value, scales[name])
