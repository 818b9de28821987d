"""An answer cut at ``max_tokens`` is recorded as unscored, never parsed half; a verdict read
from its first word is cut on purpose and keeps its verdict (issue 18, item 2)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import httpx

from assay.asking import Unanswered, VerdictAnswer, ask_until_parsed, ask_verdict, cut_reason
from assay.calls import ManagedJudge
from assay.data import Row
from assay.judges import (
    FakeJudge,
    JudgeCache,
    JudgeCapabilities,
    JudgeRequest,
    JudgeResponse,
    LocalJudge,
    Truncated,
)
from assay.metrics import ScoreContext, get_metric
from support import mock_openai_judge

ROW = Row(id="r", line=1, question="Weight?", answer="1.3 kg.", context="It weighs 1.3 kg.")
CUT_RATING = '{"score": 4, "reason": "The answer states the weight given in the con'


def _score(metric: str, judge: Any, **ctx: Any) -> Any:
    return asyncio.run(get_metric(metric).score(ROW, ScoreContext(judge=judge, **ctx)))


def test_a_cut_json_answer_is_unscored_at_once_with_the_raw_answer() -> None:
    judge = FakeJudge(Truncated(CUT_RATING))
    result = _score("fluency", judge, style="rating", reasons="always")
    assert result.value is None
    assert result.error == ("the judge's answer was cut at max_tokens=160 before it was "
                            "complete")
    assert result.details["raw_answer"] == CUT_RATING
    assert len(judge.requests) == 1  # not asked again: temperature 0 cuts at the same place


def test_a_cut_answer_is_not_cached(tmp_path: Path) -> None:
    backend = FakeJudge(Truncated(CUT_RATING))
    cache = JudgeCache(tmp_path / "cache.sqlite")
    for _ in range(2):
        judge = ManagedJudge(backend, cache=cache)
        assert _score("fluency", judge, style="rating").value is None
        assert judge.stats.cache_hits == 0
    assert len(backend.requests) == 2  # the second run asked again


def test_a_whole_json_answer_cut_after_its_end_is_scored() -> None:
    # measured on the embedded judge: a score-only answer spends its last tokens on the code
    # fence around the JSON, and stops at max_tokens=12 with the JSON whole
    judge = FakeJudge(Truncated('{\n  "score": 4\n}'))
    result = _score("coherence", judge, style="rating", reasons="never")
    assert result.value == 4.0 and len(judge.requests) == 1


def test_a_cut_free_text_answer_is_unscored_even_when_its_start_would_parse() -> None:
    # a line-per-item answer cut after a few lines reads as a shorter list: never read it
    request = JudgeRequest(messages=[{"role": "user", "content": "List the claims."}],
                           schema_name="claims", json_schema=None, max_tokens=20)
    judge = FakeJudge(Truncated("The tent is red.\nThe tent weighs"))
    got = asyncio.run(ask_until_parsed(judge, request, lambda t: t.splitlines()[:1], "no"))
    assert isinstance(got, Unanswered) and got.reason == cut_reason(20)
    assert got.failure == "cut" and got.raw_answer == "The tent is red.\nThe tent weighs"


def test_a_cut_reason_keeps_its_verdict_and_says_the_reason_was_cut() -> None:
    judge = FakeJudge(Truncated("Yes. The context gives the weight as 1.3 kg, and the"),
                      capabilities=JudgeCapabilities(local=True, token_logprobs=False))
    result = _score("groundedness", judge, reasons="always")
    assert result.value == 5.0
    assert result.details["verdict"] is True
    assert result.details["reason_truncated"] is True
    assert result.reason == "The context gives the weight as 1.3 kg, and the"
    assert len(judge.requests) == 1 and judge.requests[0].cut_ok


def test_a_cut_reason_asked_later_marks_the_row_too() -> None:
    def script(request: JudgeRequest) -> Any:
        return "No" if request.max_tokens <= 2 else Truncated("No. The context says 2 kg, but")
    judge = FakeJudge(script, capabilities=JudgeCapabilities(local=True, token_logprobs=False))
    result = _score("groundedness", judge, reasons="auto")  # a failing row gets its reason
    assert result.value == 1.0
    assert result.reason == "The context says 2 kg, but"
    assert result.details["reason_truncated"] is True


def test_a_verdict_alone_is_cut_on_purpose_and_scored() -> None:
    judge = FakeJudge(Truncated("Yes"),
                      capabilities=JudgeCapabilities(local=True, token_logprobs=False))
    result = _score("groundedness", judge, reasons="never")
    assert result.value == 5.0
    assert "reason_truncated" not in result.details
    assert [r.max_tokens for r in judge.requests] == [2]


def test_an_uncut_verdict_with_reason_has_no_mark() -> None:
    got = asyncio.run(ask_verdict(FakeJudge("No. Not in the context."),
                                  [{"role": "user", "content": "?"}]))
    assert got == VerdictAnswer(False, "Not in the context.", None, reason_truncated=False)


def test_cut_ok_is_not_part_of_the_cache_key() -> None:
    a = JudgeRequest(messages=[{"role": "user", "content": "x"}], schema_name="verdict")
    assert a.cache_key("j") == a.model_copy(update={"cut_ok": True}).cache_key("j")
    assert "cut_ok" not in a.canonical()


def _openai_answer(content: str, finish_reason: str,
                   usage: dict[str, Any] | None = None) -> httpx.Response:
    return httpx.Response(200, json={
        "id": "c", "object": "chat.completion", "created": 0, "model": "gpt-4o-mini",
        "choices": [{"index": 0, "finish_reason": finish_reason, "logprobs": None,
                     "message": {"role": "assistant", "content": content}}],
        "usage": usage or {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}})


def test_the_openai_judge_reads_finish_reason_length_as_cut() -> None:
    request = JudgeRequest(messages=[{"role": "user", "content": "x"}], schema_name="rating")
    cut = mock_openai_judge(lambda _r: _openai_answer('{"score": 4, "rea', "length"))
    whole = mock_openai_judge(lambda _r: _openai_answer('{"score": 4}', "stop"))
    assert asyncio.run(cut.complete(request)).truncated is True
    assert asyncio.run(whole.complete(request)).truncated is False


def test_a_cut_openai_answer_is_unscored_through_the_metric() -> None:
    judge = mock_openai_judge(lambda _r: _openai_answer(CUT_RATING, "length"))
    result = _score("fluency", judge, style="rating")
    assert result.value is None and "cut at max_tokens=160" in (result.error or "")


def test_the_openai_judge_reports_prompt_tokens_processed() -> None:
    request = JudgeRequest(messages=[{"role": "user", "content": "x"}], schema_name="rating")
    usage = {"prompt_tokens": 1200, "completion_tokens": 5, "total_tokens": 1205,
             "prompt_tokens_details": {"cached_tokens": 1024}}
    judge = mock_openai_judge(lambda _r: _openai_answer("{}", "stop", usage))
    resp = asyncio.run(judge.complete(request))
    assert (resp.prompt_tokens, resp.processed_prompt_tokens) == (1200, 176)
    plain = mock_openai_judge(lambda _r: _openai_answer("{}", "stop"))
    assert asyncio.run(plain.complete(request)).processed_prompt_tokens is None


class _LlamaServer:
    """Stands in for xllamacpp's server: a chat completion as llama.cpp answers one (its
    ``timings`` measured from a real call: 36 of 37 prompt tokens from the KV cache)."""

    def __init__(self, finish_reason: str) -> None:
        self.finish_reason = finish_reason

    def handle_chat_completions(self, body: dict[str, Any]) -> dict[str, Any]:
        return {"choices": [{"index": 0, "finish_reason": self.finish_reason,
                             "message": {"role": "assistant", "content": "The sea"}}],
                "usage": {"completion_tokens": 5, "prompt_tokens": 37, "total_tokens": 42},
                "timings": {"cache_n": 36, "prompt_n": 1, "predicted_n": 5}}


def test_the_local_judge_reads_finish_reason_and_the_prompt_tokens_it_computed() -> None:
    request = JudgeRequest(messages=[{"role": "user", "content": "x"}], schema_name="rating",
                           max_tokens=5)
    judge = LocalJudge()
    judge._server = _LlamaServer("length")  # nothing is loaded: the server is this stub
    resp = asyncio.run(judge.complete(request))
    assert (resp.truncated, resp.prompt_tokens, resp.processed_prompt_tokens) == (True, 37, 1)
    judge._server = _LlamaServer("stop")
    assert asyncio.run(judge.complete(request)).truncated is False


def test_cached_answers_keep_the_flags(tmp_path: Path) -> None:
    cache = JudgeCache(tmp_path / "cache.sqlite")
    cache.put("k", "fake", JudgeResponse(text="Yes. Because", truncated=True, prompt_tokens=90,
                                         processed_prompt_tokens=12))
    got = cache.get("k")
    assert got is not None and (got.truncated, got.processed_prompt_tokens) == (True, 12)


def test_a_cut_verdict_reason_is_cached_and_still_marked_from_the_cache(tmp_path: Path) -> None:
    backend = FakeJudge(Truncated("Yes. The context gives the weight"),
                        capabilities=JudgeCapabilities(local=True, token_logprobs=False))
    cache = JudgeCache(tmp_path / "cache.sqlite")
    results = [_score("groundedness", ManagedJudge(backend, cache=cache), reasons="always")
               for _ in range(2)]
    assert len(backend.requests) == 1  # the second answer came from the cache
    assert all(r.value == 5.0 and r.details["reason_truncated"] for r in results)
