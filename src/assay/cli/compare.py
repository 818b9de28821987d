"""``assay compare RUN_A RUN_B`` (or ``assay compare --baseline RUN_A RUN_B``): two runs side
by side, with optional ``--max-drop`` verdicts.

Run A is the baseline and run B the candidate: every difference is B - A. Exit codes: 0 when
every ``--max-drop`` bar passes, 1 when one fails, 3 when one is inconclusive (see
``--inconclusive``), 2 on a usage or data error.

Example:
    >>> callable(compare)
    True
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer
from rich import box
from rich.console import Console
from rich.markup import escape
from rich.table import Table
from rich.text import Text

from ..compare import (
    check_comparable,
    check_margins,
    compare_attack_runs,
    compare_runs,
    decide_drops,
    with_verdicts,
)
from ..costs import cost_diff_line, usd_delta_text
from ..errors import AssayError, ConfigError
from ..gate import BarOutcome, parse_bars
from ..records import RunData, load_run
from ..store import open_store
from ._ci_outputs import JunitOption, MarkdownOption, write_ci_outputs
from ._compare_attacks import print_attack_comparison
from ._errors import exit_on_errors
from ._format import percent
from ._json_out import JSON_PATH_HELP, to_stdout, write_json
from ._options import StoreOption, comma_names
from ._prices_flag import PricesOption, check_prices_flag
from ._verdict import (
    ConfidenceOption,
    InconclusiveOption,
    MaxDropOption,
    print_verdicts,
    verdict_exit_code,
)

__all__ = ["compare", "print_comparison", "print_warnings", "with_store_provenance"]

err = Console(stderr=True)

#: Reasons are clipped to this many characters in the table of changed rows.
REASON_CHARS = 80


def compare(
    run_a: Annotated[Path | None, typer.Argument(
        show_default=False, help="Baseline run: a stored run id (or unique prefix, or "
        "latest) or an `assay run --out` directory; with --baseline, the candidate run.")] = None,
    run_b: Annotated[Path | None, typer.Argument(
        show_default=False, help="Candidate run: a stored run id or an `assay run --out` "
        "directory.")] = None,
    baseline: Annotated[Path | None, typer.Option(
        "--baseline", help="The baseline run; then give only the candidate run as argument.")
    ] = None,
    max_drop: MaxDropOption = None,
    top: Annotated[int, typer.Option(min=0, help="How many most-changed rows to list.")] = 10,
    json_out: Annotated[Path | None, typer.Option(
        "--json", "--json-out", help="Also write the comparison as JSON to this file; "
        + JSON_PATH_HELP)] = None,
    n_boot: Annotated[int, typer.Option(
        min=1, help="Bootstrap resamples for the 95% intervals.")] = 2000,
    metrics: Annotated[str | None, typer.Option(
        help="Metrics to compare, a,b,c. Default: every metric both runs have.")] = None,
    store: StoreOption = None,
    confidence: ConfidenceOption = 0.95,
    inconclusive: InconclusiveOption = "exit",
    junit: JunitOption = None,
    markdown: MarkdownOption = None,
    prices: PricesOption = None,
) -> None:
    """Compare two runs row by row: means, paired difference with a 95% bootstrap interval
    (beyond noise when it excludes 0), defect rates, and the rows whose scores changed most.
    Two attack runs (assay jailbreak --strategy crescendo|pair): success and plain defect
    rates per category with 95% intervals, and their difference. With --max-drop, a verdict
    per bar: pass, fail or inconclusive; exit 0, 1 or 5 (see --inconclusive)."""
    outcomes: list[BarOutcome] = []
    with exit_on_errors("interrupted"):
        path_a, path_b = _two_runs(run_a, run_b, baseline)
        bars = parse_bars(max_drop or [], "max_drop")
        check_margins(bars, confidence=confidence)
        chosen = comma_names(metrics) if metrics else None
        book = check_prices_flag(prices)
        run_a_data, run_b_data = load_run(path_a, store or True), load_run(path_b, store or True)
        attacks = check_comparable(run_a_data, run_b_data) == "attack"
        if attacks and (bars or chosen):
            raise ConfigError(f"Got {'--max-drop' if bars else '--metrics'} with two attack "
                              "runs: they compare success rates, not metric means. Fix: drop "
                              "the option.")
        if attacks:
            comparison = compare_attack_runs(run_a_data, run_b_data)
        else:
            with_store_provenance([run_a_data, run_b_data], store)
            comparison = compare_runs(run_a_data, run_b_data, metrics=chosen, n_boot=n_boot,
                                      top=top, prices=book)
            outcomes = decide_drops(comparison, bars, confidence=confidence)
            if bars:
                comparison = with_verdicts(comparison, outcomes)
        if json_out is not None:
            write_json(comparison, json_out)
    if attacks:
        print_attack_comparison(comparison, err if to_stdout(json_out) else None)
    else:
        print_comparison(comparison, err if to_stdout(json_out) else None)
    print_warnings(comparison)
    if json_out is not None and not to_stdout(json_out):
        err.print(f"comparison: {json_out}", highlight=False, markup=False)
    print_verdicts(outcomes, err, confidence=confidence)
    # the CI outputs, whatever the verdict
    write_ci_outputs(outcomes, junit=junit, markdown=markdown, suite="compare",
                     title=f"assay compare {_short(comparison['a']['id'])} -> "
                           f"{_short(comparison['b']['id'])}",
                     defects=None if attacks else comparison.get("defects"))
    if code := verdict_exit_code(outcomes, inconclusive):
        raise typer.Exit(code)


def with_store_provenance(runs: list[RunData], store: str | None) -> None:
    """Add each run's stored record (dataset sha256, metric versions, prompt sha256s) to its
    ``meta`` when the run store has it: a stored run by its id, an ``--out`` directory by the
    ``run_id`` its summary.json names. Runs the store does not know are left as they are."""
    wanted = [(run, run.summary.get("run_id") or run.id) for run in runs
              if "dataset_sha256" not in run.meta
              and (run.summary.get("run_id") or "status" in run.meta)]
    if not wanted:
        return
    try:
        with open_store(store) as opened:
            for run, ref in wanted:
                try:
                    info = opened.get(str(ref))
                except AssayError:
                    continue
                if info.id == str(ref):  # exact: a directory name is not an id prefix
                    run.meta.update({"dataset_sha256": info.dataset_sha256,
                                     "metrics": dict(info.metrics),
                                     "prompt_sha256": dict(info.prompt_sha256)})
                    for key in ("judge", "dataset"):
                        run.meta[key] = run.meta.get(key) or getattr(info, key)
    except AssayError:
        return  # no store to read: compare with what the runs themselves recorded


def print_warnings(comparison: dict[str, Any]) -> None:
    """One yellow line on stderr per fact that differs between the runs."""
    for warning in comparison.get("warnings") or []:
        err.print(f"[yellow]warning:[/yellow] {escape(warning['message'])}", highlight=False,
                  soft_wrap=True)


def _two_runs(run_a: Path | None, run_b: Path | None,
              baseline: Path | None) -> tuple[Path, Path]:
    """(baseline, candidate) from ``A B`` or ``--baseline A B``."""
    given = [p for p in (baseline, run_a, run_b) if p is not None]
    if len(given) == 2:
        return given[0], given[1]
    raise ConfigError(
        f"Got {len(given)} run{'s' if len(given) != 1 else ''} "
        f"({', '.join(map(str, given)) or 'none'}). Must be two: the baseline and the "
        "candidate. Fix: `assay compare RUN_A RUN_B` or `assay compare --baseline RUN_A RUN_B`.")


def _short(run_id: object) -> str:
    """A run as the CI outputs name it: a stored run's id, an ``--out`` folder's name."""
    return Path(str(run_id)).name or str(run_id)


def _num(x: float | None, signed: bool = False) -> str:
    if x is None:
        return "-"
    return f"{x:+.3f}" if signed else f"{x:.3f}"


def _noise(beyond: bool | None) -> str:
    """The diff's marker: ``*`` beyond noise (its interval excludes 0), else a space (within
    noise, or no interval under 2 paired rows), so the numbers stay aligned."""
    return "*" if beyond else " "


def _clip(text: str | None, chars: int = REASON_CHARS) -> Text:
    """One line of at most ``chars`` characters (an ellipsis marks a cut)."""
    if not text:
        return Text("-")
    text = " ".join(text.split())
    return Text(text if len(text) <= chars else text[:chars - 1] + "…")


def print_comparison(comparison: dict[str, Any], console: Console | None = None) -> None:
    """Print the metric table, the defect table and the most-changed rows on ``console``
    (default: stdout)."""
    out = console or Console()
    a, b = comparison["a"], comparison["b"]
    out.print(Text(f"A (baseline): {a['id']} ({a['rows']} rows)\n"
                   f"B (candidate): {b['id']} ({b['rows']} rows)\n"
                   f"{comparison['shared_rows']} rows in both (paired by id)"))
    table = Table(title="metrics: diff = mean of B - A over rows scored in both; unscored: A/B",
                  caption="* beyond noise: the diff's 95% CI excludes 0",
                  box=box.SIMPLE_HEAD, show_edge=False)
    # metric names stay whole; on a narrow terminal the figures wrap, never end in "…"
    cost = comparison.get("cost")
    for col in ("metric", "mean A", "mean B", "diff", "95% CI", "paired", "unscored",
                *(["cost diff"] if cost else [])):
        table.add_column(col, justify="left" if col == "metric" else "right",
                         no_wrap=col == "metric", overflow="fold")
    for name, m in comparison["metrics"].items():
        ci = m["ci95"]
        spent = (cost or {}).get("by_metric", {}).get(name)
        table.add_row(Text(name), _num(m["mean_a"]), _num(m["mean_b"]),
                      _num(m["diff"], True) + _noise(m.get("beyond_noise")),
                      "-" if ci is None else f"[{ci[0]:+.3f}, {ci[1]:+.3f}]", str(m["paired"]),
                      f"{m['unscored_a']}/{m['unscored_b']}",
                      *([usd_delta_text(spent["usd_b"], spent["usd_a"]) if spent else "$0"]
                        if cost else []))
    out.print(table)
    if cost:
        out.print(Text(cost_diff_line(cost)))
    if comparison["defects"]:
        defects = Table(title="safety defect rates", box=box.SIMPLE_HEAD, show_edge=False)
        for col in ("category", "threshold", "rate A", "rate B", "diff"):
            defects.add_column(col, justify="left" if col in ("category", "threshold") else "right")
        for cat, d in comparison["defects"].items():
            defects.add_row(Text(cat), Text(str(d["threshold"])), percent(d["rate_a"]),
                            percent(d["rate_b"]), percent(d["diff"], signed=True))
        out.print(defects)
    if comparison["changed"]:
        out.print(_changed_table(comparison["changed"], out.width))


def _changed_table(changed: list[dict[str, Any]], width: int) -> Table:
    """The most-changed rows; each reason clipped to what the terminal leaves (at most
    ``REASON_CHARS``), so the table stays one line per row."""
    cells = [(str(r["id"]), r["metric"], f"{r['a']:g} -> {r['b']:g}", f"{r['delta']:+g}")
             for r in changed]
    heads = ("id", "metric", "A -> B", "delta")
    used = sum(max(len(h), *(len(c[i]) for c in cells)) + 3 for i, h in enumerate(heads))
    room = max(12, min(REASON_CHARS, (width - used - 7) // 2))
    table = Table(title="rows that changed most")
    for head in heads:
        table.add_column(head, justify="right" if head == "delta" else "left", no_wrap=True)
    for head in ("reason A", "reason B"):
        table.add_column(head, no_wrap=True)
    for c, r in zip(cells, changed, strict=True):
        table.add_row(*(Text(x) for x in c), _clip(r["reason_a"], room), _clip(r["reason_b"], room))
    return table
