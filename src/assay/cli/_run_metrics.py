"""What ``assay run`` scores: ``--metrics`` with the ``--metric-file`` metrics, and the plan
printed on stderr (the metrics to run, one line per metric left out with why).

Example:
    >>> choose_metrics(None, [])
    'auto'
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from rich.console import Console
from rich.markup import escape

from ..errors import AssayError
from ..metrics import Metric, Plan
from ..metrics.custom import check_file_metric_names, load_metric_file
from ._options import comma_names

__all__ = ["choose_metrics", "plan_printer"]

err = Console(stderr=True)


def choose_metrics(metrics: str | None, metric_files: list[Path], *,
                   swap: bool = True) -> str | list[str | Metric]:
    """What to run: ``--metrics`` (default auto) plus the ``--metric-file`` metrics; with
    metric files and no ``--metrics``, only the file metrics. A file metric named in
    ``--metrics`` too is run once, from its file."""
    custom: list[Metric] = [load_metric_file(f, swap=swap) for f in metric_files]
    check_file_metric_names(custom)
    if not custom:
        return metrics or "auto"
    if metrics is None:
        return list(custom)
    if metrics.strip() == "auto":
        raise AssayError("--metrics auto cannot be combined with --metric-file. Name the "
                         "built-in metrics to add, e.g. --metrics groundedness,relevance.")
    from_files = {m.name for m in custom}
    named = [m for m in comma_names(metrics) if m not in from_files]
    return [*named, *custom]


def plan_printer(quiet: bool) -> Callable[[Plan], None]:
    """What prints the plan on stderr: the metrics to run, then (unless ``quiet``) one line
    per skipped metric with the reason."""
    def print_plan(plan: Plan) -> None:
        err.print("metrics: " + ", ".join(m.name for m in plan.metrics), highlight=False)
        for line in [] if quiet else plan.skipped:
            err.print(f"[dim]{escape(line)}[/dim]", highlight=False)
    return print_plan
