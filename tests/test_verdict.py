"""Verdict-style judging: Yes/No with P(yes) from the first token, mapped onto 1-5."""

from __future__ import annotations

import math

import pytest

from assay import JudgeOptions, ScoringOptions, evaluate
from assay.asking import p_yes, parse_verdict, scale_probability
from assay.errors import ConfigError
from assay.judges import FakeJudge, JudgeCapabilities, JudgeRequest, JudgeResponse, TokenLogprob

ROW = {"question": "Where is it?", "context": "It is in Paris.", "answer": "In Berlin."}


def _verdict_answer(text: str, p: float) -> JudgeResponse:
    first = text.split(",")[0]
    return JudgeResponse(text=text, prompt_tokens=50, completion_tokens=10, logprobs=[
        TokenLogprob(token=first, logprob=math.log(p if first == "Yes" else 1 - p),
                     top={"Yes": math.log(p), "No": math.log(1 - p), "Is": math.log(1e-4)})])


def test_auto_style_uses_verdicts_on_a_local_judge() -> None:
    judge = FakeJudge(lambda req: _verdict_answer("No, the context says Paris.", 0.1),
                      id="local:test-model", capabilities=JudgeCapabilities(local=True))
    res = evaluate([ROW], metrics="groundedness", judge=judge, judging=JudgeOptions(cache=None))
    g = res.rows[0]["groundedness"]
    assert (g["value"], g["weighted"]) == (1.0, 1.4)
    assert g["reason"] == "the context says Paris."
    assert g["details"]["style"] == "verdict" and g["details"]["p_yes"] == 0.1
    assert judge.requests[0].json_schema is None
    assert judge.requests[0].messages[1]["content"].rstrip().endswith("one-sentence reason.")


def test_auto_style_uses_ratings_on_other_judges() -> None:
    # a remote judge, even one named like the embedded one: the capability decides, not the id
    judge = FakeJudge('{"score": 2, "reason": "Berlin is not in the context."}', id="local:m")
    res = evaluate([ROW], metrics="groundedness", judge=judge, judging=JudgeOptions(cache=None))
    assert res.rows[0]["groundedness"]["value"] == 2.0
    assert judge.requests[0].schema_name == "rating"


def test_explicit_verdict_style_and_metrics_without_verdict_rubric() -> None:
    def script(req: JudgeRequest):
        if req.schema_name == "verdict":
            return _verdict_answer("Yes, it is stated.", 0.8)
        return '{"score": 4, "reason": "fluent"}'

    res = evaluate([ROW], metrics="groundedness,fluency", judge=FakeJudge(script),
                   scoring=ScoringOptions(style="verdict"), judging=JudgeOptions(cache=None))
    assert (res.rows[0]["groundedness"]["value"], res.rows[0]["groundedness"]["weighted"]) == (
        4.0, 4.2)
    assert res.rows[0]["fluency"]["value"] == 4.0  # fluency has no verdict rubric: rating


def test_verdict_without_logprobs_uses_the_ends_of_the_scale() -> None:
    res = evaluate([ROW], metrics="groundedness", judge=FakeJudge("No. Berlin is wrong."),
                   scoring=ScoringOptions(style="verdict"), judging=JudgeOptions(cache=None))
    g = res.rows[0]["groundedness"]
    assert (g["value"], g["weighted"]) == (1.0, None)


def test_unparseable_verdict_is_unscored() -> None:
    judge = FakeJudge("Maybe.")
    res = evaluate([ROW], metrics="groundedness", judge=judge,
                   scoring=ScoringOptions(style="verdict"), judging=JudgeOptions(cache=None))
    g = res.rows[0]["groundedness"]
    assert g["value"] is None and "Yes or No" in g["error"] and len(judge.requests) == 2


def test_bad_style_is_rejected() -> None:
    with pytest.raises(ConfigError, match="Got style='vibes'"):
        evaluate([ROW], metrics="groundedness", judge=FakeJudge(),
                 scoring=ScoringOptions(style="vibes"), judging=JudgeOptions(cache=None))


@pytest.mark.parametrize(("text", "expected"), [
    ("Yes, supported.", (True, "supported.")),
    ("  no - the answer adds a date", (False, "the answer adds a date")),
    ("否，上下文没有提到。", (False, "上下文没有提到。")),
    ("Yesterday it rained", None),
    ("The answer is yes", None),
])
def test_parse_verdict(text: str, expected) -> None:
    assert parse_verdict(text) == expected


def test_p_yes_and_scale() -> None:
    lp = [TokenLogprob(token="Yes", logprob=math.log(0.6),
                       top={"Yes": math.log(0.6), " yes": math.log(0.1), "No": math.log(0.3)})]
    assert p_yes(lp) == pytest.approx(0.7)
    assert p_yes(None) is None
    assert p_yes([TokenLogprob(token="Hmm", logprob=0.0, top={"Hmm": 0.0})]) is None
    assert scale_probability(0.0) == (1, 1.0)
    assert scale_probability(0.5) == (3, 3.0)
    assert scale_probability(1.0) == (5, 5.0)
