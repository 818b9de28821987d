"""``assay robustness DATA --suite ... --target ...``: RGB-style robustness of a RAG app.

The command owns the app target and the judge (``--judge``): each is opened once and closed
once, at the end. When the app or the judge left more than ``--max-failed-share`` of the items
unscored, the command names the top causes and exits 3.

Example:
    >>> callable(robustness)
    True
"""

from __future__ import annotations

import asyncio
import sys
from contextlib import AsyncExitStack
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.table import Table

from ..calls import DEFAULT_TIMEOUT, JudgeCallOptions, ManagedJudge, open_judge
from ..costs import AppUsage, PriceBook, app_cost_line
from ..errors import AssayError
from ..judges import check_judge_spec
from ..records import Job
from ..robustness import (
    Instance,
    begin_suite,
    load_rgb,
    run_suite,
    suite_failures,
    summarize,
    write_summary,
)
from ..run import ScoringOptions
from ..targets import DEFAULT_MAX_FAILED_SHARE, close_target, make_target
from ._call_flags import (
    DEFAULT_MAX_ATTEMPTS,
    CacheOption,
    ConcurrencyOption,
    MaxAttemptsOption,
    NoCacheOption,
    RpmOption,
    TpmOption,
    call_options,
    parallel_help,
)
from ._errors import exit_on_errors
from ._options import (
    DEFAULT_MAX_WAIT,
    MaxWaitOption,
    NoStoreOption,
    StoreOption,
    TimeoutOption,
    comma_numbers,
    store_arg,
)
from ._redteam_common import MaxFailedShare, exit_if_failed

__all__ = ["robustness"]

err = Console(stderr=True)
#: The rubric language's declared default, through ScoringOptions.
_SCORING = ScoringOptions()


def robustness(
    data: Annotated[Path, typer.Argument(help="RGB-format JSON Lines file.")],
    suite: Annotated[str, typer.Option(
        help="noise, rejection, integration or counterfactual.")] = "noise",
    target: Annotated[str, typer.Option(
        help="The app under test: python:package.module:function, openai:MODEL, http:URL, or "
             "local (the embedded model)."
    )] = "",
    passages: Annotated[int, typer.Option(min=1, help="Passages per question.")] = 5,
    noise_ratios: Annotated[str, typer.Option(help="Comma-separated noise ratios.")] =
        "0,0.2,0.4,0.6,0.8",
    limit: Annotated[int | None, typer.Option(min=1, help="Use the first N instances.")] = None,
    lang: Annotated[str, typer.Option(help="Prompt language of the openai target: en or zh.")]
        = _SCORING.lang,
    out: Annotated[Path | None, typer.Option(
        help="Output directory. Default: assay-out/robustness-<suite>-<data name>.")] = None,
    resume: Annotated[bool, typer.Option(help="Keep stored answers; ask only the rest.")] = False,
    overwrite: Annotated[bool, typer.Option(
        help="Replace an earlier run in --out (without it or --resume, one is refused).")]
        = False,
    concurrency: ConcurrencyOption = None,
    timeout: TimeoutOption = DEFAULT_TIMEOUT,
    max_attempts: MaxAttemptsOption = DEFAULT_MAX_ATTEMPTS,
    max_wait: MaxWaitOption = DEFAULT_MAX_WAIT,
    tpm: TpmOption = None,
    rpm: RpmOption = None,
    cache: CacheOption = None,
    no_cache: NoCacheOption = False,
    parallel: Annotated[int, typer.Option(min=1, help=parallel_help("Test inputs"))] = 4,
    seed: Annotated[int, typer.Option(help="Seed of the passage sampling.")] = 0,
    judge: Annotated[str | None, typer.Option(
        help="Rejection suite: also have this judge (local, openai:MODEL, azure:DEPLOYMENT) "
             "decide whether each answer declines; adds rejected_judge_rate.")] = None,
    store: StoreOption = None,
    no_store: NoStoreOption = False,
    max_failed_share: MaxFailedShare = DEFAULT_MAX_FAILED_SHARE,) -> None:
    """Build RGB test inputs from DATA, ask the app under test, and print a table per ability."""
    out_dir = out or Path("assay-out") / f"robustness-{suite}-{data.stem}"
    with exit_on_errors(
        f"\ninterrupted: answers so far are in {out_dir / 'results.jsonl'}; rerun "
        "with --resume to continue."):
        if not target:
            raise AssayError("--target is required: python:package.module:function, "
                             "openai:MODEL or http:URL.")
        ratios = comma_numbers("--noise-ratios", noise_ratios, float, "0,0.2,0.4")
        if any(not 0 <= r <= 1 for r in ratios):
            raise AssayError(f"Got --noise-ratios {noise_ratios!r}. Each must be in [0, 1].")
        if judge is not None:
            check_judge_spec(judge)
            if suite != "rejection":
                raise AssayError(f"--judge applies to the rejection suite only (got --suite "
                                 f"{suite}). Drop --judge, or use --suite rejection.")
        instances = load_rgb(data)[:limit]
        with Job(out_dir, kind="robustness", folder=True, store=store_arg(store, no_store),
                 name=f"robustness {suite}", tags=["robustness", suite], dataset=str(data),
                 judge=judge) as job:  # the folder held, the run recorded as it goes
            begin_suite(job, instances, suite, k=passages, ratios=ratios, seed=seed,
                        lang=lang, resume=resume, overwrite=overwrite,
                        settings={"suite": suite, "target": target, "dataset": str(data),
                                  "passages": passages, "noise_ratios": ratios})
            # a store that cannot open (--store or ASSAY_STORE) has stopped the command here,
            # before the app or judge is asked
            app = make_target(target, timeout=timeout)
            records, managed = asyncio.run(_ask(
                instances, suite, app, judge, out=out_dir, k=passages, ratios=ratios,
                resume=resume, lang=lang, parallel=parallel, seed=seed, job=job,
                calls=call_options(concurrency=concurrency, timeout=timeout,
                                   max_attempts=max_attempts, max_wait=max_wait, tpm=tpm,
                                   rpm=rpm, cache=cache, no_cache=no_cache)))
            table = summarize(records)
            meta = {"suite": suite, "target": app.id, "dataset": str(data),
                    "passages": passages, "noise_ratios": ratios}
            if managed is not None:
                meta["judge"] = {"id": managed.id, **managed.stats.as_dict()}
            # the app's own cost (what it reported its calls used), at genai-prices' prices
            meta["cost"] = {"app": app_cost_line(AppUsage.of_rows(records, app.id),
                                                 PriceBook.load())}
            write_summary(out_dir, table, meta)
            run_id = job.finish({"table": table, **meta, "rows": len(records),
                                 "complete": all(r.get("error") is None for r in records)})
    view = Table(title=f"assay robustness: {suite}, {len(instances)} instances, {target}")
    columns = [c for c in ("noise_ratio", "n", "unscored", "correct_rate", "rejected_rate",
                           "rejected_judge_rate", "judge_unscored", "detected_rate", "corrected_rate", "repeats_fake_rate")
               if any(c in row for row in table)]
    for c in columns:
        view.add_column(c, justify="right")
    for row in table:
        view.add_row(*(str(row.get(c, "-")) for c in columns))
    Console().print(view)
    err.print(f"answers: {out_dir / 'results.jsonl'}  summary: {out_dir / 'summary.json'}"
              + (f"  stored run: {run_id}" if run_id else ""), highlight=False)
    exit_if_failed(suite_failures(records), max_failed_share)


async def _ask(instances: list[Instance], suite: str, app: Any, judge: str | None, *,
               calls: JudgeCallOptions, parallel: int, **options: Any
               ) -> tuple[list[dict[str, Any]], ManagedJudge | None]:
    """Run the suite with the judge (when given) and the app, opened here and closed here,
    once, whatever happens; the records and the managed judge (for its stats)."""
    try:
        async with AsyncExitStack() as stack:
            managed = (await stack.enter_async_context(open_judge(judge, calls))
                       if judge else None)
            records = await run_suite(instances, suite, app, judge=managed, parallel=parallel,
                                      progress=sys.stderr.isatty(), max_wait=calls.max_wait,
                                      **options)
    finally:
        await close_target(app)
    return records, managed
