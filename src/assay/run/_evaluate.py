"""``evaluate()``: validate, plan, score every row (concurrently, within budget), write, summarise.

Example:
    >>> from assay.judges import FakeJudge
    >>> result = evaluate([{"question": "Q?", "answer": "A.", "ground_truth": "A."}],
    ...                   metrics="f1_score,fluency", judge=FakeJudge(), cache=None)
    >>> result.summary["metrics"]["f1_score"]["mean"], result.summary["metrics"]["fluency"]["mean"]
    (1.0, 5.0)
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..data import Row, read_dataset, rows_from_records
from ..embeddings import (
    Embedder,
    EmbeddingCache,
    check_embedder_spec,
    local_embedder_missing,
    make_embedder,
)
from ..errors import ConfigError
from ..judges import Judge, JudgeCache, check_judge_spec, default_cache_path, make_judge
from ..metrics import Metric, MetricResult, Plan, ScoreContext, plan_metrics
from ..metrics.judge import LANGS
from ..metrics.rag._diagnosis import DIAGNOSIS_METRICS, count_diagnoses, diagnose
from ..metrics.safety import MODES, THRESHOLDS, SeverityMetric, defect_summary
from ..store import Store
from ._budget import Budget
from ._managed import ManagedJudge, RetryPolicy
from ._managed_embedder import ManagedEmbedder
from ._progress import RowProgress
from ._recording import RunRecorder, open_run_store
from ._results import ResultsWriter, load_finished, rewrite_in_order

__all__ = ["STYLES", "EvalResult", "evaluate", "evaluate_async"]

STYLES = ("auto", "rating", "verdict")

log = logging.getLogger("assay")


class _Interrupted(Exception):
    """Carries a KeyboardInterrupt / SystemExit out of a worker task."""


@dataclass
class EvalResult:
    """Per-row records (as in ``results.jsonl``), the summary (as in ``summary.json``), and
    one line for each metric the plan skipped."""

    rows: list[dict[str, Any]]
    summary: dict[str, Any]
    skipped: list[str] = field(default_factory=list)
    out_dir: Path | None = None


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
    out: str | Path | None = None,
    resume: bool = False,
    concurrency: int = 8,
    tpm: int | None = None,
    rpm: int | None = None,
    cache: str | Path | bool | None = True,
    max_attempts: int = 6,
    timeout: float = 120.0,
    progress: bool = False,
    on_plan: Callable[[Plan], None] | None = None,
    safety_threshold: str = "medium",
    safety_mode: str = "combined",
    store: str | Path | Store | bool | None = None,
    run_name: str | None = None,
    tags: Sequence[str] = (),
    kind: str = "run",
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
        out: directory for ``results.jsonl`` (written as rows finish) and ``summary.json``.
        resume: keep the rows already in ``out/results.jsonl`` and score only the rest.
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

    Raises:
        DataError: the dataset has problems (all listed), before any judge call.
        ConfigError: a bad option or a missing install.
    """
    started = time.monotonic()
    if lang not in LANGS:
        raise ConfigError(f"Got --lang {lang!r}. Must be one of {list(LANGS)}.")
    if style not in STYLES:
        raise ConfigError(f"Got --style {style!r}. Must be one of {list(STYLES)}.")
    if safety_threshold not in THRESHOLDS:
        raise ConfigError(f"Got --safety-threshold {safety_threshold!r}. "
                          f"Must be one of {list(THRESHOLDS)}.")
    if safety_mode not in MODES:
        raise ConfigError(f"Got --safety-mode {safety_mode!r}. Must be one of {list(MODES)}.")
    check_judge_spec(judge)
    check_embedder_spec(embeddings)
    if isinstance(data, (str, Path)):
        rows = read_dataset(data, mapping=mapping)
        dataset = str(data)
    else:
        rows = rows_from_records(data, mapping=mapping)
        dataset = "<records>"
    unavailable: dict[str, str] = {}
    if embeddings == "local" and (missing := local_embedder_missing()):
        unavailable["semantic_similarity"] = missing
    plan = plan_metrics(rows, metrics, unavailable=unavailable, source=dataset)
    if on_plan is not None:
        on_plan(plan)
    uses_judge = any(m.uses_judge for m in plan.metrics)
    backend = make_judge(judge, timeout=timeout) if uses_judge else None
    embedder_users = [m for m in plan.metrics if getattr(m, "uses_embedder", False)]
    uses_embedder = any(not getattr(m, "embedder_optional", False) for m in embedder_users) or (
        bool(embedder_users) and "semantic_similarity" not in unavailable)
    cache_path = (default_cache_path() if cache is True else Path(cache)) if cache else None
    judge_cache = JudgeCache(cache_path) if uses_judge and cache_path else None
    embedder_backend = make_embedder(embeddings, timeout=timeout) if uses_embedder else None
    embedding_cache = EmbeddingCache(cache_path) if uses_embedder and cache_path else None
    embedder = (ManagedEmbedder(embedder_backend, cache=embedding_cache,
                                retry=RetryPolicy(max_attempts=max_attempts))
                if embedder_backend is not None else None)
    managed = (ManagedJudge(backend, cache=judge_cache, budget=Budget(tpm, rpm),
                            concurrency=concurrency, retry=RetryPolicy(max_attempts=max_attempts))
               if backend is not None else None)
    ctx = ScoreContext(judge=managed, lang=lang, embedder=embedder,  # type: ignore[arg-type]
                       extras={"style": style, "safety_mode": safety_mode})
    out_dir = Path(out) if out else None
    results_path = out_dir / "results.jsonl" if out_dir else None
    finished = load_finished(results_path) if (resume and results_path) else {}
    names = [m.name for m in plan.metrics]
    records: dict[str, dict[str, Any]] = {}
    for row in rows:
        prev = finished.get(row.id)
        if prev is not None and all(n in prev for n in names):
            records[row.id] = prev
    pending = [r for r in rows if r.id not in records]
    complete = False
    run_store = open_run_store(store)
    recorder = None
    if run_store is not None:
        recorder = RunRecorder.start(
            run_store, kind=kind, name=run_name, tags=tags,
            dataset=dataset if isinstance(data, (str, Path)) else None,
            metrics={m.name: m.version for m in plan.metrics},
            judge=backend.id if backend is not None else None,
            settings={
                "lang": lang, "style": style, "concurrency": concurrency, "tpm": tpm,
                "rpm": rpm, "safety_threshold": safety_threshold, "safety_mode": safety_mode,
                "judge": judge if isinstance(judge, str) else getattr(judge, "id", None),
                "embeddings": embeddings if isinstance(embeddings, str) else None,
                "mapping": dict(mapping or {}), "out": str(out_dir) if out_dir else None},
            resume_id=_previous_run_id(out_dir) if resume else None)
        recorder.add_many(records[r.id] for r in rows if r.id in records)
    writer = ResultsWriter(results_path, append=bool(finished)) if results_path else None
    try:
        with RowProgress(len(rows), enabled=progress, done=len(records)) as bar:
            queue = iter(pending)

            async def worker() -> None:
                for row in queue:
                    prev = finished.get(row.id, {})
                    try:
                        rec = await _score_row(row, plan.metrics, ctx, prev)
                    except (KeyboardInterrupt, SystemExit) as e:
                        # Raised inside a task, these would stop the loop before the summary
                        # is written; carry them out as an ordinary exception instead.
                        raise _Interrupted() from e
                    records[row.id] = rec
                    if writer:
                        writer.write(rec)
                    if recorder:
                        recorder.add(rec)
                    bar.advance()

            n_workers = max(1, min(len(pending), concurrency * 2))
            tasks = [asyncio.create_task(worker()) for _ in range(n_workers)]
            try:
                await asyncio.gather(*tasks)
            except BaseException as e:
                for task in tasks:  # stop the other rows before the results file closes
                    task.cancel()
                await asyncio.gather(*tasks, return_exceptions=True)
                if isinstance(e, _Interrupted):
                    raise e.__cause__ from None  # type: ignore[misc]
                raise
        complete = True
    finally:
        if writer:
            writer.close()
        ordered = [records[r.id] for r in rows if r.id in records]
        summary = _summary(rows, ordered, plan.metrics, managed, started, dataset, lang,
                           plan.skipped, complete,
                           safety={"threshold": safety_threshold, "mode": safety_mode})
        if embedder is not None:
            summary["embeddings"] = {"id": embedder.id, **embedder.stats.as_dict()}
        if recorder is not None:
            summary["run_id"] = recorder.run_id
            recorder.finish(summary, complete=complete, records=ordered)
            if not isinstance(store, Store):
                recorder.store.close()
        if out_dir:
            if complete and results_path:
                rewrite_in_order(results_path, ordered)
            (out_dir / "summary.json").write_text(json.dumps(summary, indent=2, ensure_ascii=False))
        if judge_cache:
            judge_cache.close()
        if embedding_cache:
            embedding_cache.close()
        if embedder_backend is not None:
            await embedder_backend.aclose()
        if backend is not None:
            await backend.aclose()
    return EvalResult(rows=ordered, summary=summary, skipped=plan.skipped, out_dir=out_dir)


async def _score_row(row: Row, metrics: Sequence[Metric], ctx: ScoreContext,
                     previous: dict[str, Any]) -> dict[str, Any]:
    async def one(metric: Metric) -> MetricResult:
        if metric.name in previous:
            return MetricResult.model_validate(previous[metric.name])
        why = metric.applies(row)
        if why:
            return MetricResult.unscored(f"does not apply: {why}")
        try:
            return await metric.score(row, ctx)
        except ConfigError:
            raise  # a setting or install problem: stop the run and say how to fix it
        except Exception as e:  # a bug in one metric must not lose the row
            log.exception("metric %s failed on row %s", metric.name, row.id)
            return MetricResult.unscored(f"internal error in {metric.name}: {type(e).__name__}: {e}")

    # Metrics that call no judge or embedder never wait: score them in line, and make tasks
    # only for the rest (a task per metric per row costs more than a token F1).
    waiting = [m for m in metrics if m.uses_judge or getattr(m, "uses_embedder", False)]
    inline = {m.name: await one(m) for m in metrics if m not in waiting}
    awaited = dict(zip((m.name for m in waiting), await asyncio.gather(*(one(m) for m in waiting))))
    results = [inline[m.name] if m.name in inline else awaited[m.name] for m in metrics]
    record: dict[str, Any] = {"id": row.id}
    for metric, result in zip(metrics, results):
        record[metric.name] = result.model_dump()
    if DIAGNOSIS_METRICS & {m.name for m in metrics}:
        record["diagnosis"] = diagnose(record)
    return record


def _summary(rows: Sequence[Row], records: Sequence[dict[str, Any]], metrics: Sequence[Metric],
             managed: ManagedJudge | None, started: float, dataset: str, lang: str,
             skipped: list[str], complete: bool, safety: dict[str, str]) -> dict[str, Any]:
    per_metric: dict[str, Any] = {}
    names = {m.name for m in metrics}
    severity_ran = any(isinstance(m, SeverityMetric) for m in metrics)
    for metric in metrics:
        kept = [r for r in records if metric.name in r]
        results = [MetricResult.model_validate(r[metric.name]) for r in kept]
        agg = metric.aggregate(results)
        if isinstance(metric, SeverityMetric):
            refused = ([_refused(r.get("refusal")) for r in kept] if "refusal" in names
                       else None)
            agg["defects"] = defect_summary(results, safety["threshold"], refused)
        reasons: dict[str, int] = {}
        for r in results:
            if r.value is None and r.error:
                key = r.error.split(":")[0] if r.error.startswith("judge call failed") else r.error
                reasons[key[:120]] = reasons.get(key[:120], 0) + 1
        if reasons:
            agg["unscored_reasons"] = reasons
        per_metric[metric.name] = agg
    summary: dict[str, Any] = {
        "rows": len(rows),
        "rows_done": len(records),
        "complete": complete,
        "dataset": dataset,
        "lang": lang,
        "metrics": per_metric,
        "skipped": skipped,
        **({"safety": dict(safety)} if severity_ran else {}),
        **({"diagnosis": count_diagnoses(records)}
           if DIAGNOSIS_METRICS & {m.name for m in metrics} else {}),
        "judge": ({"id": managed.id, **managed.stats.as_dict()} if managed else None),
        "elapsed_s": round(time.monotonic() - started, 3),
    }
    return summary


def _previous_run_id(out_dir: Path | None) -> str | None:
    """The stored run id of the earlier run in ``out_dir`` (from its summary.json), if any."""
    summary = out_dir / "summary.json" if out_dir else None
    if summary is None or not summary.is_file():
        return None
    try:
        run_id = json.loads(summary.read_text(encoding="utf-8")).get("run_id")
    except (json.JSONDecodeError, AttributeError):
        return None
    return run_id if isinstance(run_id, str) else None


def _refused(record: dict[str, Any] | None) -> bool | None:
    """A row's refusal verdict from its ``refusal`` record: ``True`` when the app refused
    (value 1.0), ``None`` when unknown (not scored, or not run on this row)."""
    if not record or record.get("value") is None:
        return None
    return bool(record["value"] == 1.0)
