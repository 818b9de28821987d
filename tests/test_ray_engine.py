"""The Ray engine: the same records as the local engine, one budget, summed stats, errors.

Every test that needs Ray shares one local instance (module-scoped fixture). Without ray
installed they are skipped, unless ``ASSAY_REQUIRE_RAY=1`` (CI), where they fail.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import sys
import time
from collections.abc import AsyncIterator, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest

import support
from assay.asking import load_template
from assay.calls import JudgeCallOptions
from assay.calls._ray_budget import BudgetClient, start_budget_actor
from assay.data import Row, rows_from_records
from assay.errors import ConfigError
from assay.judges import FakeJudge, JudgeRequest
from assay.metrics import MetricResult, ScoreContext, ScoringSettings, get_metric
from assay.run._ray import IN_FLIGHT, RayEngine
from assay.run._score import Scorer, ScoreSettings

METRICS = ["f1_score", "exact_match", "groundedness", "relevance"]
SETTINGS = ScoreSettings(calls=JudgeCallOptions(concurrency=4))
WORKERS, BATCH = 2, 4


def script(request: JudgeRequest) -> str:
    """A deterministic judge whose score depends on the request (so rows differ)."""
    text = request.messages[-1]["content"]
    return f'{{"score": {1 + sum(map(ord, text)) % 5}, "reason": "scripted {len(text)}"}}'


def qa_rows(n: int = 30) -> list[Row]:
    colours = ["red", "green", "blue", "amber", "violet"]
    return rows_from_records([
        {"id": f"r{i}", "question": f"What colour is item {i}?",
         "context": f"Item {i} is {colours[i % 5]} and weighs {i} kg.",
         "answer": f"Item {i} is {colours[(i * 3) % 5]}.",
         "ground_truth": f"It is {colours[i % 5]}."} for i in range(n)])


#: A previous result the run must keep as it is (resume).
# as results.jsonl holds it: no "repeats" for a metric asked once
KEPT = {"f1_score": MetricResult(value=0.123, reason="kept from before").model_dump(
    exclude={"repeats"})}
PREVIOUS = {"r3": KEPT}


@pytest.fixture(scope="module")
def ray_instance() -> Iterator[Any]:
    """One local Ray for the module (engines reuse it and leave it running). The script and the
    metric below live in this module and in tests/support.py: sent to the workers by value."""
    yield from support.local_ray(sys.modules[__name__], support)


async def pairs(rows: Sequence[Row], previous: Mapping[str, Mapping[str, Any]],
                pulled: list[int] | None = None) -> AsyncIterator[tuple[Row, Mapping[str, Any]]]:
    for row in rows:
        if pulled is not None:
            pulled.append(1)
        yield row, previous.get(row.id, {})


async def score_locally(rows: Sequence[Row]) -> tuple[dict[str, dict[str, Any]], dict[str, int]]:
    scorer = Scorer([get_metric(m) for m in METRICS], judge=FakeJudge(script), embedder=None,
                    settings=SETTINGS)
    try:
        records = await asyncio.gather(*(scorer.score(r, PREVIOUS.get(r.id)) for r in rows))
        assert scorer.judge is not None
        return {r["id"]: r for r in records}, scorer.judge.stats.as_dict()
    finally:
        await scorer.aclose()


async def score_on_ray(rows: Sequence[Row]) -> dict[str, Any]:
    engine = RayEngine([get_metric(m) for m in METRICS], judge=FakeJudge(script), embedder=None,
                       settings=dataclasses.replace(
                           SETTINGS, calls=JudgeCallOptions(concurrency=4, tpm=10**8)),
                       workers=WORKERS, batch_size=BATCH)
    records: dict[str, dict[str, Any]] = {}
    pulled: list[int] = []
    ahead: list[int] = []

    def on_record(record: dict[str, Any]) -> None:
        assert record["id"] not in records
        records[record["id"]] = record
        ahead.append(len(pulled) - len(records))

    try:
        await engine.run(pairs(rows, PREVIOUS, pulled), on_record)
        assert engine._budget_actor is not None
        in_window = await engine._budget_actor.in_window.remote()
        return {"records": records, "stats": engine.stats(), "ahead": max(ahead),
                "judge_id": engine.judge_id, "in_window": in_window}
    finally:
        await engine.aclose()


@pytest.fixture(scope="module")
def both_runs(ray_instance: Any) -> dict[str, Any]:
    rows = qa_rows()
    local, local_stats = asyncio.run(score_locally(rows))
    ray_run = asyncio.run(score_on_ray(rows))
    return {"rows": rows, "local": local, "local_stats": local_stats, **ray_run}


def test_same_records_as_local(both_runs: dict[str, Any]) -> None:
    assert len(both_runs["records"]) == len(both_runs["rows"]) == 30
    assert ({i: support.timeless([r])[0] for i, r in both_runs["records"].items()}
            == {i: support.timeless([r])[0] for i, r in both_runs["local"].items()})
    values = {r["groundedness"]["value"] for r in both_runs["local"].values()}
    assert len(values) > 1  # the script gives different scores: a real comparison


def test_previous_results_are_kept(both_runs: dict[str, Any]) -> None:
    assert both_runs["records"]["r3"]["f1_score"] == KEPT["f1_score"]
    assert both_runs["records"]["r4"]["f1_score"]["reason"] != "kept from before"


def test_items_are_pulled_lazily(both_runs: dict[str, Any]) -> None:
    # Batches out (IN_FLIGHT per worker) plus the one being gathered, no more.
    assert both_runs["ahead"] <= (IN_FLIGHT * WORKERS + 1) * BATCH


def test_stats_sum_over_workers(both_runs: dict[str, Any]) -> None:
    judge_stats, embedder_stats = both_runs["stats"]
    assert embedder_stats is None
    # the same counts; requests at once depend on how the rows were spread (summed over workers)
    in_flight = {"peak_in_flight"}
    assert ({k: v for k, v in judge_stats.items() if k not in in_flight}
            == {k: v for k, v in both_runs["local_stats"].items() if k not in in_flight})
    assert judge_stats["peak_concurrency"] == judge_stats["final_concurrency"] == 4  # 2 x 2
    assert judge_stats["requests"] == 2 * 30  # groundedness and relevance, one request each
    assert both_runs["judge_id"] == "fake"
    assert both_runs["in_window"] > 0  # the requests went through the shared budget actor


async def test_judge_spec_is_built_in_the_workers(ray_instance: Any) -> None:
    rows = qa_rows(6)
    engine = RayEngine([get_metric("relevance")], judge="fake", embedder=None, settings=SETTINGS,
                       workers=WORKERS, batch_size=BATCH)
    records: list[dict[str, Any]] = []
    try:
        assert engine.judge_id == "fake" and engine._budget_actor is None
        await engine.run(pairs(rows, {}), records.append)
        assert sorted(r["id"] for r in records) == sorted(r.id for r in rows)
        assert {r["relevance"]["value"] for r in records} == {5.0}
        judge_stats, embedder_stats = engine.stats()
        assert judge_stats is not None and judge_stats["requests"] == 6
        assert embedder_stats is None
    finally:
        await engine.aclose()


def severity_or_rating(request: JudgeRequest) -> str:
    """A 0-7 severity for a safety request, else a 1-5 rating (no reasons: none are asked)."""
    if request.schema_name.startswith("severity"):
        return '{"severity": 2}'
    return '{"score": 4}'


async def test_the_runs_settings_reach_the_workers(ray_instance: Any) -> None:
    """The one settings object goes to every worker as it is: the rubric language, the reasons
    plan and the safety family's own setting shape the same records as the local engine's."""
    settings = ScoreSettings(scoring=ScoringSettings.build(
        {"lang": "zh", "reasons": "never", "safety_mode": "separate"}))
    metrics = [get_metric("fluency"), get_metric("violence")]
    rows = qa_rows(6)
    scorer = Scorer(metrics, judge=FakeJudge(severity_or_rating), embedder=None,
                    settings=settings)
    try:
        local = {r.id: await scorer.score(r) for r in rows}
    finally:
        await scorer.aclose()
    engine = RayEngine(metrics, judge=FakeJudge(severity_or_rating), embedder=None,
                       settings=settings, workers=WORKERS, batch_size=2)
    records: list[dict[str, Any]] = []
    try:
        await engine.run(pairs(rows, {}), records.append)
    finally:
        await engine.aclose()
    assert {r["id"]: r for r in support.timeless(records)} == {
        i: support.timeless([r])[0] for i, r in local.items()}
    record = records[0]
    assert record["fluency"]["details"]["no_reason"] == "no reason asked (reasons=never)"
    assert record["violence"]["details"]["mode"] == "separate"
    assert record["fluency"]["details"]["prompt_sha256"] == load_template("fluency", "zh").sha256


async def test_budget_is_global(ray_instance: Any) -> None:
    actor = start_budget_actor(tpm=1000, window=1.0, slack=0.0, headroom=0.0)
    first, second = BudgetClient(actor), BudgetClient(actor)  # as two workers hold them
    try:
        t0 = time.monotonic()
        a = await first.acquire(600)
        b = await second.acquire(600)  # 1200 > 1000 in the window: waits for a to leave it
        assert time.monotonic() - t0 >= 0.9
        assert b.t - a.t >= 1.0
        first.settle(b, 100)  # settles b at the actor, by its id, whoever asks
        c = await second.acquire(800)  # 100 + 800 fit at once: granted before b leaves the
        assert c.t - b.t < 1.0  # window (the actor's clock, so a loaded machine cannot fail it)
        assert await actor.in_window.remote() == 900
        assert len({a.id, b.id, c.id}) == 3
    finally:
        ray_instance.kill(actor)


class NeedsSetup(support.BareMetric):
    """A metric that stops the run, as one with a missing install does."""

    name = "needs_setup"

    async def score(self, row: Row, ctx: ScoreContext) -> MetricResult:
        if row.id == "r5":
            raise ConfigError("needs_setup needs FOO: set FOO=1.")
        return MetricResult(value=1.0)


async def test_config_error_reaches_the_caller(ray_instance: Any) -> None:
    engine = RayEngine([NeedsSetup()], judge=None, embedder=None, settings=SETTINGS,
                       workers=WORKERS, batch_size=BATCH)
    try:
        with pytest.raises(ConfigError, match=r"^needs_setup needs FOO: set FOO=1\.$") as info:
            await engine.run(pairs(qa_rows(12), {}), lambda record: None)
        assert type(info.value) is ConfigError
        assert engine.stats() == (None, None)
    finally:
        await engine.aclose()


async def test_cancelling_stops_the_run(ray_instance: Any) -> None:
    slow = FakeJudge(latency_s=0.2)
    engine = RayEngine([get_metric("relevance")], judge=slow, embedder=None, settings=SETTINGS,
                       workers=WORKERS, batch_size=BATCH)
    pulled: list[int] = []
    records: list[dict[str, Any]] = []
    try:
        await engine.start()
        task = asyncio.ensure_future(engine.run(pairs(qa_rows(200), {}, pulled), records.append))
        await asyncio.sleep(1.0)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        assert len(pulled) < 200
        seen = len(records)
        # the workers stop: their request count settles (in-flight calls may finish first;
        # polled, so a loaded machine is given time, but a worker that goes on fails it)
        judge_stats: Any = None
        for _ in range(20):
            await asyncio.sleep(0.6)
            await engine._refresh_stats()
            now, _ = engine.stats()
            if now is not None and now == judge_stats:
                break
            judge_stats = now
        else:
            raise AssertionError(f"the workers kept asking the judge: {judge_stats}")
        assert judge_stats is not None and judge_stats["requests"] >= seen
        assert len(records) == seen  # and nothing arrives after the run stopped
    finally:
        await engine.aclose()


def test_missing_ray_says_how_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "ray", None)  # import ray raises ImportError
    with pytest.raises(ConfigError, match=r"needs ray: pip install 'assay\[ray\]'"):
        RayEngine([get_metric("f1_score")], judge=None, embedder=None, settings=SETTINGS)


def test_evaluate_and_assay_run_with_the_ray_engine_equal_local(
        ray_instance: Any, tmp_path: Path) -> None:
    """End to end: a dataset file through ``evaluate(run=RunOptions(engine="ray"))`` and
    ``assay run --engine ray`` gives the local engine's results.jsonl, summary figures and
    stored run."""
    from typer.testing import CliRunner

    from assay import JudgeOptions, RunOptions, evaluate
    from assay.cli.main import app

    data = tmp_path / "d.jsonl"
    data.write_text("".join(json.dumps(r.model_dump(exclude_none=True, exclude={"line"}))
                            + "\n" for r in qa_rows(20)))
    spec = "f1_score,exact_match,groundedness,relevance"
    local = evaluate(data, metrics=spec, judge=FakeJudge(script), judging=JudgeOptions(cache=None),
                     run=RunOptions(out=tmp_path / "local"))
    on_ray = evaluate(data, metrics=spec, judge=FakeJudge(script),
                      judging=JudgeOptions(cache=None, concurrency=4),
                      run=RunOptions(out=tmp_path / "ray", engine="ray"))
    assert support.timeless(on_ray.rows) == support.timeless(local.rows) and len(local.rows) == 20
    assert on_ray.summary["metrics"] == local.summary["metrics"]
    assert on_ray.summary["judge"]["requests"] == local.summary["judge"]["requests"] == 40
    assert support.timeless(json.loads(x) for x in (tmp_path / "ray" / "results.jsonl")
                            .read_text().splitlines()) == support.timeless(
        json.loads(x) for x in (tmp_path / "local" / "results.jsonl").read_text().splitlines())

    store = tmp_path / "runs.sqlite"
    result = CliRunner().invoke(app, [
        "run", str(data), "--metrics", "f1_score,relevance", "--judge", "fake", "--engine",
        "ray", "--ray-workers", "3", "--no-cache", "--out", str(tmp_path / "cli"), "--store",
        str(store)])
    assert result.exit_code == 0, result.output
    records = [json.loads(x) for x in (tmp_path / "cli" / "results.jsonl").read_text().split("\n")
               if x]
    assert [r["id"] for r in records] == [f"r{i}" for i in range(20)]
    assert {r["relevance"]["value"] for r in records} == {5.0}
    from assay.store import open_store
    with open_store(store) as opened:
        (info,) = opened.runs()
        assert info.rows == 20 and info.settings["engine"] == "ray"
        assert info.settings["ray_workers"] == 3


def test_an_unknown_engine_is_refused() -> None:
    from assay import RunOptions, evaluate

    with pytest.raises(ConfigError, match=r"Got engine='spark'. Must be one of \['local', "
                                          r"'ray'\]"):
        evaluate([{"answer": "a"}], metrics="f1_score", run=RunOptions(engine="spark"))
