"""``evaluate()``: validate, plan, score every row (concurrently, within budget), write, summarise.

Example:
    >>> from assay.judges import FakeJudge
    >>> result = evaluate([{"question": "Q?", "answer": "Paris.", "ground_truth": "Paris"}],
    ...                   metrics="f1_score,fluency", judge=FakeJudge(),
    ...                   judging=JudgeOptions(cache=None))
    >>> result.summary["metrics"]["f1_score"]["mean"], result.summary["metrics"]["fluency"]["mean"]
    (1.0, 5.0)
"""

from __future__ import annotations

import functools
import logging
import time
from collections.abc import AsyncIterator, Callable, Coroutine, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, ParamSpec

from ..calls import JudgeCallOptions
from ..costs import PriceBook
from ..data import DatasetStream, Row, row_inputs
from ..embeddings import Embedder, check_embedder_spec
from ..judges import Judge
from ..metrics import Metric, Plan
from ..records import (
    EvalResult,
    Job,
    ResultSink,
    ResultsWriter,
    RowProgress,
    RunManifest,
    attempt,
    file_sha256,
    kept_results,
    load_finished,
    reorder_results,
    start_recording,
    typed_summary,
    write_summary,
)
from ..store import Store
from ._complete import AgentStage, RowAgent
from ._folding import _GROUPS, _OWN_KEYWORDS, resolve_options
from ._options import JudgeOptions, ReadOptions, RunOptions, ScoringOptions
from ._setup import (
    ENGINES,
    add_usage,
    check_engine,
    judge_list,
    make_runner,
    read_and_plan,
    unavailable_metrics,
)
from ._sync import run_sync
from ._tally import RunTally, run_summary

__all__ = ["ENGINES", "evaluate", "evaluate_async"]


log = logging.getLogger("assay")
P = ParamSpec("P")

# The defaults of a plain call (frozen, so one instance serves every call).
_DEFAULT_READ, _DEFAULT_SCORING = ReadOptions(), ScoringOptions()
_DEFAULT_JUDGING, _DEFAULT_RUN = JudgeOptions(), RunOptions()


async def evaluate_async(
    data: str | Path | Iterable[Mapping[str, Any]],
    *,
    metrics: str | Sequence[str | Metric] = "auto",
    judge: str | Judge | Sequence[str | Judge] = "local",
    embeddings: str | Embedder = "local",
    reading: ReadOptions = _DEFAULT_READ,
    scoring: ScoringOptions = _DEFAULT_SCORING,
    judging: JudgeOptions | JudgeCallOptions = _DEFAULT_JUDGING,
    run: RunOptions = _DEFAULT_RUN,
    on_plan: Callable[[Plan], None] | None = None,
    agent: RowAgent | None = None,
    **deprecated: Any,
) -> EvalResult:
    """Evaluate a dataset file or in-memory rows and return per-row results and a summary.

    Args:
        data: a ``.jsonl`` / ``.json`` / ``.csv`` path, or an iterable of dicts.
        metrics: ``"auto"`` (every metric the fields allow), ``"a,b"``, or a list.
        judge: ``"local"``, ``"local:PATH.gguf"``, ``"openai:MODEL"``,
            ``"openai:MODEL@URL"``, ``"azure:DEPLOYMENT"``, or a Judge instance; or a list:
            a panel (every judge metric asked of each, combined per row as in
            :mod:`assay.run._panel`; each judge's agreement and usage in ``summary["panel"]``).
        embeddings: ``"local"`` (offline all-MiniLM-L6-v2) or ``"openai:MODEL"``, for
            ``semantic_similarity``; one instance per run, loaded once.
        reading: how the dataset is read (:class:`ReadOptions`: column mapping, field length).
        scoring: how metrics ask and count (:class:`ScoringOptions`: rubric language, judge
            style, injection handling, safety threshold).
        judging: how judge calls are made (:class:`JudgeOptions`: concurrency, token and
            request budget, retries, timeout, cache; or the
            :class:`~assay.calls.JudgeCallOptions` the other model-calling functions take).
        run: where the results go and where rows are scored (:class:`RunOptions`: output
            folder, resume, run store, progress, engine).
        on_plan: called with the plan (metrics to run, skipped lines) before scoring starts.
        agent: completes the rows it wants before they are scored: conversations ending with
            a user turn, and QA rows with a question and no answer, whose answer it gives
            (``assay.agents.make_agent("python:module:function")``; see
            :mod:`assay.run._complete`). The plan is then made for the rows as it leaves them.
        **deprecated: the flat keywords of earlier releases (``lang="zh"``, ``out=...``):
            each still works, with a DeprecationWarning naming the option object that holds
            it now; it wins over the same field of an option object passed too.

    A dataset file is read as a stream: checked once (every problem reported before any
    judge call), then read again row by row while scoring, with results written in dataset
    order as they finish; aggregates are kept as running sums.

    Raises:
        DataError: the dataset has problems (all listed), before any judge call.
        ConfigError: a bad option or a missing install.
    """
    options = resolve_options(reading=reading, scoring=scoring, judging=judging, run=run,
                              legacy=deprecated, caller="evaluate_async")
    judging, run = options.judging, options.run
    store, keep_rows, resume = run.store, run.keep_rows, run.resume
    started = time.monotonic()
    settings = options.scoring.settings()  # the one typed settings object, each value checked
    check_engine(run.engine)
    judges = judge_list(judge)  # each spec checked
    judge = judges[0] if len(judges) == 1 else judges
    check_embedder_spec(embeddings)
    prices = PriceBook.load(getattr(judging, "prices", None))  # a bad file: before any call
    unavailable = unavailable_metrics(embeddings)
    out_dir = Path(run.out) if run.out else None
    # Hold the output folder first (the jobs' one claim: its lock, then its run.json): a
    # second run on it fails at once, before any reading. The run records itself (store=None).
    job = Job(out_dir, kind=run.kind, folder=True).__enter__() if out_dir is not None else None
    try:
        source, dataset, total, plan = read_and_plan(
            data, metrics, unavailable=unavailable, mapping=options.reading.mapping,
            max_field_chars=options.reading.max_field_chars,
            long_fields=options.reading.long_fields, agent=agent)
        if on_plan is not None:
            on_plan(plan)
        runner = make_runner(plan, judge=judge, embeddings=embeddings,
                              unavailable=unavailable, settings=options.score_settings(settings),
                              engine=run.engine, ray_address=run.ray_address,
                              ray_workers=run.ray_workers)
    except BaseException:
        if job is not None:
            job.close()
        raise
    results_path = out_dir / "results.jsonl" if out_dir else None
    names = [m.name for m in plan.metrics]
    complete = False
    sink = None
    # the bytes read (a piped dataset's copy: "-" names no file)
    dataset_sha256 = file_sha256(source.path) if isinstance(source, DatasetStream) else None
    try:
        if job is not None:
            job.begin(RunManifest(
                dataset=dataset, dataset_sha256=dataset_sha256,
                metrics={m.name: m.version for m in plan.metrics}, judge=runner.judge_id,
                judging={"fence": settings.fence, "on_injection": settings.on_injection,
                         "injection_detector": settings.injection_detector,
                         "repeat": run.repeat}),
                resume=resume, overwrite=run.overwrite)
        claim = job.claim if job is not None else None
        previous_run = claim.previous if (claim is not None and resume) else None
        finished = load_finished(results_path) if (previous_run and results_path) else {}
        recorder, stored_id = start_recording(
            store, previous_id=previous_run.run_id if previous_run is not None else None,
            unchanged=bool(finished) and len(finished) >= total and all(
                all(n in kept_results(record) for n in names) for record in finished.values()),
            kind=run.kind, name=run.run_name, tags=run.tags,
            dataset=dataset if isinstance(data, (str, Path)) else None,
            dataset_sha256=dataset_sha256,
            metrics={m.name: m.version for m in plan.metrics}, judge=runner.judge_id,
            settings=options.recorded_settings(
                settings, judge=judge, embeddings=embeddings, out_dir=out_dir,
                ray_workers=getattr(runner, "workers", None))
            | ({"agent": agent.id} if agent is not None else {}))
        if job is not None and recorder:  # a resume finds the stored run
            job.run_id = recorder.run_id
            job.update_manifest()
    except BaseException:
        await runner.aclose()
        if job is not None:
            job.abandon()
        raise
    failures: list[Exception] = []  # wrap-up steps that failed (a full disk): raised at the end
    try:
        writer = ResultsWriter(results_path, append=bool(finished)) if results_path else None
        with RowProgress(total, enabled=run.progress) as bar:
            sink = ResultSink(RunTally(plan.metrics), writer=writer, recorder=recorder,
                              progress=bar, keep=keep_rows, ordered=not finished)

            stage = AgentStage(agent, names) if agent is not None else None

            async def items() -> AsyncIterator[tuple[Row, Mapping[str, Any]]]:
                pairs = ((row, kept_results(finished.get(row.id, {}))) for row in source)
                async for row, previous in (stage.rows(pairs) if stage else _each(pairs)):
                    inputs = row_inputs(row) if recorder is not None else None
                    if previous and all(n in previous for n in names):
                        sink.add(previous, new=False, inputs=inputs)
                        continue
                    await sink.room()
                    sink.expect(row.id, inputs=inputs)
                    if stage is not None and (failed := stage.failed(row.id)) is not None:
                        sink.add(failed)  # the agent gave nothing to score
                        continue
                    yield row, previous

            await runner.run(items(), sink.add if stage is None else
                             lambda record: sink.add(stage.finish(record)))
        sink.close()  # the file's last bytes: a disk that refuses them leaves the run unfinished
        complete = True
    finally:
        # Each step is tried whatever failed before it; the run is complete only if every row
        # and the summary were written (a full disk leaves it interrupted, for --resume).
        if sink is not None:
            attempt(failures, sink.close)
        usage = runner.stats()
        await runner.aclose()
        if complete and results_path and finished:
            complete = attempt(failures, lambda: reorder_results(
                results_path, (row.id for row in source)))
        tally = sink.tally if sink is not None else RunTally(plan.metrics)
        summary = run_summary(total, tally, plan.metrics, started, dataset, settings.lang,
                           plan.skipped, complete, options=settings.as_dict(),
                           dataset_sha256=claim.manifest.dataset_sha256
                           if claim is not None and claim.manifest is not None else None,
                           on_injection=settings.on_injection, prices=prices)
        add_usage(summary, runner, usage, prices)
        if agent is not None:
            summary["agent"] = agent.summary()
        if recorder is not None or stored_id:  # stored_id: a complete run resumed, unchanged
            summary["run_id"] = recorder.run_id if recorder is not None else stored_id
        summary = typed_summary(summary)  # checked, with its schema_version
        if out_dir and not attempt(failures, lambda: write_summary(out_dir, summary)):
            complete = summary["complete"] = False
        if recorder is not None:
            complete = attempt(failures, lambda: recorder.finish(
                summary, complete=complete, prompt_sha256=tally.prompt_sha256)) and complete
            if not isinstance(store, Store):
                attempt(failures, recorder.store.close)
        if job is not None:
            job.run_id = summary.get("run_id")
            attempt(failures, lambda: job.finish(summary) if complete else job.close())
            job.close()
    if failures:
        raise failures[0]
    rows_out = sink.kept if sink is not None else []
    if keep_rows and finished:  # a resumed run's records came in the order they finished
        order = {row.id: i for i, row in enumerate(source)}
        rows_out = sorted(rows_out, key=lambda r: order.get(str(r["id"]), len(order)))
    return EvalResult(rows=rows_out, summary=summary, skipped=plan.skipped, out_dir=out_dir)


async def _each(pairs: Iterable[tuple[Row, dict[str, Any]]],
                ) -> AsyncIterator[tuple[Row, dict[str, Any]]]:
    for pair in pairs:
        yield pair


def _synchronous(run_async: Callable[P, Coroutine[Any, Any, EvalResult]],
                 ) -> Callable[P, EvalResult]:
    """``run_async`` as a blocking call with the same typed parameters (see :func:`run_sync`).
    Its deprecated keywords are folded into the option objects here, before the run starts,
    so their warnings point at the caller's line."""

    @functools.wraps(run_async)
    def call(*args: P.args, **kwargs: P.kwargs) -> EvalResult:
        passed: dict[str, Any] = dict(kwargs)
        legacy = {key: passed.pop(key) for key in list(passed) if key not in _KEYWORDS}
        options = resolve_options(
            reading=passed.get("reading", _DEFAULT_READ),
            scoring=passed.get("scoring", _DEFAULT_SCORING),
            judging=passed.get("judging", _DEFAULT_JUDGING),
            run=passed.get("run", _DEFAULT_RUN), legacy=legacy, caller="evaluate")
        passed.update(reading=options.reading, scoring=options.scoring,
                      judging=options.judging, run=options.run)
        start: Callable[..., Coroutine[Any, Any, EvalResult]] = run_async
        return run_sync(lambda: start(*args, **passed))

    return call


#: The keywords of :func:`evaluate_async` that are not deprecated: its own, and the option
#: objects'.
_KEYWORDS = frozenset({"data", *_OWN_KEYWORDS, *_GROUPS})

evaluate = _synchronous(evaluate_async)
evaluate.__name__ = evaluate.__qualname__ = "evaluate"
evaluate.__doc__ = """Evaluate a dataset and return per-row results and a summary: :func:`evaluate_async`
    from synchronous code, which works inside a running event loop too (a notebook cell, a
    web handler: the run then goes to a worker thread, which also calls ``on_plan``, and this
    thread waits for it; from async code, ``await evaluate_async(...)`` does not block the loop).

    Example:
        >>> from assay import FakeJudge, JudgeOptions, RunOptions, ScoringOptions
        >>> rows = [{"question": "Capital of France?", "answer": "Paris.", "ground_truth": "Paris"}]
        >>> evaluate(rows, metrics="f1_score").summary["metrics"]["f1_score"]["mean"]
        1.0
        >>> result = evaluate(rows, metrics="f1_score,fluency", judge=FakeJudge(),
        ...                   scoring=ScoringOptions(lang="en", on_injection="flag"),
        ...                   judging=JudgeOptions(concurrency=4, cache=False),
        ...                   run=RunOptions(keep_rows=False))
        >>> result.summary["metrics"]["fluency"]["mean"], result.rows
        (5.0, [])
    """
