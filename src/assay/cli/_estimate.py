"""``--estimate``, ``--no-estimate``, ``--estimate-over N`` and ``--json`` of ``assay run``:
what a run would send its judges and cost, printed before anything is sent.

``--estimate`` prints the estimate (every row rendered) and exits 0 without a judge call;
with ``--json PATH`` (``-``: stdout) it is written as JSON too. A run over ``--estimate-over``
rows (default 1000) prints an estimate from a sample of its rows first, then runs;
``--no-estimate`` skips that.

Example:
    >>> check_estimate_over(1000)
    1000
    >>> try:
    ...     check_estimate_over(-1)
    ... except typer.BadParameter as e:
    ...     print(e.message)
    Got -1. Must be a whole number of rows, 0 or more (0: before every run).
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from ..calls import Estimate, JudgeCallOptions
from ..metrics import Metric
from ..run import ReadOptions, ScoringOptions
from ._json_out import JSON_PATH_HELP, write_json

__all__ = ["DEFAULT_ESTIMATE_OVER", "ESTIMATE_SAMPLE", "EstimateFlags", "EstimateJsonOption",
           "EstimateOnlyOption", "EstimateOption", "EstimateOverOption", "check_estimate_over",
           "check_json_flag", "estimate_first", "print_estimate"]

err = Console(stderr=True)

#: Rows from which a run prints an estimate before it starts (``--estimate-over``).
DEFAULT_ESTIMATE_OVER = 1000
#: Rows rendered for the estimate printed before a large run (the figures are scaled).
ESTIMATE_SAMPLE = 100


def check_estimate_over(value: int) -> int:
    """``--estimate-over`` as given when it is 0 or more, else a usage error (exit 2)."""
    if value < 0:
        raise typer.BadParameter(f"Got {value}. Must be a whole number of rows, 0 or more "
                                 "(0: before every run).")
    return value


EstimateOption = Annotated[bool | None, typer.Option(
    "--estimate/--no-estimate", show_default=False,
    help="--estimate: print what the run would send its judges (requests, prompt and "
         "completion tokens, dollars, the time at --tpm/--rpm) as low / expected / high, and "
         "exit 0 without sending anything. --no-estimate: no estimate before a large run "
         "(see --estimate-over).")]
EstimateOverOption = Annotated[int, typer.Option(
    callback=check_estimate_over, metavar="ROWS",
    help="A run over this many rows prints an estimate (from a sample of its rows) before it "
         "starts.")]
#: ``--estimate`` of a command that makes data (generate, simulate, jailbreak).
EstimateOnlyOption = Annotated[bool, typer.Option(
    "--estimate", help="Print what the command would send (requests, prompt and completion "
    "tokens, dollars per model role, the time at --tpm/--rpm) as low / expected / high, and "
    "exit 0 without sending anything.")]
EstimateJsonOption = Annotated[Path | None, typer.Option(
    "--json", help="With --estimate: also write the estimate as JSON to this file; "
    + JSON_PATH_HELP)]


@dataclass(frozen=True)
class EstimateFlags:
    """The estimate flags of one command line: ``estimate`` True (``--estimate``), False
    (``--no-estimate``) or None (neither: an estimate before a run over ``over`` rows)."""

    estimate: bool | None = None
    over: int = DEFAULT_ESTIMATE_OVER
    json_path: Path | None = None

    @property
    def only(self) -> bool:
        """``--estimate``: print the estimate and stop."""
        return self.estimate is True


def estimate_first(given: EstimateFlags | tuple[bool | None, int, Path | None], data: Path, *,
                   piped: bool,
                   metrics: str | Sequence[str | Metric], judges: list[str],
                   reading: ReadOptions, scoring: ScoringOptions, repeat: int,
                   calls: JudgeCallOptions, out: Path, prices: Path | None = None,
                   app: bool = False) -> bool:
    """Print the estimate when asked (``--estimate``: every row; else, for a run over
    ``flags.over`` rows, a sample's); True when the command should stop there. ``given``:
    the flags, or ``(--estimate/--no-estimate, --estimate-over, --json)`` as parsed;
    ``prices``: the ``--prices`` file; ``app``: the run has a ``--target``.

    Raises:
        typer.BadParameter: ``--json`` without ``--estimate``.
    """
    flags = given if isinstance(given, EstimateFlags) else EstimateFlags(*given)
    check_json_flag(flags.only, flags.json_path)
    if not flags.only and (flags.estimate is False or piped or str(data) == "-"
                               or _rows_at_most(data, flags.over)):
        return False  # a pipe is read once: the run reads it
    from ._estimate_plan import estimate_async  # the runner: not imported for --help

    estimate = asyncio.run(estimate_async(
        data, metrics=metrics, judge=judges[0] if len(judges) == 1 else judges,
        reading=reading, scoring=scoring, repeat=repeat, cache=calls.cache, tpm=calls.tpm,
        rpm=calls.rpm, out=out, prices_file=prices, app=app, sample=None if flags.only else ESTIMATE_SAMPLE))
    if not flags.only and estimate.rows <= flags.over:
        return False  # a format whose rows are not lines: its size known only now
    print_estimate(estimate, flags.json_path)
    if not flags.only:
        err.print("  (--no-estimate skips this; the run starts now)", highlight=False,
                  markup=False)
    return flags.only


def print_estimate(estimate: Estimate, json_path: Path | None = None) -> None:
    """The estimate's lines on stderr, and its JSON to ``json_path`` (``-``: stdout)."""
    for line in estimate.lines():
        err.print(line, highlight=False, markup=False, soft_wrap=True)
    if json_path is not None:
        write_json(estimate.as_dict(), json_path)


def check_json_flag(estimate: bool, json_path: Path | None) -> None:
    """``--json`` needs ``--estimate``.

    Raises:
        typer.BadParameter: ``--json`` without ``--estimate`` (exit 2).
    """
    if json_path is not None and not estimate:
        raise typer.BadParameter("--json writes the estimate: give --estimate too.",
                                 param_hint="'--json'")


def _rows_at_most(data: Path, limit: int) -> bool:
    """Whether ``data`` surely holds at most ``limit`` rows: a JSONL, CSV or TSV file of at
    most that many lines (other formats are counted by the estimate itself); a file that
    cannot be read here is left to the run to report."""
    suffix = data.suffix.lower()
    if suffix not in (".jsonl", ".csv", ".tsv"):
        return False
    limit += suffix != ".jsonl"  # a CSV or TSV header line
    try:
        with data.open("rb") as f:
            for n, _ in enumerate(f, 1):
                if n > limit:
                    return False
    except OSError:
        return True
    return True


