"""``assay align DATA --metric-file FILE``: learn on rated train rows how a judge metric
agrees better with people, measure it on held-out rows, write the aligned metric file.

Example:
    >>> callable(align)
    True
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.table import Table

from ..align import FIGURES
from ..align import align as run_alignment
from ..calls import DEFAULT_TIMEOUT
from ..data import parse_mapping
from ..errors import AssayError
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
from ._options import DEFAULT_MAX_WAIT, MaxWaitOption, TimeoutOption, comma_numbers

__all__ = ["align", "alignment_table"]

err = Console(stderr=True)
#: The scoring flags' defaults: the settings' declared defaults, through ScoringOptions.
_SCORING = ScoringOptions()
_NAMES = {"balanced_accuracy": "balanced accuracy", "class_weighted_f1": "weighted F1",
          "spearman": "Spearman", "cohen_kappa": "Cohen's kappa"}


def _number(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.3f}"


def _cell(figure: dict[str, Any]) -> str:
    value, ci = figure.get("value"), figure.get("ci95") or [None, None]
    if value is None:
        return "n/a"
    span = f" [{ci[0]:.2f}, {ci[1]:.2f}]" if ci[0] is not None else ""
    return f"{value:.3f}{span}"


def alignment_table(report: dict[str, Any]) -> Table:
    """Held-out before / after / gain, each with its bootstrap 95% interval.

    Example:
        >>> f = {"value": 0.5, "ci95": [0.3, 0.7]}
        >>> g = {"value": 0.0, "ci95": [-0.2, 0.2], "beyond_noise": False}
        >>> r = {"metric": "m", "heldout": 30, "before": {n: f for n in FIGURES},
        ...      "after": {n: f for n in FIGURES}, "gain": {n: g for n in FIGURES}}
        >>> alignment_table(r).row_count
        4
    """
    table = Table(title=f"assay align: {report['metric']}, held-out rows "
                        f"(n={report['heldout']}), 95% bootstrap CI")
    for column in ("figure", "before", "after", "gain (paired CI)", "beyond noise"):
        table.add_column(column)
    for name in FIGURES:
        gain = report["gain"][name]
        table.add_row(_NAMES[name], _cell(report["before"][name]), _cell(report["after"][name]),
                      _cell(gain), "yes" if gain.get("beyond_noise") else "no")
    return table


def align(
    data: Annotated[Path, typer.Argument(
        help="Rated dataset: the metric's inputs plus {metric}/human_rating.")],
    metric: Annotated[str | None, typer.Option(
        help="A registered custom pointwise metric. Or use --metric-file.")] = None,
    metric_file: Annotated[Path | None, typer.Option(
        "--metric-file", help="The custom pointwise metric file to align.")] = None,
    variant: Annotated[list[Path] | None, typer.Option(
        help="Another wording of the metric (a metric file on the same scale); repeat.")
    ] = None,
    judge: Annotated[str, typer.Option(help="Judge to align (default: the embedded one).")
                     ] = "local",
    out: Annotated[Path | None, typer.Option(
        help="Output directory (<metric>-aligned.md, alignment.json). "
             "Default: assay-out/align-<data name>.")] = None,
    heldout: Annotated[float, typer.Option(
        help="Share of rated rows kept for measuring (0.3-0.8), never used for choosing: "
             "that share of each label's rows, rounded up (so often a few rows more).")
    ] = 0.3,
    seed: Annotated[int, typer.Option(help="Seed of the split, example picks and bootstrap.")
                    ] = 0,
    shots: Annotated[str, typer.Option(
        help="Few-shot sizes to try, rated train examples per label (e.g. 1,2; 0 for none).")
    ] = "1,2",
    lang: Annotated[str, typer.Option(help="Rubric language: en or zh.")] = _SCORING.lang,
    map_: Annotated[list[str] | None, typer.Option(
        "--map", help="FIELD=COLUMN for other column names.")] = None,
    concurrency: ConcurrencyOption = None,
    timeout: TimeoutOption = DEFAULT_TIMEOUT,
    max_attempts: MaxAttemptsOption = DEFAULT_MAX_ATTEMPTS,
    max_wait: MaxWaitOption = DEFAULT_MAX_WAIT,
    tpm: TpmOption = None,
    rpm: RpmOption = None,
    cache: CacheOption = None,
    no_cache: NoCacheOption = False,) -> None:
    """Try few-shot examples, a score map and wording variants on train rows; measure the
    best against the metric as given on held-out rows; write the aligned metric file."""
    with exit_on_errors("\ninterrupted: judge answers so far are cached; rerun to continue."):
        if metric and metric_file:
            raise AssayError("Give --metric or --metric-file, not both.")
        if not metric and not metric_file:
            raise AssayError("Name the metric to align: --metric-file FILE (a custom "
                             "pointwise metric) or --metric NAME.")
        sizes = comma_numbers("--shots", shots, int, "1,2 (0 for no few-shot examples)")
        base = load_metric_file(metric_file) if metric_file else (metric or "")
        variants = [load_metric_file(f) for f in variant or []]
        result = run_alignment(
            data, metric=base, judge=judge, out=out, variants=variants, shots=sizes,
            heldout=heldout, seed=seed, mapping=parse_mapping(map_ or []), lang=lang,
            calls=call_options(concurrency=concurrency, timeout=timeout,
                               max_attempts=max_attempts, max_wait=max_wait, tpm=tpm, rpm=rpm,
                               cache=cache, no_cache=no_cache), progress=True, on_stage=lambda line: err.print(line, highlight=False, markup=False))
    report = result.report
    for cand in report["candidates"]:
        Console().print(f"train ({report['selection_rows']} rows): {cand['prompt']}"
                        f"{' + score map' if cand['mapping'] else ''}: balanced accuracy "
                        f"{cand['train_balanced_accuracy']:.3f}, Spearman "
                        f"{_number(cand['train_spearman'])}", highlight=False, markup=False)
    Console().print(alignment_table(report))
    unscored = report["before"]["unscored"], report["after"]["unscored"]
    if any(unscored):
        Console().print(f"unscored held-out rows (left out of the figures): before "
                        f"{unscored[0]}, after {unscored[1]}", highlight=False, markup=False)
    # No held-out row scored (every call failed or no answer could be read): no figures.
    empty = [side for side in ("before", "after")
             if not report[side]["n_compared"] and report[side]["unscored"]]
    if empty:
        err.print(f"judge failed: the judge scored none of the {report['heldout']} held-out "
                  f"rows ({' and '.join(empty)}): its calls failed or its answers could not "
                  "be read; exit 3.", highlight=False, markup=False)
    chosen = report["chosen"]
    gain = report["gain"]["balanced_accuracy"]
    verdict = ("more than noise: the paired 95% interval of the gain excludes 0" if
               gain["beyond_noise"] else "not more than noise: the paired 95% interval of "
               "the gain includes 0")
    examples = report["train"] - report["selection_rows"]
    Console().print(
        f"chosen on {report['selection_rows']} of the {report['train']} train rows"
        f"{f' (the other {examples} are the few-shot examples)' if examples else ''}: "
        f"{chosen['prompt']}"
        f"{' + score map' if chosen['mapping'] else ''}. Balanced accuracy gain on "
        f"{report['heldout']} held-out rows: {verdict}.", highlight=False, markup=False)
    err.print("files: " + ", ".join(report["files"].values()), highlight=False, markup=False)
    if empty:
        raise typer.Exit(3)
