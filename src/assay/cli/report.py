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

from .._files import atomic_write
from ..data import parse_mapping
from ..errors import AssayError, ConfigError
from ..records import RunData, load_run
from ..report import calibration_of, inputs_for_run, load_calibration, render_report
from ..store import open_store
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
        inputs, note = _inputs(data, store, dataset=dataset, run_dir=run,
                               mapping=parse_mapping(map_ or []))
        other: RunData | None = None
        comparison: dict[str, Any] | None = None
        if compare is not None:
            from ..compare import check_comparable, compare_runs
            from .compare import with_store_provenance
            other = load_run(compare, store or True)
            if check_comparable(other, data) == "attack":  # other kinds refused with the why
                raise ConfigError(
                    f"Got --compare with two attack runs ({other.id}, {data.id}): the report "
                    "compares evaluation runs. Fix: `assay compare A B` (--json FILE for the "
                    "figures) or `assay serve` (/compare?a=A&b=B) compares attack runs.")
            with_store_provenance([other, data], store)  # the dataset sha256 behind warnings
            comparison = compare_runs(other, data)
        calib = (load_calibration(calibration) if calibration is not None
                 else calibration_of(data.summary))
        html = render_report(data, inputs=inputs, inputs_note=note, comparison=comparison,
                             other=other, calibration=calib, title=title)
        with atomic_write(out, what="the report") as f:  # whole, or no file at all
            f.write(html)
    typer.echo(str(out))


def _inputs(data: RunData, store: str | None, *, dataset: Path | None, run_dir: Path,
            mapping: dict[str, str]) -> tuple[dict[str, dict[str, Any]] | None, str | None]:
    """The rows' inputs: a ``--dataset`` the user names, else those the run stored (so the
    report works from any folder), else the dataset file the run recorded."""
    opened = None
    try:
        opened = open_store(store)
    except AssayError:  # no usable store: the dataset file may still serve
        opened = None
    try:
        return inputs_for_run(data, store=opened, dataset=dataset, run_dir=run_dir,
                              mapping=mapping or None)
    finally:
        if opened is not None:
            opened.close()
