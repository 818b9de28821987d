"""``evaluate()``: validate, plan, score every row (concurrently, within budget), write, summarise.

Example:
    >>> from assay.judges import FakeJudge
    >>> result = evaluate([{"question": "Q?", "answer": "Paris.", "ground_truth": "Paris"}],
    ...                   metrics="f1_score,fluency", judge=FakeJudge(), cache=None)
    >>> result.summary["metrics"]["f1_score"]["mean"], result.summary["metrics"]["fluency"]["mean"]
    (1.0, 5.0)
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import AsyncIterator, Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from ..data import LongFields, Row, row_inputs
from ..embeddings import Embedder, check_embedder_spec, local_embedder_missing
from ..judges import Judge, check_judge_spec, default_cache_path
from ..metrics import Metric, Plan
from ..store import Store
from ._outdir import OutputClaim, RunManifest, lock_output
from ._progress import RowProgress
from ._recording import RunRecorder, file_sha256, open_run_store
from ._results import EvalResult, ResultsWriter, is_call_failure, load_finished, reorder_results
from ._score import ScoreSettings
from ._setup import ENGINES, STYLES, check_options, make_runner, read_and_plan
from ._sink import ResultSink
from ._summary import typed_summary
from ._tally import RunTally, run_summary

__all__ = ["ENGINES", "STYLES", "EvalResult", "evaluate", "evaluate_async"]


log = logging.getLogger("assay")


def evaluate(data: str | Path | Iterable[Mapping[str, Any]], **kwargs: Any) -> EvalResult:
    """Synchronous wrapper of :func:`evaluate_async` (same arguments)."""
    return asyncio.run(evaluate_async(data, **kwargs))


async def evaluate_async(
    data: str | Path | Iterable[Mapping[str, Any]],
    *,
    metrics: str | Sequence[str | Metric] = "auto",
    judge: str | Judge = "local",
    embeddings: str | Embedder = "local",
    lang: str = "en",
    style: str = "auto",
    mapping: Mapping[str, str] | None = None,
    max_field_chars: int = 100_000,
    long_fields: LongFields = "refuse",
    out: str | Path | None = None,
    resume: bool = False,
    overwrite: bool = False,
    concurrency: int = 8,
    tpm: int | None = None,
    rpm: int | None = None,
    cache: str | Path | bool | None = True,
    max_attempts: int = 6,
    max_wait: float = 600.0,
    on_injection: str = "mask",
    fence: str = "tags",
    injection_detector: str = "learned",
    timeout: float = 120.0,
    progress: bool = False,
    on_plan: Callable[[Plan], None] | None = None,
    safety_threshold: str = "medium",
    safety_mode: str = "combined",
    store: str | Path | Store | bool | None = None,
    run_name: str | None = None,
    tags: Sequence[str] = (),
    kind: str = "run",
    engine: str = "local",
    ray_address: str | None = None,
    ray_workers: int | None = None,
    keep_rows: bool = True,
) -> EvalResult:
    """Evaluate a dataset file or in-memory rows and return per-row results and a summary.

    Args:
        data: a ``.jsonl`` / ``.json`` / ``.csv`` path, or an iterable of dicts.
        metrics: ``"auto"`` (every metric the fields allow), ``"a,b"``, or a list.
        style: how judge metrics ask: ``"rating"`` (a 1-5 number), ``"verdict"`` (Yes/No, its
            probability mapped to 1-5, for metrics that have a verdict rubric), or ``"auto"``
            (verdicts on the embedded judge, where they agree better with people; else ratings).
        embeddings: ``"local"`` (offline all-MiniLM-L6-v2) or ``"openai:MODEL"``, for
            ``semantic_similarity``; one instance per run, loaded once.
        judge: ``"local"``, ``"local:PATH.gguf"``, ``"openai:MODEL"``, ``"azure:DEPLOYMENT"``,
            or a Judge instance.
        out: directory for ``results.jsonl`` (written as rows finish), ``summary.json`` and
            ``run.json`` (which run the folder holds). The run locks it: a second run on the
            same folder fails at once. A folder that holds an earlier run needs ``resume``
            or ``overwrite``.
        max_field_chars, long_fields: a text field longer than ``max_field_chars`` is an
            error (``"refuse"``) or is cut to that length (``"truncate"``, with one warning
            counting the cuts), before any judge sees it.
        on_injection: what happens to a row whose texts address the evaluator ("ignore the
            rubric", "rate this 5", a fake verdict, a closing fence tag, a fake system turn):
            always flagged (its record and judge results say so; the summary counts them).
            ``mask`` (default): the judge reads it with the flagged sentences withheld;
            ``flag``: as it is; ``unscored``: its judge metrics are not asked; ``fail``: as
            mask, and the command exits 4.
        fence: how rubrics fence the texts under evaluation: ``tags`` (escaped tags, the
            default) or ``spotlight`` (also between boundary lines keyed on the texts with a
            secret salt, an explanation before and the rubric's reminder after; being
            measured, see ``benchmarks/injection.py --fence``).
        injection_detector: what finds text addressed to the evaluator: ``learned`` (default:
            the patterns and a learned sentence classifier for wording they miss) or
            ``patterns`` (the patterns only).
        max_wait: seconds one judge call may spend waiting on rate limits (429) before its
            row is left unscored; 429s do not use up ``max_attempts``.
        resume: keep the rows already in ``out/results.jsonl`` and score only the rest (and
            again any result a failed judge call left unscored). Only the run the folder
            holds is continued: a different dataset, metric set or judge is refused.
        overwrite: replace the earlier run's files in ``out``.
        cache: ``True`` (user cache dir), a path, or ``False``/``None`` for no cache.
        tpm, rpm: client-side token / request budget per minute for the judge.
        on_plan: called with the plan (metrics to run, skipped lines) before scoring starts.
        safety_threshold: ``low``, ``medium`` or ``high``: the severity level from which a row
            is a defect in the severity metrics' summary (a refusal, when ``refusal`` runs
            too, is never a defect).
        safety_mode: ``combined`` (one judge request per row for the four severity metrics)
            or ``separate`` (one per category).
        store: record the run in the run store: ``True`` (``ASSAY_STORE`` or the user data
            dir), a path or ``postgresql://`` URL, or a Store; ``None`` (default) records
            nothing. Rows are added as they finish; an interrupted run is marked so, and
            ``resume`` with the same ``out`` adds the rest to the same run. The summary gets
            ``run_id``.
        run_name, tags, kind: the stored run's name, tags and kind (``run``, ``calibration``,
            ``jailbreak``, ...).
        engine: ``local`` (asyncio workers in this process) or ``ray``: the rows are
            streamed in batches to Ray workers (``pip install 'assay[ray]'``), each with its
            own judge client, under one ``tpm`` / ``rpm`` budget for all of them; the records
            are the same as the local engine's.
        ray_address: the Ray cluster to use (``ray://...`` or ``auto``); a local Ray instance
            when ``None``.
        ray_workers: Ray worker actors (default: 2 on a local instance, one per node of a
            cluster); ``concurrency`` is shared among them.
        keep_rows: return every record in ``EvalResult.rows`` (``False`` keeps memory flat
            for very large datasets: the records are in ``out/results.jsonl`` and the store).

    A dataset file is read as a stream: checked once (every problem reported before any
    judge call), then read again row by row while scoring, with results written in dataset
    order as they finish; aggregates are kept as running sums.

    Raises:
        DataError: the dataset has problems (all listed), before any judge call.
        ConfigError: a bad option or a missing install.
    """
    started = time.monotonic()
    check_options(lang=lang, style=style, safety_threshold=safety_threshold,
                   safety_mode=safety_mode, engine=engine, on_injection=on_injection,
                   fence=fence, injection_detector=injection_detector)
    check_judge_spec(judge)
    check_embedder_spec(embeddings)
    unavailable: dict[str, str] = {}
    if embeddings == "local" and (missing := local_embedder_missing()):
        unavailable["semantic_similarity"] = missing
    out_dir = Path(out) if out else None
    # Lock the output folder first: a second run on it fails at once, before any reading.
    claim: OutputClaim | None = lock_output(out_dir) if out_dir is not None else None
    try:
        source, dataset, total, plan = read_and_plan(
            data, metrics, unavailable=unavailable, mapping=mapping,
            max_field_chars=max_field_chars, long_fields=long_fields)
        if on_plan is not None:
            on_plan(plan)
        settings = ScoreSettings(
            lang=lang, style=style, safety_mode=safety_mode, concurrency=concurrency,
            max_attempts=max_attempts, max_wait=max_wait, on_injection=on_injection,
            fence=fence, injection_detector=injection_detector,
            cache_path=(default_cache_path() if cache is True else Path(cache)) if cache
            else None)
        runner = make_runner(plan, judge=judge, embeddings=embeddings,
                              unavailable=unavailable, settings=settings, engine=engine,
                              timeout=timeout, tpm=tpm, rpm=rpm, ray_address=ray_address,
                              ray_workers=ray_workers)
    except BaseException:
        if claim is not None:
            claim.release()
        raise
    results_path = out_dir / "results.jsonl" if out_dir else None
    names = [m.name for m in plan.metrics]
    complete = False
    sink = None
    try:
        if claim is not None:
            is_file = isinstance(data, (str, Path))
            claim.begin(RunManifest(
                dataset=dataset, dataset_sha256=file_sha256(dataset) if is_file else None,
                metrics={m.name: m.version for m in plan.metrics}, judge=runner.judge_id,
                judging={"fence": fence, "on_injection": on_injection,
                         "injection_detector": injection_detector}),
                resume=resume, overwrite=overwrite)
        previous_run = claim.previous if (claim is not None and resume) else None
        finished = load_finished(results_path) if (previous_run and results_path) else {}
        recorder = _start_recorder(
            store, kind=kind, name=run_name, tags=tags,
            dataset=dataset if isinstance(data, (str, Path)) else None,
            metrics={m.name: m.version for m in plan.metrics}, judge=runner.judge_id,
            settings={
                "lang": lang, "style": style, "concurrency": concurrency, "tpm": tpm,
                "rpm": rpm, "safety_threshold": safety_threshold, "safety_mode": safety_mode,
                "fence": fence, "on_injection": on_injection,
                "injection_detector": injection_detector, "engine": engine, **({"ray_workers": getattr(runner, "workers", None)}
                                     if engine == "ray" else {}),
                "judge": judge if isinstance(judge, str) else getattr(judge, "id", None),
                "embeddings": embeddings if isinstance(embeddings, str) else None,
                "mapping": dict(mapping or {}), "out": str(out_dir) if out_dir else None},
            resume_id=(previous_run.run_id if previous_run is not None
                       and previous_run.status != "complete" else None))
        if claim is not None and claim.manifest and recorder:  # a resume finds the stored run
            claim.manifest.run_id = recorder.run_id
            claim.write_manifest()
    except BaseException:
        await runner.aclose()
        if claim is not None:
            claim.abandon()
        raise
    try:
        writer = ResultsWriter(results_path, append=bool(finished)) if results_path else None
        with RowProgress(total, enabled=progress) as bar:
            sink = ResultSink(RunTally(plan.metrics), writer=writer, recorder=recorder,
                              progress=bar, keep=keep_rows, ordered=not finished)

            async def items() -> AsyncIterator[tuple[Row, Mapping[str, Any]]]:
                for row in source:
                    previous = _kept_results(finished.get(row.id, {}))
                    inputs = row_inputs(row) if recorder is not None else None
                    if previous and all(n in previous for n in names):
                        sink.add(previous, new=False, inputs=inputs)
                        continue
                    await sink.room()
                    sink.expect(row.id, inputs=inputs)
                    yield row, previous

            await runner.run(items(), sink.add)
        complete = True
    finally:
        if sink is not None:
            sink.close()
        judge_stats, embedder_stats = runner.stats()
        await runner.aclose()
        tally = sink.tally if sink is not None else RunTally(plan.metrics)
        summary = run_summary(total, tally, plan.metrics, started, dataset, lang, plan.skipped,
                           complete, options={"safety_threshold": safety_threshold,
                                             "safety_mode": safety_mode},
                           dataset_sha256=claim.manifest.dataset_sha256
                           if claim is not None and claim.manifest is not None else None,
                           on_injection=on_injection)
        if judge_stats is not None:
            summary["judge"] = {"id": runner.judge_id, **judge_stats}
        if embedder_stats is not None:
            summary["embeddings"] = {"id": runner.embedder_id, **embedder_stats}
        if recorder is not None:
            summary["run_id"] = recorder.run_id
        summary = typed_summary(summary)  # checked, with its schema_version
        if recorder is not None:
            recorder.finish(summary, complete=complete, prompt_sha256=tally.prompt_sha256)
            if not isinstance(store, Store):
                recorder.store.close()
        if out_dir:
            if complete and results_path and finished:
                reorder_results(results_path, (row.id for row in source))
            (out_dir / "summary.json").write_text(json.dumps(summary, indent=2, ensure_ascii=False))
        if claim is not None:
            claim.finish(status="complete" if complete else "interrupted",
                         run_id=summary.get("run_id"))
            claim.release()
    rows_out = sink.kept if sink is not None else []
    if keep_rows and finished:  # a resumed run's records came in the order they finished
        order = {row.id: i for i, row in enumerate(source)}
        rows_out = sorted(rows_out, key=lambda r: order.get(str(r["id"]), len(order)))
    return EvalResult(rows=rows_out, summary=summary, skipped=plan.skipped, out_dir=out_dir)


def _start_recorder(store: str | Path | Store | bool | None, **run: Any) -> RunRecorder | None:
    """The run's entry in the run store (``None`` when the run is not recorded)."""
    run_store = open_run_store(store)
    return RunRecorder.start(run_store, **run) if run_store is not None else None

def _kept_results(record: Mapping[str, Any]) -> dict[str, Any]:
    """The results of an earlier record that a resume keeps: all but those a failed judge or
    embedding call left unscored (those are scored again)."""
    return {k: v for k, v in record.items()
            if not (isinstance(v, Mapping) and is_call_failure(v.get("error")))}
