"""``assay calibrate DATA --metric NAME``: agreement of a judge metric with human ratings.

Example:
    >>> callable(calibrate)
    True
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.markup import escape

from ..calibration import calibrate as run_calibration
from ..calibration import comparison_table
from ..calls import DEFAULT_TIMEOUT
from ..data import parse_mapping
from ..errors import AssayError
from ..metrics import Metric
from ..metrics.custom import load_metric_file
from ..run import ScoringOptions
from ._call_flags import (
    DEFAULT_MAX_ATTEMPTS,
    CacheOption,
    ConcurrencyOption,
    MaxAttemptsOption,
    NoCacheOption,
    RpmOption,
    TpmOption,
    call_options,
)
from ._errors import exit_on_errors
from ._options import (
    DEFAULT_MAX_WAIT,
    MaxWaitOption,
    NoStoreOption,
    StoreOption,
    TimeoutOption,
    store_arg,
)

__all__ = ["calibrate"]

err = Console(stderr=True)
#: The scoring flags' defaults: the settings' declared defaults, through ScoringOptions.
_SCORING = ScoringOptions()


def calibrate(
    data: Annotated[Path, typer.Argument(
        help="Rated dataset: the metric's inputs plus {metric}/human_rating or "
             "{metric}/human_pairwise_choice.")],
    metric: Annotated[str | None, typer.Option(
        help="A built-in 1-5 judge metric, e.g. groundedness. Or use --metric-file.")] = None,
    metric_file: Annotated[list[Path] | None, typer.Option(
        "--metric-file", help="A custom metric file; give two to compare prompts.")] = None,
    judge: Annotated[list[str] | None, typer.Option(
        help="Judge to calibrate (repeat to compare judges side by side). Default: local.")
    ] = None,
    out: Annotated[Path | None, typer.Option(
        help="Output directory (calibration.json, confusion-matrix and reliability-curve "
             "PNGs, per-judge results). "
             "Default: assay-out/calibrate-<data name>.")] = None,
    lang: Annotated[str, typer.Option(help="Rubric language: en or zh.")] = _SCORING.lang,
    style: Annotated[str, typer.Option(help="auto, rating or verdict (as in assay run).")] =
        _SCORING.style,
    map_: Annotated[list[str] | None, typer.Option(
        "--map", help="FIELD=COLUMN for other column names.")] = None,
    concurrency: ConcurrencyOption = None,
    timeout: TimeoutOption = DEFAULT_TIMEOUT,
    max_attempts: MaxAttemptsOption = DEFAULT_MAX_ATTEMPTS,
    max_wait: MaxWaitOption = DEFAULT_MAX_WAIT,
    tpm: TpmOption = None,
    rpm: RpmOption = None,
    cache: CacheOption = None,
    no_cache: NoCacheOption = False,
    no_swap: Annotated[bool, typer.Option(
        "--no-swap", help="Pairwise metrics: judge one order only.")] = False,
    tie_margin: Annotated[float | None, typer.Option(
        min=0.0, max=1.0, help="Pairwise metrics: a TIE when the judge's averaged P(candidate "
                               "better) and P(baseline better) differ by less than this "
                               "(default: the metric file's tie_margin, else 0).")] = None,
    store: StoreOption = None,
    no_store: NoStoreOption = False,
) -> None:
    """Run the metric on every rated row with each judge and print the agreement figures."""
    out_dir = out or Path("assay-out") / f"calibrate-{data.stem}"
    with exit_on_errors(
        "\ninterrupted: judge answers so far are cached; rerun to continue."):
        versions: list[Metric] = [load_metric_file(f, swap=not no_swap, tie_margin=tie_margin)
                                  for f in metric_file or []]
        if metric and versions:
            raise AssayError("Give --metric or --metric-file, not both.")
        if not metric and not versions:
            raise AssayError("Name the metric to calibrate: --metric NAME (built-in) or "
                             "--metric-file FILE (custom).")
        result = run_calibration(
            data, metric=versions or metric or "", judges=judge or ["local"], out=out_dir,
            mapping=parse_mapping(map_ or []), lang=lang, style=style,
            calls=call_options(concurrency=concurrency, timeout=timeout,
                               max_attempts=max_attempts, max_wait=max_wait, tpm=tpm, rpm=rpm,
                               cache=cache, no_cache=no_cache), store=store_arg(store, no_store))
    Console().print(comparison_table(result.reports,
                                     title=f"assay calibrate: {result.metric} vs humans"))
    for name, report in result.reports.items():
        labels = [str(x) for x in report["labels"]]
        matrix = report["confusion_matrix"]
        width = max(len(x) for x in labels + ["human"]) + 1
        lines = [f"confusion matrix, {name} (rows: human, columns: judge)",
                 " " * width + " ".join(f"{x:>{width}}" for x in labels)]
        lines += [f"{lab:<{width}}" + " ".join(f"{n:>{width}}" for n in row)
                  for lab, row in zip(labels, matrix)]
        Console().print("\n".join(lines), highlight=False, markup=False)
        curve = report.get("reliability") or {}
        if curve.get("bins"):
            head = (f"reliability, {name} (bins of the {curve.get('x')}: n, judge mean, "
                    "human mean)")
            rows = [head]
            rows += [f"  {b['label']:<12} n={b['n']:<5} judge {b['judge_mean']:.3g}  human "
                     f"{b['human_mean']:.3g}" for b in curve["bins"]]
            Console().print("\n".join(rows), highlight=False, markup=False)
    err.print("files: " + ", ".join(str(p) for p in result.files.values()), highlight=False,
              markup=False)
    # A judge that scored no rated row because its calls failed or its answers could not be
    # read gives no figures: not a pass.
    lost = {name: r for name, r in result.reports.items()
            if not r.get("n_compared") and (r.get("failed_calls") or r.get("unreadable"))}
    for name, r in lost.items():
        err.print(f"[red]judge failed:[/red] {escape(name)} scored none of the rated rows: "
                  f"{r.get('unreadable', 0)} judge answers could not be read, "
                  f"{r.get('failed_calls', 0)} calls failed (the reasons are in its "
                  f"results.jsonl under {escape(str(out_dir))}); exit 3.",
                  highlight=False, soft_wrap=True)
    if lost:
        raise typer.Exit(3)
