"""Runs whose metrics never wait (no judge, no embedder) are scored in line, one row after
another in one task: the same records as the general path (worker tasks), written as they
finish, resumable, interruptible, and the event loop still gets a turn."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from assay import JudgeOptions, RunOptions, evaluate, evaluate_async
from assay.data import Row, rows_from_records
from assay.metrics import MetricResult, ScoreContext, get_metric, mean_aggregate
from assay.records import ResultSink
from assay.records._results import iter_jsonl_lines
from assay.run import EvalResult
from assay.run._local import LocalEngine
from assay.run._score import Scorer
from assay.run._tally import RunTally
from support import BareMetric

#: QA rows, scored and unscored (no ground truth, a ground truth without tokens, an empty
#: answer), CJK, a conversation, and extra fields.
MIXED: list[dict[str, Any]] = [
    {"id": "qa", "question": "Q?", "answer": "The tent weighs 1.3 kg", "ground_truth": "1.3 kg"},
    {"id": "no-truth", "answer": "Paris"},
    {"id": "dots", "answer": "Paris", "ground_truth": "..."},
    {"id": "empty-answer", "answer": "", "ground_truth": "Paris"},
    {"id": "cjk", "answer": "北京 大学", "ground_truth": "北京大学"},
    {"id": "conv", "messages": [{"role": "user", "content": "Hi?"},
                                {"role": "assistant", "content": "Hello."}],
     "ground_truth": "Hello"},
    {"id": "extra", "answer": "a red tent", "ground_truth": "the red tent", "team": "x"},
    *({"id": f"r{i}", "answer": f"item {i} is a {'red' if i % 2 else 'blue'} tent",
       "ground_truth": f"a red tent {i % 7}"} for i in range(300)),
]
LEXICAL = "f1_score,exact_match,rouge_l,bleu_score"


def _records(*, waits: bool) -> list[dict[str, Any]]:
    """The records of MIXED through the local engine, forced onto one path or the other, in
    the order the sink writes them."""
    metrics = [get_metric(n) for n in LEXICAL.split(",")]

    async def go() -> list[dict[str, Any]]:
        scorer = Scorer(metrics, judge=None, embedder=None)
        assert scorer.waits is False  # lexical metrics never wait
        scorer.waits = waits
        engine = LocalEngine(scorer, workers=8)
        sink = ResultSink(RunTally(metrics), keep=True)

        async def items():  # type: ignore[no-untyped-def]
            for row in rows_from_records(MIXED):
                sink.expect(row.id)
                yield row, {}

        await engine.run(items(), sink.add)
        sink.close()
        return sink.kept

    return asyncio.run(go())


def test_in_line_records_are_the_general_paths() -> None:
    in_line, general = _records(waits=False), _records(waits=True)
    assert in_line == general
    by_id = {r["id"]: r for r in in_line}
    assert by_id["no-truth"]["f1_score"]["error"] == "does not apply: row has no ground_truth"
    assert by_id["conv"]["f1_score"]["value"] is None
    assert by_id["dots"]["f1_score"]["details"] == {"ground_truth": "..."}
    assert by_id["empty-answer"]["f1_score"]["value"] == 0.0
    assert by_id["cjk"]["exact_match"]["value"] == 1.0


def test_only_runs_without_judge_or_embedder_go_in_line() -> None:
    from assay.judges import FakeJudge

    lexical = Scorer([get_metric("f1_score")], judge=None, embedder=None)
    judged = Scorer([get_metric("f1_score"), get_metric("fluency")], judge=FakeJudge(),
                    embedder=None)
    assert (lexical.waits, judged.waits) == (False, True)


def test_evaluate_writes_the_same_file_as_rows_are_scored(tmp_path: Path) -> None:
    res = evaluate(MIXED, metrics=LEXICAL, judging=JudgeOptions(cache=False),
                   run=RunOptions(out=tmp_path / "out", progress=False))
    lines = list(iter_jsonl_lines((tmp_path / "out" / "results.jsonl").read_text("utf-8")))
    assert [json.loads(x) for x in lines] == res.rows
    assert res.rows == _records(waits=True)
    assert res.summary["rows_done"] == len(MIXED) and res.summary["complete"] is True


class _StopsAt(BareMetric):
    """A lexical-like metric that raises KeyboardInterrupt (Ctrl-C) on one row."""

    name = "stops"

    def __init__(self, row_id: str | None) -> None:
        self.row_id = row_id

    async def score(self, row: Row, ctx: ScoreContext) -> MetricResult:
        if row.id == self.row_id:
            raise KeyboardInterrupt
        return MetricResult(value=float(len(row.answer or "") % 2))

    def aggregate(self, results: Any) -> dict[str, Any]:
        return mean_aggregate(results)


def test_ctrl_c_keeps_every_finished_row_and_resume_completes(tmp_path: Path) -> None:
    out = tmp_path / "out"
    with pytest.raises(KeyboardInterrupt):
        evaluate(MIXED, metrics=["f1_score", _StopsAt("r100")],  # type: ignore[list-item]
                 judging=JudgeOptions(cache=False), run=RunOptions(out=out, progress=False))
    saved = [json.loads(x) for x in iter_jsonl_lines((out / "results.jsonl").read_text("utf-8"))]
    ids = [r["id"] for r in MIXED]
    assert [r["id"] for r in saved] == ids[:ids.index("r100")]  # every row before it, in order
    summary = json.loads((out / "summary.json").read_text())
    assert summary["complete"] is False and summary["rows_done"] == len(saved)

    resumed = evaluate(MIXED, metrics=["f1_score", _StopsAt(None)],  # type: ignore[list-item]
                       judging=JudgeOptions(cache=False),
                       run=RunOptions(out=out, resume=True, progress=False))
    whole = evaluate(MIXED, metrics=["f1_score", _StopsAt(None)],  # type: ignore[list-item]
                     judging=JudgeOptions(cache=False),
                     run=RunOptions(out=tmp_path / "whole", progress=False))
    assert resumed.summary["complete"] is True
    assert resumed.rows == whole.rows
    assert (out / "results.jsonl").read_bytes() == (tmp_path / "whole" / "results.jsonl").read_bytes()


class _Counts(BareMetric):
    """A metric that counts the rows it scored (to see when another task ran)."""

    name = "counts"
    value_range = (0.0, 1e9)

    def __init__(self) -> None:
        self.scored = 0

    async def score(self, row: Row, ctx: ScoreContext) -> MetricResult:
        self.scored += 1
        return MetricResult(value=float(self.scored))


def test_in_line_run_lets_other_tasks_run_and_can_be_cancelled() -> None:
    rows = [{"answer": f"a{i}", "ground_truth": "a"} for i in range(3000)]

    async def go() -> tuple[list[int], list[int]]:
        metric = _Counts()
        seen: list[int] = []
        run = asyncio.create_task(evaluate_async(
            rows, metrics=[metric], judging=JudgeOptions(cache=False),  # type: ignore[list-item]
            run=RunOptions(progress=False)))

        async def watch() -> None:
            while not run.done():
                seen.append(metric.scored)
                await asyncio.sleep(0)

        await asyncio.gather(run, watch())
        # Cancelled mid-run: it stops there instead of scoring every row.
        stopped = _Counts()
        task = asyncio.create_task(evaluate_async(
            rows, metrics=[stopped], judging=JudgeOptions(cache=False),  # type: ignore[list-item]
            run=RunOptions(progress=False)))
        while stopped.scored == 0:
            await asyncio.sleep(0)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        return seen, [stopped.scored]

    seen, (stopped_at,) = asyncio.run(go())
    assert any(0 < n < len(rows) for n in seen)  # the watcher ran during the run
    assert 0 < stopped_at < len(rows)


def test_eval_result_repr_counts_records() -> None:
    res = evaluate([{"answer": "a", "ground_truth": "a"}] * 5, metrics="f1_score",
                   run=RunOptions(progress=False))
    assert isinstance(res, EvalResult)
    assert repr(res).startswith("EvalResult(rows=<5 records>, summary={")
