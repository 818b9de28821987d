"""``assay labels export RUN --out FILE``: the rows people labelled (in ``assay serve``'s review
page) as a rated JSONL dataset that ``assay calibrate`` and ``assay align`` read.

Each line is the row's input fields plus ``{metric}/human_rating`` (a rating or a label) or
``{metric}/human_pairwise_choice`` (BASELINE, CANDIDATE or TIE). Several raters on one row and
metric are combined (median of ratings, majority of choices) unless ``--rater`` picks one.

Example:
    >>> [c.name for c in app.registered_commands]
    ['export']
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.markup import escape

from ..errors import ConfigError
from ..records import rewrite_in_order, stored_run_ref
from ..store import open_store, rated_rows
from ._errors import exit_on_errors
from ._options import StoreOption

__all__ = ["app", "export_labels_cmd"]

err = Console(stderr=True)

app = typer.Typer(name="labels", no_args_is_help=True, add_completion=False,
                  rich_markup_mode=None, context_settings={"help_option_names": ["-h", "--help"]},
                  help="People's labels on a run's rows (given on assay serve's review page).")


@app.command("export")
def export_labels_cmd(
    run: Annotated[str, typer.Argument(
        help="A stored run's id, a unique prefix of one, or 'latest'; or the run's output "
             "folder (its --out).")],
    out: Annotated[Path, typer.Option(help="The JSONL file to write.")],
    rater: Annotated[str | None, typer.Option(
        help="Only this rater's labels. Default: every rater's, combined per row and metric "
             "(median of ratings, majority of choices; rows with no majority are left out).")
    ] = None,
    store: StoreOption = None,
) -> None:
    """Write the labelled rows of RUN as a rated dataset for assay calibrate / assay align."""
    with exit_on_errors("interrupted: nothing written."), open_store(store) as opened:
        info = opened.get(stored_run_ref(run))
        rated = rated_rows(opened, info.id, rater=rater)
        if not rated.rows:
            who = f" by rater {rater!r}" if rater else ""
            why = (f"{len(rated.no_inputs)} labelled rows have no stored inputs (a run from "
                   "before assay stored them); " if rated.no_inputs else "")
            raise ConfigError(
                f"Run {info.id} has no labelled rows to export{who}: {why}nothing written. "
                f"Fix: label rows on its review page (assay serve, then /runs/{info.id}/review)"
                + (", or leave out --rater" if rater else "") + ".")
        out.parent.mkdir(parents=True, exist_ok=True)
        # atomically: a temporary file, then a rename (a full disk leaves no partial file)
        rewrite_in_order(out, rated.rows, what="the labels export",
                         then="run the command again")
    raters = ", ".join(rated.raters)
    typer.echo(f"wrote {len(rated.rows)} rated rows of run {info.id} to {out} "
               f"(rater{'s' if len(rated.raters) != 1 else ''}: {raters})")
    if rated.combined:
        err.print(f"note: {rated.combined} row-metric labels came from several raters and were "
                  "combined (median of ratings, majority of choices); --rater NAME exports one "
                  "rater's.", highlight=False)
    if rated.split:
        shown = ", ".join(f"{row}/{metric}" for row, metric in rated.split[:5])
        err.print(f"note: {len(rated.split)} left out, the raters having no majority: "
                  f"{escape(shown)}{' ...' if len(rated.split) > 5 else ''}", highlight=False)
    if rated.no_inputs:
        err.print(f"note: {len(rated.no_inputs)} labelled rows left out: the run stored no "
                  "input fields for them.", highlight=False)
