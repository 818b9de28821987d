"""The summary of a run on the terminal: the per-metric table, safety defect rates, pairwise
choices, injection flags, the judge's and embedder's counters, latency per row, and unscored
reasons.

Example:
    >>> callable(print_summary)
    True
"""

from __future__ import annotations

from rich import box
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from ..costs import cost_line
from ..metrics import summary_tables
from ..metrics.safety import THRESHOLDS
from ..records import latency_line
from ._format import percent, prompt_tokens_text

__all__ = ["latency_line", "print_summary", "retest_line"]


def _print_defects(summary: dict) -> None:  # type: ignore[type-arg]
    """The severity metrics' defect rates: at the run's threshold, and at or above each level
    (numbers only: no answer text is printed)."""
    rows = [(name, agg["defects"]) for name, agg in summary["metrics"].items()
            if isinstance(agg.get("defects"), dict) and "rates" in agg["defects"]]
    if not rows:
        return
    threshold = (summary.get("safety") or {}).get("threshold") or rows[0][1]["threshold"]
    mode = (summary.get("safety") or {}).get("mode")
    title = f"safety defects: severity at or above {threshold}" + (f" ({mode})" if mode else "")
    table = Table(title=title, box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False)
    table.add_column("category", no_wrap=True)
    for col in ("rate", *(f">={t.capitalize()}" for t in THRESHOLDS), "scored", "refused",
                "unscored"):
        table.add_column(col, justify="right", no_wrap=True)
    for name, d in rows:
        table.add_row(name, percent(d["defect_rate"]),
                      *(str(d["counts"][t]) for t in THRESHOLDS),
                      str(d["scored"]), str(d.get("refused", 0)), str(d["unscored"]))
    Console().print(table)


def _alpha_text(alpha: float | None) -> str:
    return "-" if alpha is None else f"{alpha:.3f}"


def _print_panel(summary: dict) -> None:  # type: ignore[type-arg]
    """A panel's table (the one the report and the web UI show): per judge, Krippendorff's
    alpha with the panel for each judge metric, its failed rows, requests, tokens and cost;
    last, each metric's alpha across the judges."""
    found = [t for t in summary_tables(summary) if t.key == "panel"]
    if not found:
        return
    *judges, across = found[0].rows
    table = Table(title=f"panel of {len(judges)} judges: Krippendorff's alpha with the panel",
                  box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False)
    # judge ids stay whole; on a narrow terminal the other cells wrap, never end in "…"
    for i, col in enumerate(found[0].columns):
        table.add_column(col, justify="right" if i else "left", no_wrap=not i,
                         overflow="fold")
    for judge, *alphas, failed, requests, tokens, cost in judges:
        table.add_row(escape(str(judge.value)), *(_alpha_text(a.value) for a in alphas),
                      str(failed.value), "-" if requests.value is None else str(requests.value),
                      str(tokens.value), "-" if cost.value is None else f"{cost.value:.4f}")
    _, *alphas, _, _, _, _ = across
    table.add_row("[i]across the judges[/i]", *(_alpha_text(a.value) for a in alphas),
                  "", "", "", "")
    Console().print(table)
    for name, m in ((summary.get("panel") or {}).get("agreement") or {}).items():
        if m.get("alpha_note"):
            Console().print(f"{escape(name)}: alpha {escape(m['alpha_note'])}", highlight=False)


def retest_line(name: str, retest: dict) -> str:  # type: ignore[type-arg]
    """One judge metric's test-retest figures (``--repeat``) as a line of the summary.

    Example:
        >>> retest_line("fluency", {"repeats": 3, "rows": 40, "agreement": 0.625,
        ...                         "within_row_sd": 0.41, "alpha": 0.8123, "unscored_repeats": 2})
        'fluency retest (3 repeats, 40 rows): agreement 62.5%, within-row SD 0.410, alpha 0.812, 2 repeats unscored'
    """
    parts = []
    if retest.get("agreement") is not None:
        parts.append(f"agreement {percent(retest['agreement'])}")
    if retest.get("within_row_sd") is not None:
        parts.append(f"within-row SD {retest['within_row_sd']:.3f}")
    alpha = retest.get("alpha")
    parts.append(f"alpha {alpha:.3f}" if alpha is not None
                 else f"alpha {retest.get('alpha_note') or '-'}")
    if retest.get("unscored_repeats"):
        parts.append(f"{retest['unscored_repeats']} repeats unscored")
    return (f"{name} retest ({retest.get('repeats')} repeats, {retest.get('rows')} rows): "
            + ", ".join(parts))


def print_summary(summary: dict) -> None:  # type: ignore[type-arg]
    """Print the per-metric table, the safety defect rates, and the judge's counters."""
    table = Table(title=f"assay: {summary['rows']} rows, {summary['elapsed_s']:.1f} s")
    for col in ("metric", "mean", "weighted", "scored", "unscored"):
        table.add_column(col, justify="left" if col == "metric" else "right")
    for name, agg in summary["metrics"].items():
        mean = agg.get("mean")
        weighted = agg.get("mean_weighted")
        table.add_row(name, "-" if mean is None else f"{mean:.3f}",
                      "-" if weighted is None else f"{weighted:.3f}",
                      str(agg.get("scored", 0)), str(agg.get("unscored", 0)))
    Console().print(table)
    for name, agg in summary["metrics"].items():
        if isinstance(agg.get("retest"), dict):
            Console().print(retest_line(name, agg["retest"]), highlight=False, markup=False,
                            emoji=False)
    _print_defects(summary)
    for name, agg in summary["metrics"].items():
        if "candidate_win_rate" in agg:
            consistency = agg.get("position_consistency")
            Console().print(
                f"{name} (pairwise): candidate wins {agg['choices']['CANDIDATE']}, baseline "
                f"wins {agg['choices']['BASELINE']}, ties {agg['choices']['TIE']}; position "
                "consistency " + ("-" if consistency is None else f"{consistency:.3f}"),
                highlight=False)
        elif "labels" in agg:
            Console().print(f"{name} labels: " + ", ".join(
                f"{k} {v}" for k, v in agg["labels"].items()), highlight=False)
    injection = summary.get("injection") or {}
    if injection.get("flagged_rows"):
        kinds = ", ".join(f"{k} {n}" for k, n in (injection.get("kinds") or {}).items())
        mode = str(injection.get("mode"))
        done = {"mask": "the judge did not read the flagged sentences",
                "fail": "the judge did not read the flagged sentences",
                "flag": "the judge read them as they are",
                "unscored": "their judge metrics are unscored"}.get(mode, "")
        Console(stderr=True).print(
            f"[yellow]injection suspected: {injection['flagged_rows']} of {summary['rows_done']} "
            f"rows address the evaluator ({escape(kinds)}); {done} (--on-injection "
            f"{escape(mode)}). Each is marked 'injection' in results.jsonl.[/yellow]",
            highlight=False)
    unknown = injection.get("unknown_language") or {}
    if unknown.get("rows"):
        langs = ", ".join(f"{k} {n}" for k, n in (unknown.get("languages") or {}).items())
        Console(stderr=True).print(
            f"[yellow]unknown language: {unknown['rows']} of {summary['rows_done']} rows have a "
            f"judged text in a language the injection detector does not know ({escape(langs)}); "
            "the defence is thinner there. Each is marked 'injection_language' in "
            "results.jsonl.[/yellow]", highlight=False)
    diag = summary.get("diagnosis")
    if diag:
        Console().print("diagnosis (weakest stage per row): " + ", ".join(
            f"{k} {v}" for k, v in diag.items()), highlight=False)
    emb = summary.get("embeddings")
    if emb:
        Console().print(f"embeddings {emb['id']}: {emb['requests']} requests, {emb['texts']} texts, "
                        f"{emb['cache_hits']} cache hits", highlight=False, markup=False,
                        emoji=False)
    judge = summary.get("judge")
    if judge:
        Console().print(
            f"judge {judge['id']}: {judge['requests']} requests, {judge['cache_hits']} cache hits, "
            f"{prompt_tokens_text(judge)} + {judge['completion_tokens']} completion tokens, "
            f"{judge['retries']} retries, {judge['rate_limited']} rate-limited", highlight=False,
            markup=False, emoji=False)
    if (line := cost_line(summary.get("cost"))) is not None:
        Console().print(line, highlight=False, markup=False, emoji=False)
    if (latency := latency_line(summary.get("latency"))) is not None:
        Console().print(latency, highlight=False, markup=False, emoji=False)
    _print_panel(summary)
    silent = {name: agg["without_reason"] for name, agg in summary["metrics"].items()
              if agg.get("without_reason")}
    if silent:
        Console().print("reasons skipped (reasons=auto or never; --reasons always for every "
                        "row): " + ", ".join(f"{k} {n}" for k, n in silent.items()),
                        highlight=False, markup=False, emoji=False)
    for name, agg in summary["metrics"].items():
        for why, n in (agg.get("unscored_reasons") or {}).items():
            Console(stderr=True).print(f"[yellow]{escape(name)}: {n} unscored: "
                                       f"{escape(why)}[/yellow]", highlight=False)
        for note in agg.get("notes") or []:
            Console(stderr=True).print(f"[yellow]{escape(name)}: {escape(str(note))}[/yellow]",
                                       highlight=False)

