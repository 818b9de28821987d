"""Every bar of one ``assay run``, from its flags to its exit code: ``--fail-under`` and
``--fail-over`` (on the run's summary), ``--baseline`` with ``--max-drop`` (verdicts against
another run), and what CI reads of them (``--junit``, ``--markdown``, the GitHub step summary).

Checked twice: the bar names as soon as the plan is known (a bar that can never pass stops the
run before any judge call), then the bars themselves once the run is written.

Example:
    >>> gates = RunGates.from_flags(fail_under=["f1_score=0.5"], fail_over=None, baseline=None,
    ...                             max_drop=None, confidence=0.95, inconclusive="exit",
    ...                             junit=None, markdown=None, store=None)
    >>> gates.under, gates.drops
    ({'f1_score': 0.5}, {})
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer
from rich.console import Console
from rich.markup import escape

from ..gate import (
    BarOutcome,
    check_bar_names,
    check_summary,
    parse_bars,
    summary_defects,
    summary_outcomes,
)
from ..metrics import Plan
from ._ci_outputs import read_results, write_ci_outputs
from ._errors import exit_on_errors
from ._verdict import (
    check_baseline_bars,
    decide_against_baseline,
    open_baseline,
    print_verdicts,
    verdict_exit_code,
)

if TYPE_CHECKING:  # the records package (and the store under it): not imported for --help
    from ..records import RunData
    from ..run import ReadOptions

__all__ = ["RunGates", "suite_name"]

err = Console(stderr=True)


@dataclass(frozen=True)
class RunGates:
    """The bars of one run and where their CI outputs go (see the module docstring)."""

    under: dict[str, float]
    over: dict[str, float]
    baseline: RunData | None
    drops: dict[str, float]
    confidence: float
    inconclusive: str
    junit: Path | None
    markdown: Path | None

    @classmethod
    def from_flags(cls, *, fail_under: list[str] | None, fail_over: list[str] | None,
                   baseline: Path | None, max_drop: list[str] | None, confidence: float,
                   inconclusive: str, junit: Path | None, markdown: Path | None,
                   store: str | None) -> RunGates:
        """The bars as the flags give them; the baseline run is read now, before any scoring.

        Raises:
            ConfigError: a bar that is not ``NAME=NUMBER``, a bad confidence, ``--max-drop``
                without ``--baseline``.
            DataError: the baseline run cannot be found or read.
        """
        base_run, drops = open_baseline(baseline, max_drop, confidence=confidence, store=store)
        return cls(under=parse_bars(fail_under or [], "fail_under"),
                   over=parse_bars(fail_over or [], "fail_over"), baseline=base_run,
                   drops=drops, confidence=confidence, inconclusive=inconclusive, junit=junit,
                   markdown=markdown)

    def check_plan(self, plan: Plan) -> None:
        """Refuse a bar on a metric the run will not score (before any judge call)."""
        check_bar_names(plan.metrics, fail_under=self.under, fail_over=self.over,
                        skipped=plan.skipped)
        check_baseline_bars(plan.metrics, self.baseline, self.drops)

    def check_rows(self, data: Path, reading: ReadOptions, *, answer_required: bool) -> None:
        """With a baseline: refuse one that shares under half of ``data``'s rows, before any
        row is scored (the dataset's ids read once more, as the run will read them). A piped
        dataset cannot be read twice: its rows are checked against the baseline after the run.
        """
        if self.baseline is None or not self.drops:
            return
        from ..compare import check_shared_rows
        from ..data import DatasetStream

        ids: list[str] = []
        DatasetStream(data, mapping=reading.mapping, max_field_chars=reading.max_field_chars,
                      long_fields=reading.long_fields, answer_required=answer_required).check(
            lambda rows: ids.extend(str(r.id) for r in rows))
        check_shared_rows(self.baseline, ids)

    def decide(self, summary: dict[str, Any], out_dir: Path, *, suite: str) -> tuple[list[str],
                                                                          list[BarOutcome]]:
        """Decide every bar of the run written to ``out_dir``, write the CI outputs (whatever
        the verdict) and return (the failed ``--fail-under``/``--fail-over`` messages, the
        ``--max-drop`` verdicts)."""
        with exit_on_errors("interrupted"):
            verdicts = decide_against_baseline(self.baseline, out_dir, self.drops,
                                               confidence=self.confidence)
        write_ci_outputs([*summary_outcomes(summary, fail_under=self.under, fail_over=self.over,
                                            records=read_results(out_dir)), *verdicts],
                         junit=self.junit, markdown=self.markdown, title=f"assay run {suite}",
                         suite=suite, defects=summary_defects(summary))
        return check_summary(summary, fail_under=self.under, fail_over=self.over), verdicts

    def print(self, failures: list[str], verdicts: list[BarOutcome]) -> None:
        """One red line per failed bar, then the verdict table."""
        for message in failures:
            err.print(f"[red]gate failed:[/red] {escape(message)}", highlight=False,
                      soft_wrap=True)
        print_verdicts(verdicts, err, confidence=self.confidence)

    def exit(self, failures: list[str], verdicts: list[BarOutcome]) -> None:
        """Exit 1 for a failed bar, else the verdicts' status (see ``--inconclusive``)."""
        if failures:
            raise typer.Exit(1)
        if code := verdict_exit_code(verdicts, self.inconclusive):
            raise typer.Exit(code)


def suite_name(data: Path, piped: bool) -> str:
    """The name CI outputs give a run of ``data``: ``qa.jsonl.gz`` -> ``qa``,
    ``eval.v2.csv`` -> ``eval_v2``, a pipe -> ``stdin``.

    Example:
        >>> suite_name(Path("data/eval.v2.csv"), False), suite_name(Path("-"), True)
        ('eval_v2', 'stdin')
    """
    if piped or str(data) == "-":
        return "stdin"
    return Path(data.name.removesuffix(".gz")).stem.replace(".", "_")
