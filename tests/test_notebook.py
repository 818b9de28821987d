"""``assay.evaluate`` where an event loop is already running (a Jupyter cell, a FastAPI handler),
and the option objects that replace its flat keywords."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import signal
import subprocess
import sys
import threading
import warnings
from pathlib import Path
from typing import Any

import pytest

import assay
from assay import FakeJudge, JudgeOptions, JudgeRequest, JudgeResponse, RunOptions, ScoringOptions
from assay.errors import DataError

ROWS = [
    {"id": f"q{i}", "question": f"What is item {i}?", "context": f"Item {i} is a red box.",
     "answer": f"Item {i} is a {'red' if i % 3 else 'blue'} box.", "ground_truth": "a red box"}
    for i in range(12)
]
METRICS = "f1_score,fluency,coherence,groundedness"


def _judge() -> FakeJudge:
    """Scores that differ from request to request (by the length of the rubric and row)."""
    def script(request: JudgeRequest) -> str:
        score = 1 + len(request.messages[-1]["content"]) % 5
        return json.dumps({"score": score, "reason": f"scripted {score}"})
    return FakeJudge(script)


def _comparable(summary: Any) -> dict[str, Any]:
    """The summary without what depends on the clock."""
    data = summary.model_dump() if hasattr(summary, "model_dump") else dict(summary)
    data.pop("elapsed_s", None)
    data.pop("latency", None)  # seconds per row
    return data


def _values(rows: list[dict[str, Any]]) -> dict[tuple[str, str], Any]:
    return {(str(r["id"]), name): (r[name]["value"], r[name]["reason"], r[name]["error"])
            for r in rows for name in METRICS.split(",")}


def _evaluate(**options: Any) -> assay.EvalResult:
    return assay.evaluate(ROWS, metrics=METRICS, judge=_judge(),
                          judging=JudgeOptions(cache=False), **options)


def test_evaluate_inside_a_running_loop_returns_what_it_returns_outside() -> None:
    outside = _evaluate()

    async def notebook_cell() -> tuple[assay.EvalResult, bool]:
        # a sync function called from a coroutine, as in a Jupyter cell or an async handler
        return _evaluate(), asyncio.get_running_loop().is_running()

    inside, loop_was_running = asyncio.run(notebook_cell())
    assert loop_was_running
    assert _comparable(inside.summary) == _comparable(outside.summary)
    assert _values(inside.rows) == _values(outside.rows)
    assert [r["id"] for r in inside.rows] == [r["id"] for r in outside.rows]
    # the judge really answered, with differing scores: the comparison is not of empty runs
    assert len({v[0] for k, v in _values(outside.rows).items() if k[1] == "fluency"}) > 1


def test_errors_inside_a_running_loop_reach_the_caller_unchanged() -> None:
    async def cell() -> None:
        assay.evaluate([{"question": "no answer here"}, {"answer": 3}], metrics="f1_score")

    with pytest.raises(DataError) as got:
        asyncio.run(cell())
    assert len(got.value.problems) >= 1


class _InterruptingJudge(FakeJudge):
    """Sends SIGINT to the main thread (Ctrl-C) on its first request, then never answers: the
    run can end only by being cancelled (the 30 s sleep only keeps a broken cancel from
    hanging the suite)."""

    async def complete(self, request: JudgeRequest) -> JudgeResponse:
        self.requests.append(request)
        if len(self.requests) == 1:
            signal.pthread_kill(threading.main_thread().ident or 0, signal.SIGINT)
        await asyncio.sleep(30)
        return await super().complete(request)


def _interrupted_run(tmp_path: Path, run_loop: Any) -> Path:
    out = tmp_path / "out"
    judge = _InterruptingJudge()

    async def cell() -> None:
        assay.evaluate(ROWS, metrics="fluency", judge=judge,
                       judging=JudgeOptions(cache=False, concurrency=1), run=RunOptions(out=out))

    with pytest.raises(KeyboardInterrupt):
        run_loop(cell())
    return out


@pytest.mark.skipif(threading.current_thread() is not threading.main_thread(),
                    reason="Ctrl-C (SIGINT) reaches the main thread only")
@pytest.mark.parametrize("runner", ["asyncio.run", "run_until_complete"])
def test_ctrl_c_inside_a_running_loop_stops_the_run_and_releases_its_folder(
        tmp_path: Path, runner: str) -> None:
    """asyncio.run answers Ctrl-C by cancelling its task; a notebook's loop raises
    KeyboardInterrupt in the waiting thread. Either way the run is cancelled and cleaned up:
    marked interrupted, folder unlocked, and resumable."""
    def run_until_complete(coro: Any) -> None:
        loop = asyncio.new_event_loop()
        try:
            loop.run_until_complete(coro)
        finally:
            loop.close()

    out = _interrupted_run(tmp_path, asyncio.run if runner == "asyncio.run"
                           else run_until_complete)
    assert json.loads((out / "run.json").read_text())["status"] == "interrupted"
    resumed = assay.evaluate(ROWS, metrics="fluency", judge=FakeJudge(),
                             judging=JudgeOptions(cache=False),
                             run=RunOptions(out=out, resume=True))
    assert resumed.summary["rows_done"] == len(ROWS)


@pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash to start a background job")
def test_the_ctrl_c_test_passes_as_a_background_job_of_a_script(tmp_path: Path) -> None:
    """``pytest ... & wait`` in a script starts pytest with SIGINT ignored (a non-interactive
    shell's background job): the Ctrl-C test above must still be interrupted, not wait 30 s a
    row (tests/conftest.py gives SIGINT its handler back)."""
    here = Path(__file__).resolve()
    inner = (f"{sys.executable} -m pytest -q -p no:cacheprovider --basetemp {tmp_path / 'inner'}"
             f" '{here}::test_ctrl_c_inside_a_running_loop_stops_the_run_and_releases_its_folder"
             "[asyncio.run]' & wait $!")
    # its own session, so that a hang can be ended whole (bash and its background pytest)
    proc = subprocess.Popen(["bash", "-c", inner], cwd=here.parent.parent, env=os.environ.copy(),
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            start_new_session=True)
    try:
        output, _ = proc.communicate(timeout=90)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        output, _ = proc.communicate()
        pytest.fail(f"the Ctrl-C test, run as a background job, was not interrupted:\n{output}")
    assert proc.returncode == 0, output[-3000:]
    assert "1 passed" in output


def test_flat_keywords_still_work_with_a_warning_naming_the_option_object(tmp_path: Path) -> None:
    with pytest.warns(DeprecationWarning) as caught:
        old = assay.evaluate(ROWS, metrics=METRICS, judge=_judge(), cache=False, lang="en",
                             out=tmp_path / "old")
    messages = sorted(str(w.message) for w in caught)
    assert any("JudgeOptions(cache=...)" in m for m in messages), messages
    assert any("ScoringOptions(lang=...)" in m for m in messages), messages
    assert any("RunOptions(out=...)" in m for m in messages), messages
    assert all(w.filename == __file__ for w in caught)  # they point at the caller's line
    new = assay.evaluate(ROWS, metrics=METRICS, judge=_judge(), judging=JudgeOptions(cache=False),
                         scoring=ScoringOptions(lang="en"), run=RunOptions(out=tmp_path / "new"))
    assert _values(old.rows) == _values(new.rows)
    assert (tmp_path / "old" / "summary.json").exists()


def test_a_flat_keyword_wins_over_the_same_field_of_an_option_object() -> None:
    with pytest.warns(DeprecationWarning, match=r"RunOptions\(keep_rows=\.\.\.\)"):
        result = assay.evaluate(ROWS, metrics="f1_score", run=RunOptions(keep_rows=True),
                                keep_rows=False)
    assert result.rows == [] and result.summary["rows_done"] == len(ROWS)


def test_the_simple_call_warns_nothing() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error", DeprecationWarning)
        result = assay.evaluate(ROWS, metrics="f1_score", judge=_judge())
    assert result.summary["rows_done"] == len(ROWS)


def test_unknown_keywords_and_wrong_option_objects_are_type_errors() -> None:
    with pytest.raises(TypeError, match="unexpected keyword argument 'langauge'"):
        assay.evaluate(ROWS, metrics="f1_score", langauge="en")
    with pytest.raises(TypeError, match=r"scoring=\.\.\.\) takes a ScoringOptions; got "
                                        r"JudgeOptions"):
        assay.evaluate(ROWS, metrics="f1_score", scoring=JudgeOptions())  # type: ignore[arg-type]


async def test_evaluate_async_takes_the_same_options() -> None:
    result = await assay.evaluate_async(ROWS, metrics="f1_score,fluency", judge=_judge(),
                                        judging=JudgeOptions(cache=False),
                                        run=RunOptions(keep_rows=False))
    assert result.rows == [] and result.summary["metrics"]["fluency"]["scored"] == len(ROWS)


def test_group_options_sorts_flat_keywords_into_option_objects() -> None:
    grouped = assay.run.group_options(judge="fake", lang="zh", tpm=1000, out="o", mapping={})
    assert grouped["judge"] == "fake"
    assert grouped["scoring"] == ScoringOptions(lang="zh")
    assert grouped["judging"] == JudgeOptions(tpm=1000)
    assert grouped["run"] == RunOptions(out="o")
    assert grouped["reading"] == assay.ReadOptions(mapping={})
    with pytest.raises(TypeError):
        assay.run.group_options(nope=1)


async def test_evaluate_async_flat_keywords_warn_at_the_awaiting_line() -> None:
    with pytest.warns(DeprecationWarning, match=r"evaluate_async\(keep_rows=\.\.\.\) is "
                                                r"deprecated.*RunOptions\(keep_rows=\.\.\.\)"
                      ) as caught:
        result = await assay.evaluate_async(ROWS, metrics="f1_score", keep_rows=False)
    assert result.rows == []
    assert [w.filename for w in caught] == [__file__]
