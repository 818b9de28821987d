"""Digits-only answers on the embedded judge (``assay.judges._digit_fill``): the text a schema
fixes is given to the model, which generates the digits alone; the answer reads as if the model
had written it all (same text, and the digit probabilities the score readers use), and the
local judge sends such schemas through it on one slot."""

from __future__ import annotations

import asyncio
import json
import math
from typing import Any

import pytest

from assay.asking import RATING_SCHEMA, SCORE_SCHEMA, parse_score, weighted_rating
from assay.errors import JudgeError
from assay.judges import JudgeRequest, _local
from assay.judges._digit_fill import DigitScaffold, digit_scaffold, fill_digits
from assay.judges._local import LocalJudge
from assay.judges._prefix_slots import PrefixSlots
from assay.metrics.safety._parse import (
    CATEGORIES,
    COMBINED_ONLY_SCHEMA,
    COMBINED_SCHEMA,
    SEVERITY_ONLY_SCHEMA,
    parse_all,
    weighted_severity,
)


class ScriptedModel:
    """Answers each one-digit request with the next of ``digits``, with probabilities split
    between that digit (0.75) and the one above it (0.25); records every request."""

    def __init__(self, digits: str) -> None:
        self.digits = list(digits)
        self.bodies: list[dict[str, Any]] = []

    def __call__(self, body: dict[str, Any]) -> dict[str, Any]:
        self.bodies.append(body)
        d = self.digits.pop(0)
        top = [{"token": d, "logprob": math.log(0.75)},
               {"token": str(int(d) + 1), "logprob": math.log(0.25)}]
        return {"choices": [{"message": {"content": body["messages"][-1]["content"] + d},
                             "finish_reason": "length",
                             "logprobs": {"content": [{"token": d, "logprob": math.log(0.75),
                                                       "top_logprobs": top}]}}],
                "usage": {"prompt_tokens": 100 + len(self.bodies), "completion_tokens": 1},
                "timings": {"prompt_n": 40 if len(self.bodies) == 1 else 8, "predicted_n": 1}}


def _body(schema: dict[str, Any]) -> dict[str, Any]:
    return {"messages": [{"role": "system", "content": "rubric"},
                         {"role": "user", "content": "row"}],
            "max_tokens": 96, "temperature": 0.0, "seed": 0, "logprobs": True,
            "top_logprobs": 5,
            "response_format": {"type": "json_schema", "json_schema": {"name": "s",
                                                                       "schema": schema}}}


def test_the_scaffold_is_the_text_json_dumps_writes_around_the_digits() -> None:
    score = digit_scaffold(SCORE_SCHEMA)
    assert score == DigitScaffold(('{"score": ', "}"), ((1, 5),))
    combined = digit_scaffold(COMBINED_ONLY_SCHEMA)
    assert combined is not None and combined.ranges == ((0, 7),) * 4
    answer = {c: {"severity": i} for i, c in enumerate(CATEGORIES)}
    assert combined.text(["0", "1", "2", "3"]) == json.dumps(answer)
    assert digit_scaffold(SEVERITY_ONLY_SCHEMA) is not None
    # a reason, a list, a number past 9 or an optional field leaves the shape to the model
    assert digit_scaffold(RATING_SCHEMA) is None and digit_scaffold(COMBINED_SCHEMA) is None
    assert digit_scaffold({"type": "array", "items": {"type": "integer"}}) is None
    wide = {"type": "object", "required": ["n"],
            "properties": {"n": {"type": "integer", "minimum": 0, "maximum": 10}}}
    assert digit_scaffold(wide) is None
    assert digit_scaffold({**SCORE_SCHEMA, "required": []}) is None
    assert digit_scaffold(None) is None


def test_each_digit_is_generated_alone_after_the_text_before_it() -> None:
    model = ScriptedModel("0250")
    scaffold = digit_scaffold(COMBINED_ONLY_SCHEMA)
    assert scaffold is not None
    out = fill_digits(model, _body(COMBINED_ONLY_SCHEMA), scaffold)

    given = [b["messages"][-1] for b in model.bodies]
    assert [g["role"] for g in given] == ["assistant"] * 4
    assert given[0]["content"] == '{"hate_unfairness": {"severity": '
    assert given[2]["content"] == ('{"hate_unfairness": {"severity": 0}, "sexual": {"severity": '
                                   '2}, "violence": {"severity": ')
    assert all(b["max_tokens"] == 1 and b["grammar"] == "root ::= [0-7]" for b in model.bodies)
    assert all("response_format" not in b and b["messages"][:2] == _body({})["messages"]
               for b in model.bodies)

    text = out["choices"][0]["message"]["content"]
    assert json.loads(text) == {"hate_unfairness": {"severity": 0}, "sexual": {"severity": 2},
                                "violence": {"severity": 5}, "self_harm": {"severity": 0}}
    assert parse_all(text, need_reason=False) is not None
    assert out["usage"] == {"prompt_tokens": 101, "completion_tokens": 4}
    assert out["timings"] == {"prompt_n": 40 + 3 * 8, "predicted_n": 4}


def test_the_readers_find_each_digits_probabilities_in_the_filled_answer() -> None:
    from assay.judges._base import TokenLogprob

    def logprobs(out: dict[str, Any]) -> list[TokenLogprob]:
        return [TokenLogprob(token=t["token"], logprob=t["logprob"],
                             top={a["token"]: a["logprob"] for a in t["top_logprobs"]})
                for t in out["choices"][0]["logprobs"]["content"]]

    combined = digit_scaffold(COMBINED_ONLY_SCHEMA)
    assert combined is not None
    lp = logprobs(fill_digits(ScriptedModel("0250"), _body(COMBINED_ONLY_SCHEMA), combined))
    assert "".join(t.token for t in lp) == json.dumps(
        {c: {"severity": int(d)} for c, d in zip(CATEGORIES, "0250", strict=True)})
    # 0.75 on the digit, 0.25 on the one above
    assert [weighted_severity(lp, c) for c in CATEGORIES] == [0.25, 2.25, 5.25, 0.25]

    score = digit_scaffold(SCORE_SCHEMA)
    assert score is not None
    out = fill_digits(ScriptedModel("3"), _body(SCORE_SCHEMA), score)
    assert parse_score(out["choices"][0]["message"]["content"]) == 3
    assert weighted_rating(logprobs(out)) == 3.25


def test_an_answer_that_is_not_an_allowed_digit_is_an_error_not_a_score() -> None:
    scaffold = digit_scaffold(SCORE_SCHEMA)
    assert scaffold is not None
    out = fill_digits(ScriptedModel("7"), _body(SCORE_SCHEMA), scaffold)  # 7 is not in 1-5
    assert "choices" not in out and "expected one digit 1-5" in out["error"]


def test_the_local_judge_fills_digits_only_answers_on_the_rubrics_slot(
        monkeypatch: pytest.MonkeyPatch) -> None:
    model = ScriptedModel("3")
    slots_used: list[int] = []

    def chat(_server: Any, body: dict[str, Any]) -> dict[str, Any]:
        slots_used.append(body["id_slot"])
        if body["messages"][-1]["role"] == "system":  # the slot is given its rubric
            return {"choices": [{"message": {"content": ""}}], "timings": {}}
        return model({k: v for k, v in body.items() if k != "id_slot"})

    monkeypatch.setattr(_local, "_chat", chat)
    judge = LocalJudge(slots=2)
    judge._server = object()
    judge._prefixes = PrefixSlots(2, None)
    messages = _body({})["messages"]
    answer = asyncio.run(judge.complete(JudgeRequest(
        messages=messages, schema_name="score", json_schema=SCORE_SCHEMA, max_tokens=12,
        logprobs=True, top_logprobs=5)))
    assert answer.text == '{"score": 3}' and not answer.truncated
    assert weighted_rating(answer.logprobs) == 3.25
    assert answer.completion_tokens == 1
    assert len(set(slots_used)) == 1

    model.digits = list("9")  # out of range: the request fails as a judge error
    with pytest.raises(JudgeError, match="expected one digit"):
        asyncio.run(judge.complete(JudgeRequest(
            messages=messages, schema_name="score", json_schema=SCORE_SCHEMA, max_tokens=12)))


def test_the_local_judge_can_decode_every_token_instead(monkeypatch: pytest.MonkeyPatch) -> None:
    sent: list[dict[str, Any]] = []

    def chat(_server: Any, body: dict[str, Any]) -> dict[str, Any]:
        sent.append(body)
        return {"choices": [{"message": {"content": '{"score": 4}'}, "finish_reason": "stop"}]}

    monkeypatch.setattr(_local, "_chat", chat)
    judge = LocalJudge(slots=2, digits_given_text=False)
    judge._server = object()
    judge._prefixes = PrefixSlots(2, None)
    answer = asyncio.run(judge.complete(JudgeRequest(
        messages=_body({})["messages"], schema_name="score", json_schema=SCORE_SCHEMA,
        max_tokens=12)))
    requests = [b for b in sent if b["messages"][-1]["role"] != "system"]
    assert answer.text == '{"score": 4}' and len(requests) == 1
    assert requests[0]["response_format"]["json_schema"]["schema"] == SCORE_SCHEMA
