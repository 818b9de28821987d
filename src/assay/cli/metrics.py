"""``assay metrics``: every metric assay knows (built-ins and plugins), where it comes from and
what it needs.

Example:
    >>> from assay.metrics import MetricInfo
    >>> _range(MetricInfo("m", "built-in", "lexical", ("answer",), (0.0, 1.0), "2"))
    '0-1'
"""

from __future__ import annotations

import json
from typing import Annotated

import typer
from rich import box
from rich.console import Console
from rich.markup import escape
from rich.table import Table
from rich.text import Text

from ..metrics import MetricInfo, list_metrics
from ._errors import exit_on_errors

__all__ = ["metrics_cmd", "metrics_table"]

err = Console(stderr=True)


def _range(info: MetricInfo) -> str:
    if info.value_range is None:
        return "-"
    return "-".join(f"{bound:g}" for bound in info.value_range)


def metrics_table(infos: list[MetricInfo]) -> Table:
    """One line per metric: name, source, kind, required fields, range and version.

    Example:
        >>> import io
        >>> infos = [MetricInfo("f1_score", "built-in", "lexical", ("answer", "ground_truth"),
        ...                     (0.0, 1.0), "2"),
        ...          MetricInfo("word_count", "assay-words 0.1.0", "broken", error="...")]
        >>> console = Console(width=90, record=True, file=io.StringIO())
        >>> console.print(metrics_table(infos))
        >>> for line in console.export_text().splitlines():
        ...     print(line.rstrip())
         name         source              kind      required               range   version
        ───────────────────────────────────────────────────────────────────────────────────
         f1_score     built-in            lexical   answer, ground_truth   0-1     2
         word_count   assay-words 0.1.0   broken    -                      -       -
    """
    table = Table(box=box.SIMPLE_HEAD, show_edge=False)
    # Names, kinds and ranges stay whole (a name is what one types); the rest wraps.
    for column in ("name", "source", "kind", "required", "range", "version"):
        table.add_column(column, overflow="fold",
                         no_wrap=column in ("name", "kind", "range", "version"))
    for info in infos:
        table.add_row(*(Text(cell) for cell in (
            info.name, info.source, info.kind, ", ".join(info.required) or "-", _range(info),
            info.version or "-")))
    return table


def metrics_cmd(
    json_: Annotated[bool, typer.Option(
        "--json", help="Print a JSON list (name, source, kind, required, range, version, "
                       "error) instead of a table.")] = False,
) -> None:
    """List every metric: built-ins and those of installed plugins (entry-point group
    assay.metrics), with source, kind, required fields, range and version."""
    with exit_on_errors("interrupted"):
        infos = list_metrics()
    if json_:
        typer.echo(json.dumps([info.as_json() for info in infos], indent=2, ensure_ascii=False))
        return
    Console().print(metrics_table(infos))
    for info in infos:
        if info.error:
            err.print(f"[red]{escape(info.name)}:[/red] {escape(info.error)}", highlight=False,
                      soft_wrap=True)
