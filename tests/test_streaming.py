"""Streaming at size: the dataset read twice as a stream, results written in order as rows
finish, aggregates as running sums, and back-pressure that keeps memory bounded."""

from __future__ import annotations

import asyncio
import json
import random
import re
from pathlib import Path

import pytest

import assay.data._stream as stream_module
from assay import JudgeOptions, RunOptions, evaluate
from assay.data import DatasetStream, Row, read_dataset
from assay.errors import DataError
from assay.judges import Accept, FakeJudge, JudgeRequest, JudgeResponse
from assay.metrics import MetricPlanner, MetricResult, get_metric, plan_metrics
from assay.metrics.safety import defect_summary
from assay.records import ResultSink
from assay.records._interval import mean_interval
from assay.run._tally import ExactSum, RunTally
from support import timeless

ROWS = [{"id": f"r{i}", "question": f"What is item {i}?", "context": f"Item {i} is a red tent.",
         "answer": f"Item {i} is a red tent.", "ground_truth": f"A red tent ({i})."}
        for i in range(12)]


def _write(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


class _EarlyRowsSlow(FakeJudge):
    """Answers the first rows last: their requests take longer than the later rows'."""

    async def complete(self, request: JudgeRequest, *,
                       accept: Accept | None = None) -> JudgeResponse:
        text = request.messages[-1]["content"]
        slow = any(f"item {i}?" in text or f"Item {i} " in text for i in range(3))
        await asyncio.sleep(0.05 if slow else 0.001)
        return await super().complete(request, accept=accept)


def test_results_are_written_in_dataset_order_when_early_rows_finish_last(tmp_path: Path) -> None:
    data = _write(tmp_path / "d.jsonl", ROWS)
    judge = _EarlyRowsSlow('{"score": 4, "reason": "ok"}')
    res = evaluate(data, metrics="groundedness,f1_score", judge=judge,
                   judging=JudgeOptions(cache=None, concurrency=4),
                   run=RunOptions(out=tmp_path / "out", keep_rows=False))
    assert res.rows == []  # nothing kept: the records are in the file
    lines = (tmp_path / "out" / "results.jsonl").read_text().splitlines()
    assert [json.loads(x)["id"] for x in lines] == [r["id"] for r in ROWS]
    kept = evaluate(ROWS, metrics="groundedness,f1_score", judge=FakeJudge(
        '{"score": 4, "reason": "ok"}'), judging=JudgeOptions(cache=None))
    assert timeless(json.loads(x) for x in lines) == timeless(kept.rows)
    assert res.summary["metrics"] == kept.summary["metrics"]
    assert res.summary["rows"] == res.summary["rows_done"] == 12


def test_a_file_and_the_same_records_in_memory_give_the_same_result(tmp_path: Path) -> None:
    data = _write(tmp_path / "d.jsonl", ROWS)
    from_file = evaluate(data, metrics="f1_score,exact_match,bleu_score",
                         judging=JudgeOptions(cache=None))
    in_memory = evaluate(ROWS, metrics="f1_score,exact_match,bleu_score",
                         judging=JudgeOptions(cache=None))
    assert from_file.rows == in_memory.rows and len(from_file.rows) == 12
    assert from_file.summary["metrics"] == in_memory.summary["metrics"]


def test_resume_after_a_partial_file_rewrites_it_in_dataset_order(tmp_path: Path) -> None:
    data = _write(tmp_path / "d.jsonl", ROWS)
    out = tmp_path / "out"
    full = evaluate(data, metrics="f1_score", judging=JudgeOptions(cache=None),
                    run=RunOptions(out=out))
    lines = (out / "results.jsonl").read_text().splitlines()
    (out / "results.jsonl").write_text("\n".join([lines[7], lines[2]]) + "\n")  # two kept
    res = evaluate(data, metrics="f1_score", judging=JudgeOptions(cache=None),
                   run=RunOptions(out=out, resume=True))
    again = (out / "results.jsonl").read_text().splitlines()
    assert [json.loads(x) for x in again] == full.rows == res.rows
    assert res.summary["metrics"] == full.summary["metrics"]


def test_run_tally_equals_each_metric_aggregate_whatever_the_order() -> None:
    rng = random.Random(7)
    metrics = [get_metric(n) for n in ("groundedness", "violence", "refusal")]
    records = []
    for i in range(300):
        rec: dict = {"id": str(i)}
        for m in metrics:
            if rng.random() < 0.1:
                rec[m.name] = MetricResult.unscored(
                    rng.choice(["judge answer is not valid", "does not apply: no x"])).model_dump()
            elif m.name == "refusal":
                rec[m.name] = MetricResult(value=float(rng.random() < 0.3)).model_dump()
            else:
                hi = 7 if m.name == "violence" else 5
                rec[m.name] = MetricResult(value=float(rng.randint(0, hi)),
                                           weighted=rng.uniform(0, hi)).model_dump()
        records.append(rec)
    expected = {}
    for m in metrics:
        results = [MetricResult.model_validate(r[m.name]) for r in records]
        agg = m.aggregate(results)
        if m.name == "violence":
            refused = [None if r["refusal"]["value"] is None else r["refusal"]["value"] == 1.0
                       for r in records]
            agg["defects"] = defect_summary(results, "high", refused)
        # the mean's interval, from the scored values whatever order they came in
        interval = mean_interval(r.value for r in results if r.value is not None)
        expected[m.name] = {**agg, **(interval.fields() if interval else {})}
    for order in (records, list(reversed(records)), rng.sample(records, len(records))):
        tally = RunTally(metrics)
        for rec in order:
            tally.add(rec)
        got = tally.metrics({"safety_threshold": "high"})
        for name, agg in expected.items():
            reasons = got[name].pop("unscored_reasons")
            assert got[name] == agg, name
            assert sum(reasons.values()) == agg["unscored"]


def test_exact_sum_does_not_depend_on_order() -> None:
    values = [1e16, 1.0, -1e16, 0.1, 0.2, 0.3] * 50
    sums = set()
    for seed in range(5):
        s = ExactSum()
        for x in random.Random(seed).sample(values, len(values)):
            s.add(x)
        sums.add(s.value)
    assert len(sums) == 1 and abs(sums.pop() - 50 * (1.0 + 0.1 + 0.2 + 0.3)) < 1e-9


def test_sink_waits_when_the_window_is_full_and_writes_held_rows_on_close(
        tmp_path: Path) -> None:
    from assay.records._results import ResultsWriter

    async def go() -> list[str]:
        writer = ResultsWriter(tmp_path / "results.jsonl")
        sink = ResultSink(RunTally([get_metric("exact_match")]), writer=writer, window=2)
        sink.expect("a")
        sink.expect("b")
        with pytest.raises(TimeoutError):  # two rows out and unwritten: the feeder waits
            await asyncio.wait_for(sink.room(), 0.05)
        sink.add({"id": "b", "exact_match": {"value": 1.0}})  # held: "a" is not written yet
        assert (tmp_path / "results.jsonl").read_text() == ""
        with pytest.raises(TimeoutError):
            await asyncio.wait_for(sink.room(), 0.05)
        sink.expect("c")  # (after room) a third row goes out
        sink.add({"id": "a", "exact_match": {"value": 0.0}})  # writes a, then b
        await asyncio.wait_for(sink.room(), 0.05)
        sink.add({"id": "c", "exact_match": {"value": None, "error": "x"}})
        sink.expect("d")
        sink.expect("e")
        sink.add({"id": "e", "exact_match": {"value": 1.0}})  # d never finishes: interrupted
        sink.close()
        return [json.loads(x)["id"] for x in (tmp_path / "results.jsonl").read_text().splitlines()]

    assert asyncio.run(go()) == ["a", "b", "c", "e"]  # e held for d, still written on close


def test_stream_reports_every_problem_and_duplicates_like_read_dataset(tmp_path: Path) -> None:
    rows = [{"id": "a", "answer": "x"}, {"id": "b", "answer": "y"}, {"id": "a", "answer": "z"},
            {"id": "c"}, {"id": "b", "answer": "w"}]
    path = _write(tmp_path / "d.jsonl", rows)
    with path.open("a") as f:
        f.write("{not json\n")
    with pytest.raises(DataError) as streamed:
        DatasetStream(path).check()
    with pytest.raises(DataError) as whole:
        read_dataset(path)
    assert sorted(streamed.value.problems) == sorted(whole.value.problems)
    assert any(re.search(r"duplicate id ['\"]a['\"] \(also on line 1\)", p)
               for p in streamed.value.problems)
    assert any("line 5" in p and re.search(r"duplicate id ['\"]b['\"]", p)
               for p in streamed.value.problems)
    assert len(streamed.value.problems) == 4


def test_ids_with_the_same_hash_are_not_reported_as_duplicates(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = _write(tmp_path / "d.jsonl", [{"id": str(i), "answer": "x"} for i in range(5)]
                  + [{"id": "3", "answer": "again"}])
    monkeypatch.setattr(stream_module, "hash", lambda _id: 42, raising=False)  # all collide
    with pytest.raises(DataError) as e:
        DatasetStream(path).check()
    assert e.value.problems == [(f"{path} line 6, field 'id': duplicate id '3' (also on line 4)."
                                " Fix: give every row a unique id.")]


def test_stream_reads_csv_and_json_arrays_and_sees_a_file_change(tmp_path: Path) -> None:
    csv_path = tmp_path / "d.csv"
    csv_path.write_text("id,question,answer\n1,Q?,A.\n2,R?,B.\n")
    array = tmp_path / "d.json"
    array.write_text(json.dumps([{"answer": "a"}, {"answer": "b"}]))
    for path in (csv_path, array):
        stream = DatasetStream(path)
        assert stream.check() == 2
        assert [r.model_dump() for r in stream] == [r.model_dump() for r in read_dataset(path)]
    stream = DatasetStream(csv_path)
    stream.check()
    csv_path.write_text("id,question,answer\n1,Q?\n")  # a value removed after the check
    with pytest.raises(DataError, match="changed while it was being evaluated"):
        list(stream)


def test_planner_over_chunks_equals_planning_all_rows() -> None:
    rows = [Row(id=str(i), line=i, answer="a") for i in range(1, 2500)]
    rows.append(Row(id="last", line=2500, answer="a", ground_truth="a", context="c"))
    for spec in ("auto", "f1_score,groundedness,context_recall"):
        planner = MetricPlanner(spec)
        for start in range(0, len(rows), 1000):
            planner.add(rows[start:start + 1000])
        chunked, whole = planner.finish(), plan_metrics(rows, spec)
        assert [m.name for m in chunked.metrics] == [m.name for m in whole.metrics]
        assert chunked.skipped == whole.skipped
        assert "f1_score" in [m.name for m in chunked.metrics]  # only the last row allows it
