"""Prompt tokens processed (prompt-cache misses) beside prompt tokens sent, from the backend's
answer to the run's judge stats, summary.json, the terminal and the report (issue 18, item 3)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from assay import JudgeOptions, RunOptions, evaluate
from assay.calls import ManagedJudge
from assay.cli.run import print_summary
from assay.judges import FakeJudge, JudgeCache, JudgeRequest, JudgeResponse
from assay.records import load_run_dir
from assay.report import render_report

ROWS = [{"id": f"r{i}", "question": f"Question {i}?", "answer": f"Answer {i}."}
        for i in range(3)]


def _prompt_cache_backend() -> FakeJudge:
    """A backend with a prompt cache: the first request computes all 300 prompt tokens, each
    later one only the 40 after the shared rubric prefix."""
    def script(request: JudgeRequest) -> JudgeResponse:
        first = not backend.requests[:-1]
        return JudgeResponse(text='{"score": 4, "reason": "clear"}', prompt_tokens=300,
                             completion_tokens=9, processed_prompt_tokens=300 if first else 40)
    backend = FakeJudge(script)
    return backend


def _request(text: str) -> JudgeRequest:
    return JudgeRequest(messages=[{"role": "user", "content": text}], schema_name="rating")


def test_the_stats_sum_what_the_backend_computed_and_cache_hits_add_nothing(
        tmp_path: Path) -> None:
    judge = ManagedJudge(_prompt_cache_backend(), cache=JudgeCache(tmp_path / "c.sqlite"))

    async def ask() -> None:
        for text in ("a", "b", "c", "a"):  # the second "a" is answered from assay's cache
            await judge.complete(_request(text))

    asyncio.run(ask())
    stats = judge.stats.as_dict()
    assert (stats["requests"], stats["cache_hits"]) == (3, 1)
    assert (stats["prompt_tokens"], stats["processed_prompt_tokens"]) == (900, 380)


def test_answers_that_do_not_say_leave_the_count_out() -> None:
    judge = ManagedJudge(FakeJudge())
    asyncio.run(judge.complete(_request("a")))
    assert judge.stats.processed_prompt_tokens is None
    assert "processed_prompt_tokens" not in judge.stats.as_dict()


def test_only_the_answers_that_said_are_summed() -> None:
    said = iter([None, 25, None, 5])

    def script(request: JudgeRequest) -> JudgeResponse:
        return JudgeResponse(text="{}", prompt_tokens=50, processed_prompt_tokens=next(said))

    judge = ManagedJudge(FakeJudge(script))

    async def ask() -> None:
        for text in "abcd":
            await judge.complete(_request(text))

    asyncio.run(ask())
    assert judge.stats.prompt_tokens == 200 and judge.stats.processed_prompt_tokens == 30


def test_the_run_reports_them_in_summary_json_the_terminal_and_the_report(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "run"
    result = evaluate(ROWS, metrics="fluency", judge=_prompt_cache_backend(),
                      judging=JudgeOptions(cache=None), run=RunOptions(out=out, store=False))
    judge = json.loads((out / "summary.json").read_text(encoding="utf-8"))["judge"]
    assert (judge["prompt_tokens"], judge["processed_prompt_tokens"]) == (900, 380)
    print_summary(result.summary)
    printed = " ".join(capsys.readouterr().out.split())  # rich wraps at the terminal's width
    assert ("judge fake: 3 requests, 0 cache hits, 900 prompt tokens (380 processed, the rest from the judge's prompt cache) + 27 "
            "completion tokens") in printed
    html = render_report(load_run_dir(out))
    assert "prompt tokens 900, processed prompt tokens 380, completion tokens 27" in html


def test_without_the_count_the_terminal_line_is_as_before(
        capsys: pytest.CaptureFixture[str]) -> None:
    result = evaluate(ROWS[:1], metrics="fluency", judge=FakeJudge(),
                      judging=JudgeOptions(cache=None))
    assert "processed_prompt_tokens" not in result.summary["judge"]
    print_summary(result.summary)
    printed = " ".join(capsys.readouterr().out.split())
    assert " prompt + " in printed and "processed" not in printed
