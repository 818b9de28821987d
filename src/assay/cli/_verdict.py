"""The verdict options of ``assay compare`` and ``assay run --baseline`` (``--max-drop``,
``--confidence``, ``--inconclusive``), the verdict table they print and their exit code.

Exit codes, the same for both commands: 0 every bar passes, 1 a bar failed, 5 a bar is
inconclusive (``--inconclusive pass`` makes that 0, ``--inconclusive fail`` 1), 2 a usage or
data error.

Example:
    >>> from assay.gate import BarOutcome
    >>> undecided = BarOutcome(name="g", kind="max_drop", bar=0.2, verdict="inconclusive")
    >>> verdict_exit_code([undecided], "exit"), verdict_exit_code([undecided], "pass")
    (5, 0)
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Literal, get_args

import typer
from rich import box
from rich.console import Console
from rich.table import Table
from rich.text import Text

from ..errors import ConfigError, option
from ..gate import BarOutcome, parse_bars, worst_verdict

if TYPE_CHECKING:  # the comparison (numpy, scipy) loads when a baseline is given, not for -h
    from ..metrics import Metric
    from ..records import RunData

__all__ = ["BaselineOption", "ConfidenceOption", "Inconclusive", "InconclusiveOption",
           "MaxDropOption", "check_baseline_bars", "check_inconclusive_flag",
           "decide_against_baseline", "open_baseline", "print_verdicts", "verdict_exit_code"]

Inconclusive = Literal["exit", "pass", "fail"]
"""How an inconclusive verdict ends the command: exit 5, or as a pass (0) or a fail (1)."""

#: Exit status of an inconclusive verdict under ``--inconclusive exit``.
INCONCLUSIVE_EXIT = 5
#: A worst row's reasons are clipped to this many characters.
REASON_CHARS = 160


def check_inconclusive_flag(value: str) -> str:
    """``--inconclusive`` as given when it is exit, pass or fail, else a usage error (exit 2).

    Example:
        >>> try:
        ...     check_inconclusive_flag("ignore")
        ... except typer.BadParameter as e:
        ...     print(e.message)
        Got ignore. Must be one of: exit, pass, fail.
    """
    allowed = get_args(Inconclusive)
    if value not in allowed:
        raise typer.BadParameter(f"Got {value}. Must be one of: {', '.join(allowed)}.")
    return value


#: ``--max-drop``: the bars against the baseline.
MaxDropOption = Annotated[list[str] | None, typer.Option(
    "--max-drop", help="Verdict against the baseline: METRIC=D allows the candidate to be at "
         "most D worse (repeatable, or a=0.1,b=0.2; also <category>_defect_rate=D). Decided "
         "from the paired difference's interval: pass when confidently no worse than D, fail "
         "when confidently worse, else inconclusive (with how many more rows would decide). "
         "For lower-is-better metrics (safety severities, defect rates) worse means higher.")]
#: ``--baseline`` of ``assay run``: the run its ``--max-drop`` bars are decided against.
BaselineOption = Annotated[Path | None, typer.Option(
    "--baseline", help="With --max-drop: after the run, decide each bar against this run (a "
         "stored run id, unique prefix or latest, or an `assay run --out` folder), row by row. "
         "Exit 1 when a bar fails, 5 when one is inconclusive (see --inconclusive).")]
#: ``--confidence``: the level of the verdict's interval.
ConfidenceOption = Annotated[float, typer.Option(
    help="Confidence of the --max-drop verdicts' intervals (two-sided), over 0.5 and under 1.")]
#: ``--inconclusive``: how an undecided bar ends the command.
InconclusiveOption = Annotated[str, typer.Option(
    callback=check_inconclusive_flag,
    help="When a --max-drop bar is inconclusive: exit (status 5), pass (0) or fail (1).")]


def verdict_exit_code(outcomes: list[BarOutcome], inconclusive: str) -> int:
    """0 when every bar passes (or there are none), 1 when one failed, else the status
    ``inconclusive`` gives an undecided bar.

    Example:
        >>> verdict_exit_code([], "fail")
        0
    """
    verdict = worst_verdict(outcomes)
    if verdict == "inconclusive":
        return {"exit": INCONCLUSIVE_EXIT, "pass": 0, "fail": 1}[inconclusive]
    return 1 if verdict == "fail" else 0


def print_verdicts(outcomes: list[BarOutcome], console: Console, *, confidence: float) -> None:
    """The verdict table (one line per bar), then for each bar not passed its message, what
    would decide it and its worst rows (with the judge's reasons)."""
    if not outcomes:
        return
    table = Table(title=f"verdicts against the baseline ({confidence * 100:g}% CI of the "
                        "paired difference, candidate - baseline)",
                  box=box.SIMPLE_HEAD, show_edge=False)
    for col in ("bar", "allowed", "diff", "CI", "verdict"):
        table.add_column(col, justify="left" if col in ("bar", "verdict") else "right",
                         no_wrap=col == "bar", overflow="fold")
    from ..compare import allowed_text

    colour = {"pass": "green", "fail": "red", "inconclusive": "yellow"}
    for o in outcomes:
        table.add_row(Text(o.name), allowed_text(o.bar, o.lower_is_better), "-" if o.value is None else f"{o.value:+.3f}",
                      "-" if o.interval is None
                      else f"[{o.interval[0]:+.3f}, {o.interval[1]:+.3f}]",
                      Text(o.verdict, style=colour[o.verdict]))
    console.print(table)
    for o in outcomes:
        if o.passed:
            continue
        console.print(Text.assemble((f"{o.verdict}: ", colour[o.verdict]), o.message),
                      soft_wrap=True)
        if o.decide:
            console.print(Text(f"  would decide it: {o.decide}"), soft_wrap=True)
        for row in o.worst:
            reason = " ".join((row.reason or "").split())
            if len(reason) > REASON_CHARS:
                reason = reason[:REASON_CHARS - 1] + "…"
            console.print(Text(f"  {row.id}: {row.shown}" + (f"  ({reason})" if reason else "")),
                          soft_wrap=True)


def open_baseline(baseline: Path | None, max_drop: list[str] | None, *, confidence: float,
                  store: str | None) -> tuple[RunData | None, dict[str, float]]:
    """``assay run``'s baseline run and its bars, read before anything is scored.

    Raises:
        ConfigError: a bad bar or confidence, or ``--max-drop`` without ``--baseline``.
        DataError: the baseline run cannot be found or read.
    """
    bars = parse_bars(max_drop or [], "max_drop")
    if not bars and baseline is None:
        return None, bars
    from ..compare import check_margins
    from ..records import load_run

    check_margins(bars, confidence=confidence)
    if bars and baseline is None:
        first = next(iter(bars.items()))
        raise ConfigError(
            f"Got {option('max_drop', f'{first[0]}={first[1]:g}')} without "
            f"{option('baseline')}: a drop is measured from a baseline run. Fix: add "
            f"{option('baseline', 'RUN')} (a stored run id, or an `assay run --out` folder), "
            f"or use {option('fail_under')} for a floor on this run alone.")
    return (load_run(baseline, store or True) if baseline is not None else None), bars


def decide_against_baseline(baseline: RunData | None, out_dir: Path, bars: dict[str, float], *,
                            confidence: float) -> list[BarOutcome]:
    """The verdict of each bar: the run written to ``out_dir`` compared with ``baseline``."""
    if baseline is None or not bars:
        return []
    from ..compare import compare_runs, decide_drops
    from ..records import load_run_dir

    comparison = compare_runs(baseline, load_run_dir(out_dir))
    return decide_drops(comparison, bars, confidence=confidence)


def check_baseline_bars(metrics: Sequence[Metric], baseline: RunData | None,
                        bars: dict[str, float]) -> None:
    """Refuse, before any judge call, a bar the run and its baseline cannot decide (see
    :func:`assay.compare.check_drop_names`)."""
    if baseline is not None:
        from ..compare import check_drop_names

        check_drop_names(metrics, baseline, bars)
