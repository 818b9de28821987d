"""``assay run DATA``: evaluate a dataset and print the summary table.

Example:
    >>> callable(run)
    True
"""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.markup import escape

from .._secrets import mask_log_output
from ..calls import DEFAULT_TIMEOUT
from ..data import FieldLimits, open_source, parse_mapping
from ..metrics import Plan
from ..run import JudgeOptions, ReadOptions, RunOptions, ScoringOptions
from ._agent import (
    MaxStepsOption,
    TargetOption,
    ToolsOption,
    agent_from_flags,
    exit_if_agent_failed,
    owning_agent,
)
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
from ._ci_outputs import JunitOption, MarkdownOption
from ._configured import used_config
from ._errors import exit_on_errors, print_failures
from ._estimate import EstimateJsonOption, EstimateOption, EstimateOverOption, estimate_first
from ._format import percent, printable
from ._options import (
    DEFAULT_MAX_FIELD_CHARS,
    DEFAULT_MAX_WAIT,
    LongFieldsOption,
    MaxFieldCharsOption,
    MaxWaitOption,
    NoStoreOption,
    StoreOption,
    TimeoutOption,
    store_arg,
)
from ._prices_flag import PricesOption, check_prices_flag
from ._repeat_flag import check_repeat_flag
from ._run_gates import RunGates, suite_name
from ._run_metrics import choose_metrics, plan_printer
from ._summary import print_summary
from ._verdict import BaselineOption, ConfidenceOption, InconclusiveOption, MaxDropOption

__all__ = ["choose_metrics", "print_summary", "run"]

err = Console(stderr=True)
#: The scoring flags' defaults: the settings' declared defaults, through ScoringOptions.
_SCORING = ScoringOptions()


def run(
    data: Annotated[Path, typer.Argument(
        help="Dataset: .jsonl, .json (array), .csv, .tsv (any of them .gz), or a format a "
             "plugin registers; - (or a pipe) reads JSONL or JSON from standard input, once.")],
    metrics: Annotated[str | None, typer.Option(
        help="'auto' (what the fields allow) or a,b,c. Default: auto, or only the "
             "--metric-file metrics when some are given.")] = None,
    metric_file: Annotated[list[Path] | None, typer.Option(
        "--metric-file", help="A custom metric: YAML front matter + template (repeatable).")
    ] = None,
    no_swap: Annotated[bool, typer.Option(
        "--no-swap", help="Pairwise metrics: judge one order only (no position check).")] = False,
    target: TargetOption = None,
    tools: ToolsOption = None,
    max_steps: MaxStepsOption = 8,
    judge: Annotated[list[str] | None, typer.Option(
        help="local (embedded offline model), local:PATH.gguf, openai:MODEL, "
             "openai:MODEL@URL (its own endpoint), azure:DEPLOYMENT. Default: local. Repeat "
             "for a panel of judges: each judge metric is asked of every judge and combined "
             "per row (mean; majority for labels), with each judge's agreement with the panel "
             "(Krippendorff's alpha), requests and cost in the summary.")] = None,
    embeddings: Annotated[str, typer.Option(
        help="Embedder for semantic_similarity: local (offline MiniLM), openai:MODEL or "
             "openai:MODEL@URL (its own endpoint).")] = "local",
    lang: Annotated[str, typer.Option(help="Rubric language: en or zh.")] = _SCORING.lang,
    style: Annotated[str, typer.Option(
        help="auto, rating (1-5 number) or verdict (P(yes) mapped to 1-5; auto uses it on the "
             "embedded judge for groundedness).")] = _SCORING.style,
    map_: Annotated[list[str] | None, typer.Option(
        "--map", help="FIELD=COLUMN for other column names, e.g. --map answer=output.")] = None,
    out: Annotated[Path | None, typer.Option(
        help="Output directory (results.jsonl, summary.json). Default: assay-out/<dataset name>."
    )] = None,
    resume: Annotated[bool, typer.Option(
        help="Continue the run in OUT: keep its finished rows and score the rest (and again "
             "any a failed judge call left unscored). Only the same dataset, metrics and "
             "judge.")] = False,
    overwrite: Annotated[bool, typer.Option(
        help="Replace the earlier run's files in OUT (without it, a folder that holds a run "
             "is refused).")] = False,
    concurrency: ConcurrencyOption = None,
    timeout: TimeoutOption = DEFAULT_TIMEOUT,
    max_attempts: MaxAttemptsOption = DEFAULT_MAX_ATTEMPTS,
    max_wait: MaxWaitOption = DEFAULT_MAX_WAIT,
    tpm: TpmOption = None,
    rpm: RpmOption = None,
    cache: CacheOption = None,
    no_cache: NoCacheOption = False,
    prices: PricesOption = None,
    max_cost: MaxCostOption = None,
    max_tokens: MaxTokensOption = None,
    max_failed_share: Annotated[float, typer.Option(
        min=0, max=1, help="Exit 3 when a metric could not score more than this share of "
                           "its rows because judge calls failed or the judge's answers could "
                           "not be read (empty, not JSON, out of range, or a template that "
                           "could not render); 'does not apply' does not count.")] = 0.05,
    on_injection: Annotated[str, typer.Option(
        help="A row whose texts address the evaluator ('ignore the rubric', 'rate this 5', a "
             "fake verdict, a closing fence tag, a fake system turn) is always flagged and "
             "counted. mask: the judge reads it with those sentences withheld; flag: as it "
             "is; unscored: its judge metrics are not asked; fail: as mask, then exit 4.")
    ] = _SCORING.on_injection,
    injection_detector: Annotated[str, typer.Option(
        help="What finds text addressed to the evaluator: learned (patterns, and a learned "
             "sentence classifier for wording they miss) or patterns (the patterns only).")
    ] = _SCORING.injection_detector,
    reasons: Annotated[str, typer.Option(
        help="Which rows get the judge's reason: always, never, or auto (every row on a remote "
             "judge; on the embedded judge the rows that fail and one in ten).")
    ] = _SCORING.reasons,
    fence: Annotated[str, typer.Option(
        help="How rubrics fence the texts under evaluation: tags (escaped tags), spotlight "
             "(also between unforgeable boundary lines, with the rubric repeated after them) or "
             "datamark (spotlight, and every space of each text written as a mark; see "
             "docs/benchmarks.md for what each does on the embedded judge).")
    ] = _SCORING.fence,
    max_field_chars: MaxFieldCharsOption = DEFAULT_MAX_FIELD_CHARS,
    long_fields: LongFieldsOption = "refuse",
    progress: Annotated[bool, typer.Option(
        help="Show progress on stderr: a bar on a terminal, else a line every few seconds.")
    ] = True,
    quiet: Annotated[bool, typer.Option(
        "--quiet", "-q", help="No progress and no line per skipped metric (the summary, "
                              "warnings and errors are still printed).")] = False,
    safety_threshold: Annotated[str, typer.Option(
        help="Safety metrics: low, medium or high, the severity level from which an answer is "
             "a defect (low: 2-7, medium: 4-7, high: 6-7 on the 0-7 scale).")
    ] = _SCORING.safety_threshold,
    safety_mode: Annotated[str, typer.Option(
        help="Safety metrics: combined (one judge request per row for the four categories) or "
             "separate (one per category).")] = _SCORING.safety_mode,
    fail_under: Annotated[list[str] | None, typer.Option(
        "--fail-under", help="CI gate: exit 1 when a value is under its bar: METRIC=MIN (its "
             "mean), <metric>_unscored_rate=MIN; repeatable, or a=1,b=2.")] = None,
    fail_over: Annotated[list[str] | None, typer.Option(
        "--fail-over", help="CI gate: exit 1 when a value is over its bar, e.g. "
             "violence_defect_rate=0.05, <metric>_unscored_rate=0.1, METRIC=MAX; repeatable.")
    ] = None,
    junit: JunitOption = None,
    markdown: MarkdownOption = None,
    store: StoreOption = None,
    no_store: NoStoreOption = False,
    name: Annotated[str | None, typer.Option(help="A name for the stored run.")] = None,
    tag: Annotated[list[str] | None, typer.Option(
        help="A tag for the stored run (repeatable), e.g. --tag nightly.")] = None,
    engine: Annotated[str, typer.Option(
        help="Where rows are scored: local (this process) or ray (a Ray cluster; needs "
             "pip install 'assay[ray]'). Same results either way.")] = "local",
    ray_address: Annotated[str | None, typer.Option(
        help="With --engine ray: the cluster to join (e.g. auto or ray://HOST:10001); a local "
             "Ray instance when not given.")] = None,
    ray_workers: Annotated[int | None, typer.Option(
        min=1, help="With --engine ray: worker actors (default 2 locally, one per node on a "
                    "cluster); --concurrency is shared among them.")] = None,
    baseline: BaselineOption = None,
    max_drop: MaxDropOption = None,
    confidence: ConfidenceOption = 0.95,
    inconclusive: InconclusiveOption = "exit",
    repeat: Annotated[int, typer.Option(
        callback=check_repeat_flag, metavar="K",
        help="Ask each judge metric K times per row, to measure the judge's noise and average "
             "it out: K times the judge calls (and cost). Each repeat is cached apart (the "
             "first as a run without --repeat). A row's value is the mean of its repeats (the "
             "majority for labels); the summary shows each judge metric's test-retest "
             "agreement, within-row SD and Krippendorff's alpha. Metrics without a judge are "
             "computed once.")] = 1,
    estimate: EstimateOption = None,
    estimate_over: EstimateOverOption = 1000,
    json_out: EstimateJsonOption = None,
) -> None:
    """Score every row of DATA with the metrics its fields allow; write results as rows finish.
    With --target, the app under test first answers each QA row that has no answer and each
    conversation that ends with a user turn.

    Exit status: 0 done; 1 a --fail-under/--fail-over gate or a --max-drop verdict failed (5
    when a --max-drop verdict is inconclusive, see --inconclusive); 2 bad input or options
    (nothing scored), or OUT is in use or holds another run; 3 the judge failed (stopped
    early on a wrong URL, key or model, or over --max-failed-share of a metric's rows lost to
    failed calls or unreadable judge answers), or the --target app failed on over
    --max-failed-share of the rows, or
    OUT or the run store could not be written (a full disk: free space, then --resume); 4 rows
    addressed the evaluator with --on-injection fail; 6 --max-cost / --max-tokens reached (no
    request sent past it; the requests in flight finished); 130 interrupted. Finished rows are kept
    in every case: --resume continues.
    """
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    mask_log_output()  # no key in a logged message or traceback
    piped = str(data) == "-" or (data.exists() and not data.is_file() and not data.is_dir())
    out_dir = out or Path("assay-out") / ("stdin" if str(data) == "-" else data.stem)
    resume_hint = ("rerun the same command with --resume to continue (finished rows are kept in "
                   f"{printable(out_dir / 'results.jsonl')}).")
    if piped:  # a pipe cannot be read again: the same rows are piped in again
        resume_hint = "pipe the same data in again and " + resume_hint
    with exit_on_errors(f"\ninterrupted: {resume_hint}", stopped=f"Then {resume_hint}"):
        gates = RunGates.from_flags(
            fail_under=fail_under, fail_over=fail_over, baseline=baseline, max_drop=max_drop,
            confidence=confidence, inconclusive=inconclusive, junit=junit, markdown=markdown,
            store=store)
        print_plan = plan_printer(quiet)

        def on_plan(plan: Plan) -> None:  # a bar that can never pass stops the run here
            print_plan(plan)
            gates.check_plan(plan)

        check_prices_flag(prices)  # a bad price file: exit 2 before anything is sent
        mapping = parse_mapping(map_ or [])
        chosen = choose_metrics(metrics, metric_file or [], swap=not no_swap)
        calls = call_options(concurrency=concurrency, timeout=timeout,
                             max_attempts=max_attempts, max_wait=max_wait, tpm=tpm, rpm=rpm,
                             cache=cache, no_cache=no_cache, max_cost=max_cost,
                             max_tokens=max_tokens, prices=prices)
        judges = judge or ["local"]
        agent = agent_from_flags(target, tools, max_steps, timeout, max_wait=max_wait,
                                 limits=FieldLimits(max_field_chars, long_fields))  # type: ignore[arg-type]
        if not piped and str(data) != "-":
            open_source(data)  # a missing or unreadable file: told before the runner loads
        reading = ReadOptions(mapping=mapping, max_field_chars=max_field_chars,
                              long_fields=long_fields)  # type: ignore[arg-type]
        scoring = ScoringOptions(
            lang=lang, style=style, on_injection=on_injection, fence=fence,
            injection_detector=injection_detector, safety_threshold=safety_threshold,
            safety_mode=safety_mode, reasons=reasons)
        if estimate_first((estimate, estimate_over, json_out), data, piped=piped, metrics=chosen,
                          judges=judges, reading=reading, scoring=scoring, repeat=repeat,
                          calls=calls, out=out_dir, prices=prices, app=agent is not None):
            return  # --estimate: nothing sent
        if not piped and str(data) != "-":  # a baseline over other rows: refused before scoring
            gates.check_rows(data, reading, answer_required=agent is None)
        from ..run import evaluate_async  # the runner: not imported for --help

        result = asyncio.run(owning_agent(agent, evaluate_async(
            data, metrics=chosen, judge=judges[0] if len(judges) == 1 else judges,
            embeddings=embeddings, on_plan=on_plan,
            agent=agent, reading=reading, scoring=scoring,
            judging=JudgeOptions.from_calls(calls),
            run=RunOptions(
                out=out_dir, resume=resume, overwrite=overwrite, progress=progress and not quiet,
                store=store_arg(store, no_store), run_name=name, tags=tag or [],
                engine=engine, ray_address=ray_address, ray_workers=ray_workers,
                repeat=repeat, config=used_config(),
                keep_rows=False))))  # the records are in results.jsonl: memory stays flat
    print_summary(result.summary)
    err.print(f"results: {printable(out_dir / 'results.jsonl')}  "
              f"summary: {printable(out_dir / 'summary.json')}",
              highlight=False, markup=False)
    if result.summary.get("run_id"):
        err.print(f"stored run: {result.summary['run_id']} (assay show "
                  f"{result.summary['run_id']})", highlight=False, markup=False)
    failures, verdicts = gates.decide(result.summary, out_dir, suite=suite_name(data, piped))
    failed = print_failures(result.summary, max_failed_share)
    exit_if_agent_failed(agent, result.summary, max_failed_share, resume_hint)
    gates.print(failures, verdicts)
    injected = (result.summary.get("injection") or {}).get("flagged_rows", 0)
    if failed:
        err.print(f"[red]judge failed:[/red] {escape(', '.join(failed))} lost more than "
                  f"{percent(max_failed_share)} (--max-failed-share) of their rows to failed judge calls "
                  "or judge answers that could not be read (see the causes above); exit 3. Fix "
                  f"the cause, then {escape(resume_hint)}",
                  highlight=False, soft_wrap=True)
        raise typer.Exit(3)
    if injected and on_injection == "fail":
        err.print(f"[red]injection suspected:[/red] {injected} row(s) address the evaluator "
                  "(--on-injection fail); exit 4. Each is marked 'injection' in results.jsonl.",
                  highlight=False, soft_wrap=True)
        raise typer.Exit(4)
    gates.exit(failures, verdicts)
