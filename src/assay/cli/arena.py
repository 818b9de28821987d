"""``assay arena A.jsonl B.jsonl C.jsonl ...``: rank N versions of an app from judged pairs.

Each system is a file of answers to the same test rows (matched by id). Every pair of
systems that answered a row is judged in both orders by a pairwise metric (``preference``,
built in, or ``--metric FILE`` with ``kind: pairwise``); the leaderboard (Bradley-Terry
ratings with 95% bootstrap intervals, ranks such as ``1-2`` where the intervals overlap,
win/tie/loss) is printed and written to ``OUT/leaderboard.json`` beside the run's
``results.jsonl`` and ``summary.json``. Exit codes as ``assay run``: 2 bad input (nothing
asked), 3 the judge failed, 6 the budget reached, 130 interrupted; ``--resume`` asks only
what is missing.

Example:
    >>> callable(arena_cmd)
    True
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.markup import escape

from .._text import percent
from ..calls import DEFAULT_TIMEOUT
from ..targets import DEFAULT_MAX_FAILED_SHARE
from ._arena_board import print_board
from ._call_flags import (
    DEFAULT_MAX_ATTEMPTS,
    CacheOption,
    ConcurrencyOption,
    MaxAttemptsOption,
    MaxCostOption,
    MaxTokensOption,
    NoCacheOption,
    RpmOption,
    TpmOption,
    call_options,
)
from ._errors import exit_on_errors, print_failures
from ._json_out import JSON_PATH_HELP, write_json
from ._options import (
    DEFAULT_MAX_WAIT,
    MaxWaitOption,
    NoStoreOption,
    StoreOption,
    TimeoutOption,
    store_arg,
)
from ._prices_flag import PricesOption
from ._redteam_common import MaxFailedShare

__all__ = ["arena_cmd"]

err = Console(stderr=True)


def arena_cmd(
    systems: Annotated[list[str] | None, typer.Argument(
        metavar="SYSTEM...", show_default=False,
        help="Two or more answer files (.jsonl, .json, .csv) with the same row ids, run "
             "folders or stored runs; with --targets, more targets.")] = None,
    targets: Annotated[list[str] | None, typer.Option(
        "--targets", help="Apps to ask every --data row first, instead of answer files: "
                          "python:module:function, openai:MODEL, http:URL (--targets T1 T2 "
                          "...).")] = None,
    data: Annotated[Path | None, typer.Option(
        help="The test set the --targets apps answer.")] = None,
    name: Annotated[list[str] | None, typer.Option(
        "--name", help="A system's name, once per system in the same order (default: the "
                       "file names).")] = None,
    metric: Annotated[str, typer.Option(
        help="The pairwise metric: preference (built in) or a metric file with kind: "
             "pairwise.")] = "preference",
    judge: Annotated[str, typer.Option(
        help="The judge: local (embedded, offline), openai:MODEL[@URL] or azure:DEPLOYMENT.")]
        = "local",
    out: Annotated[Path | None, typer.Option(
        help="Output folder. Default: assay-out/arena-<system names>.")] = None,
    resume: Annotated[bool, typer.Option(help="Keep the judged pairs in --out; ask only the "
                                              "rest.")] = False,
    overwrite: Annotated[bool, typer.Option(
        help="Replace an earlier run in --out (without it or --resume, one is refused).")]
        = False,
    bootstrap: Annotated[int, typer.Option(
        min=0, help="Bootstrap resamples of the rows for the 95% intervals (0: none).")] = 1000,
    seed: Annotated[int, typer.Option(
        help="Seed of the bootstrap and of which system fills which field.")] = 0,
    budget: Annotated[int | None, typer.Option(
        min=1, help="At most N comparisons (a pair on a row, both orders), chosen where the "
                    "ratings are least separated; stops early once they are separated. "
                    "Default: every pair on every row.")] = None,
    length_control: Annotated[bool, typer.Option(
        "--length-control", help="Fit the ratings with the two answers' length difference as "
                                 "a covariate (judges favour longer answers): each system's "
                                 "rating at equal length, and the length's own weight.")]
        = False,
    json_out: Annotated[Path | None, typer.Option(
        "--json", help=f"Also write the leaderboard as JSON to PATH; {JSON_PATH_HELP}")] = None,
    concurrency: ConcurrencyOption = None,
    timeout: TimeoutOption = DEFAULT_TIMEOUT,
    max_attempts: MaxAttemptsOption = DEFAULT_MAX_ATTEMPTS,
    max_wait: MaxWaitOption = DEFAULT_MAX_WAIT,
    tpm: TpmOption = None,
    rpm: RpmOption = None,
    cache: CacheOption = None,
    no_cache: NoCacheOption = False,
    max_cost: MaxCostOption = None,
    max_tokens: MaxTokensOption = None,
    prices: PricesOption = None,
    store: StoreOption = None,
    no_store: NoStoreOption = False,
    max_failed_share: MaxFailedShare = DEFAULT_MAX_FAILED_SHARE,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar.")] = False,
) -> None:
    """Judge every pair of systems on each row they share, in both orders, and print their
    Bradley-Terry ratings with 95% intervals and ranks. --budget N: at most N comparisons,
    where the ratings are least separated. --targets with --data: ask the apps first."""
    from ..arena import answer_with_targets, target_names

    out_dir = out or Path("assay-out") / ("arena-" + "-".join(
        (name or target_names([*(targets or []), *(systems or [])] if targets else [])
         or [Path(p).name.split(".")[0] for p in systems or []])[:4]))
    hint = f"assay arena ... --out {out_dir} --resume"
    with exit_on_errors(f"\ninterrupted: judged pairs so far are in "
                        f"{out_dir / 'results.jsonl'}; rerun with --resume to continue.",
                        stopped=f"Judged pairs are kept; fix the cause, then {hint}."):
        from ..arena import arena_async
        from ..errors import ConfigError
        from ..run import JudgeOptions, RunOptions, run_sync

        if targets and data is None:
            raise ConfigError("--targets asks apps for answers to a test set: give it with "
                              "--data TESTSET.jsonl.")
        if targets and data is not None:
            apps, test_set = [*targets, *(systems or [])], data  # --targets T1 T2: T2 on is
            asked = run_sync(lambda: answer_with_targets(  # a positional argument
                apps, test_set, out_dir, names=name or None, resume=resume, overwrite=overwrite,
                timeout=timeout, concurrency=concurrency or 4))
            for path, failed in asked:
                if failed:
                    cause, count = failed.most_common(1)[0]
                    err.print(f"{path.stem}: {sum(failed.values())} row(s) failed (left out "
                              f"of its pairs; --resume asks them again): {count} x {cause}",
                              highlight=False, markup=False)
            systems, name = [str(path) for path, _ in asked], [path.stem for path, _ in asked]

        calls = call_options(concurrency=concurrency, timeout=timeout,
                             max_attempts=max_attempts, max_wait=max_wait, tpm=tpm, rpm=rpm,
                             cache=cache, no_cache=no_cache, max_cost=max_cost,
                             max_tokens=max_tokens, prices=prices)
        result = run_sync(lambda: arena_async(
            systems or [], names=name or None, metric=metric, judge=judge,
            judging=JudgeOptions.from_calls(calls),
            run=RunOptions(out=out_dir, resume=resume, overwrite=overwrite, progress=not quiet,
                           store=store_arg(store, no_store)),
            bootstrap=bootstrap, seed=seed, budget=budget, length_control=length_control,
            on_round=None if budget is None else lambda r: err.print(
                f"round {r.round}: {r.new} new, {r.judged} comparisons judged; board "
                f"{'separated' if r.board.separated() else 'not separated yet'}",
                highlight=False, markup=False, soft_wrap=True)))
    print_board(result.as_dict(), judge)
    if result.schedule:
        s = result.schedule
        err.print(f"stopped after {result.leaderboard.comparisons} of {s['candidates']} "
                  f"comparisons (budget {s['budget']}): {s['why']}", highlight=False,
                  markup=False, soft_wrap=True)
    if json_out is not None:
        write_json(result.as_dict(), json_out)
    err.print(f"leaderboard: {out_dir / 'leaderboard.json'}  pairs: {out_dir / 'results.jsonl'}"
              + (f"  stored run: {result.summary['run_id']}" if result.summary.get("run_id")
                 else ""), highlight=False, markup=False)
    if print_failures(result.summary, max_failed_share):
        err.print(f"[red]judge failed:[/red] more than {percent(max_failed_share)} "
                  f"(--max-failed-share) of the pairs were lost to failed judge calls or "
                  f"answers that could not be read; exit 3. Fix the cause, then "
                  f"{escape(hint)}", highlight=False, soft_wrap=True)
        raise typer.Exit(3)

