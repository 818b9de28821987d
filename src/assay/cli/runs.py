"""``assay runs``, ``assay show``, ``assay export`` and ``assay rm``: the run store from the
terminal.

Example:
    >>> _mean({"mean": 4.25}), _mean({"mean": None}), _mean({})
    ('4.25', '-', '-')
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.table import Table

from ..errors import AssayError
from ..store import FORMATS, Store, open_store
from ._errors import exit_on_errors
from ._options import StoreOption
from .run import print_summary

__all__ = ["export_cmd", "rm_cmd", "runs_cmd", "show_cmd"]

err = Console(stderr=True)

RunArgument = Annotated[str, typer.Argument(
    help="A run id, a unique prefix of one, or 'latest'.")]


def _mean(agg: dict[str, Any]) -> str:
    value = agg.get("mean")
    return "-" if value is None else f"{value:.4g}"


def _open(store: str | None) -> Store:
    return open_store(store)


def runs_cmd(
    tag: Annotated[str | None, typer.Option(help="Only runs with this tag.")] = None,
    name: Annotated[str | None, typer.Option(help="Only runs with this name.")] = None,
    dataset: Annotated[str | None, typer.Option(
        help="Only runs on this dataset (part of its path, or a sha256 prefix).")] = None,
    limit: Annotated[int | None, typer.Option(min=1, help="At most N runs.")] = 20,
    store: StoreOption = None,
) -> None:
    """List stored runs, newest first."""
    with exit_on_errors("interrupted"), _open(store) as opened:
        found = opened.runs(tag=tag, name=name, dataset=dataset, limit=limit)
        url = opened.url
    table = Table(title=f"runs in {url}")
    for col in ("id", "name", "kind", "status", "created", "rows", "dataset", "judge", "tags",
                "metrics (mean)"):
        table.add_column(col, overflow="fold")
    for info in found:
        metrics = (info.summary or {}).get("metrics") or {}
        means = ", ".join(f"{m} {_mean(a)}" for m, a in list(metrics.items())[:4])
        more = f" +{len(metrics) - 4}" if len(metrics) > 4 else ""
        table.add_row(info.id, info.name or "", info.kind, info.status, info.created[:19],
                      str(info.rows), info.dataset or "", info.judge or "",
                      ",".join(info.tags), means + more)
    Console().print(table)
    if not found:
        err.print("no runs match." if (tag or name or dataset) else
                  "no runs yet: `assay run DATA` records one.")


def show_cmd(run: RunArgument, store: StoreOption = None) -> None:
    """Print one stored run: its settings and its summary table."""
    with exit_on_errors("interrupted"), _open(store) as opened:
        info = opened.get(run)
    console = Console()
    facts = Table.grid(padding=(0, 2))
    facts.add_column(style="bold")
    facts.add_column(overflow="fold")
    for key, value in (("id", info.id), ("name", info.name), ("kind", info.kind),
                       ("status", info.status), ("created", info.created),
                       ("finished", info.finished), ("dataset", info.dataset),
                       ("dataset sha256", info.dataset_sha256), ("judge", info.judge),
                       ("rows stored", info.rows), ("tags", ", ".join(info.tags)),
                       ("metrics", ", ".join(f"{k} v{v}" for k, v in info.metrics.items())),
                       ("settings", ", ".join(f"{k}={v}" for k, v in info.settings.items()
                                              if v not in (None, {}, []))),
                       ("tokens", ", ".join(f"{k} {v}" for k, v in info.tokens.items())),
                       ("assay", info.assay_version)):
        facts.add_row(key, "" if value is None else str(value))
    console.print(facts)
    if info.summary and info.summary.get("metrics"):
        print_summary(info.summary)
    if info.status != "complete":
        err.print(f"[yellow]this run is {info.status}[/yellow]: rerun its `assay run` with "
                  "--resume (same --out) to finish it.", highlight=False)


def export_cmd(
    run: RunArgument,
    format_: Annotated[str, typer.Option("--format", help=f"One of: {', '.join(FORMATS)}.")]
        = "jsonl",
    output: Annotated[Path | None, typer.Option(
        "--output", "-o", help="File to write. Default: <run id>.<format>.")] = None,
    store: StoreOption = None,
) -> None:
    """Write a stored run's per-row results to JSON Lines, CSV or Parquet."""
    with exit_on_errors("interrupted"):
        if format_ not in FORMATS:
            raise AssayError(f"Got --format {format_!r}. Must be one of: {', '.join(FORMATS)}.")
        with _open(store) as opened:
            info = opened.get(run)
            path = output or Path(f"{info.id}.{format_}")
            n = opened.export(info.id, path, format_)
    err.print(f"{n} rows of run {info.id} written to {path}", highlight=False)


def rm_cmd(
    run: RunArgument,
    yes: Annotated[bool, typer.Option("--yes", "-y", help="Do not ask.")] = False,
    store: StoreOption = None,
) -> None:
    """Delete a stored run with its rows."""
    with exit_on_errors("interrupted"), _open(store) as opened:
        info = opened.get(run)
        if not yes and not typer.confirm(
                f"Delete run {info.id} ({info.name or 'unnamed'}, {info.rows} rows)?"):
            raise typer.Exit(1)
        opened.delete(info.id)
    err.print(f"deleted run {info.id}", highlight=False)
