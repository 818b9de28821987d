"""``assay report RUN``: one self-contained HTML file for a run (optionally compared with
another run, and with a judge's calibration).

Example:
    >>> callable(report)
    True
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from ..data import parse_mapping
from ..report import calibration_of, load_calibration, load_inputs, render_report
from ..run import RunData, load_run
from ._errors import exit_on_errors
from ._options import StoreOption

__all__ = ["report"]


def report(
    run: Annotated[Path, typer.Argument(help="The run: a stored run id (or unique prefix, or "
                                              "latest) or an `assay run --out` directory.")],
    compare: Annotated[Path | None, typer.Option(
        help="A run to compare with (id or --out directory): the baseline, side A; RUN is "
             "side B.")] = None,
    out: Annotated[Path, typer.Option(
        "--out", "-o", "--output", help="The HTML file to write.")] = Path("report.html"),
    calibration: Annotated[Path | None, typer.Option(
        help="An `assay calibrate` output directory or its calibration.json: agreement "
             "figures and confusion matrices.")] = None,
    dataset: Annotated[Path | None, typer.Option(
        help="The run's dataset, for the inputs of each row (default: the path the run "
             "recorded).")] = None,
    map_: Annotated[list[str] | None, typer.Option(
        "--map", help="FIELD=COLUMN, as given to `assay run`, to read the dataset.")] = None,
    title: Annotated[str | None, typer.Option(help="Page title.")] = None,
    store: StoreOption = None,
) -> None:
    """Write an HTML report of RUN (no network needed to view it) and print its path."""
    with exit_on_errors("\ninterrupted: no report written."):
        data = load_run(run, store or True)
        source = dataset or data.summary.get("dataset") or data.meta.get("dataset")
        inputs, note = load_inputs(source, run_dir=run, mapping=parse_mapping(map_ or []))
        other: RunData | None = None
        comparison: dict[str, Any] | None = None
        if compare is not None:
            from ..compare import compare_runs
            other = load_run(compare, store or True)
            comparison = compare_runs(other, data)
        calib = (load_calibration(calibration) if calibration is not None
                 else calibration_of(data.summary))
        html = render_report(data, inputs=inputs, inputs_note=note, comparison=comparison,
                             other=other, calibration=calib, title=title)
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(html, encoding="utf-8")
    typer.echo(str(out))
