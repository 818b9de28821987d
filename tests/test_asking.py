"""``assay.asking``: asking a model without a metric in sight. What the ask cannot get comes back
as an ``Unanswered`` (masked of secrets, with the raw answer), which a metric turns into the
same unscored result as before and a producer into its own failure."""

from __future__ import annotations

import asyncio

from assay.asking import (
    FENCE_STYLE,
    Unanswered,
    ask_until_parsed,
    ask_verdict,
    load_template,
    parse_rating,
)
from assay.errors import JudgeError
from assay.judges import FakeJudge, JudgeRequest
from assay.metrics import MetricResult, unreadable_kind

REQUEST = JudgeRequest(messages=[{"role": "user", "content": "Rate it."}], schema_name="rating",
                       max_tokens=40)
KEY = "sk-proj-abcdefghijklmnopqrstuvwxyz0123456789"


def test_a_failed_call_comes_back_unanswered_with_its_secret_masked() -> None:
    judge = FakeJudge(lambda _req: JudgeError(f"HTTP 401: incorrect API key {KEY}"))
    got = asyncio.run(ask_until_parsed(judge, REQUEST, parse_rating, "not a rating"))
    assert isinstance(got, Unanswered) and got.failure == "call"
    assert got.reason.startswith("judge call failed: HTTP 401") and KEY not in got.reason
    assert got.raw_answer is None and len(judge.requests) == 1  # a failed call is not re-asked
    result = MetricResult.unanswered(got, prompt_sha256="ab")
    assert result.error == got.reason and unreadable_kind(result) is None


def test_an_answer_that_does_not_parse_is_asked_twice_then_unreadable() -> None:
    judge = FakeJudge("I would give it a four.")
    got = asyncio.run(ask_until_parsed(judge, REQUEST, parse_rating, "not a rating"))
    assert got == Unanswered("not a rating (asked twice)", "answer", "I would give it a four.")
    assert len(judge.requests) == 2
    result = MetricResult.unanswered(got, prompt_sha256="ab")
    assert result.details == {"raw_answer": "I would give it a four.", "prompt_sha256": "ab",
                              "unreadable": "answer"}


def test_a_verdict_needs_no_score_context() -> None:
    got = asyncio.run(ask_verdict(FakeJudge("No. It is not said."),
                                  [{"role": "user", "content": "Is it said?"}], reason=False))
    assert not isinstance(got, Unanswered)
    assert (got.is_yes, got.reason, got.reason_truncated) == (False, "It is not said.", False)


def test_render_takes_the_fence_style_it_is_given_over_the_runs() -> None:
    template = load_template("fluency", "en")
    token = FENCE_STYLE.set("spotlight")
    try:
        from_run = template.render(answer="Fine words.")[1]["content"]
        given = template.render(answer="Fine words.", fence_style="tags")[1]["content"]
    finally:
        FENCE_STYLE.reset(token)
    assert "⟪" in from_run and "⟪" not in given
    marked = template.render(answer="Fine words.", fence_style="datamark")[1]["content"]
    assert "Fineˆwords." in marked
