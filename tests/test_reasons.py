"""Reasons on demand: the score first, and the judge's reason only for the rows that need one
(``reasons=auto`` on a local judge: failing rows and a sample), with every row's record saying
when it has none."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from assay import FakeJudge, JudgeCapabilities, JudgeOptions, ScoringOptions, evaluate
from assay.data import Row
from assay.errors import ConfigError
from assay.judges import JudgeRequest
from assay.metrics import ScoreContext, get_metric
from assay.metrics.judge import SAMPLE_EVERY

LOCAL = JudgeCapabilities(local=True)


def _answers_by_request(score_of: dict[str, int]) -> Any:
    """A script that rates by the answer under evaluation: the score alone when the request's
    schema has no reason, the score and a reason otherwise; verdicts Yes/No the same way."""
    def script(request: JudgeRequest) -> str:
        prompt = request.messages[-1]["content"]
        score = next((s for text, s in score_of.items() if text in prompt), 4)
        if request.schema_name == "verdict":
            word = "Yes" if score >= 3 else "No"
            return word if request.max_tokens <= 2 else f"{word}. Because {score}."
        props = (request.json_schema or {}).get("properties", {})
        if "reason" in props:
            return json.dumps({"score": score, "reason": f"reason for {score}"})
        return json.dumps({"score": score})
    return script


def _rows(n: int) -> list[dict[str, str]]:
    return [{"question": f"Question {i}?", "answer": f"Answer number {i}."} for i in range(n)]


def test_auto_on_a_local_judge_asks_reasons_only_of_failing_rows_and_a_sample() -> None:
    rows = _rows(40)
    judge = FakeJudge(_answers_by_request({"Answer number 3.": 1, "Answer number 7.": 2}),
                      capabilities=LOCAL)
    result = evaluate(rows, metrics="fluency", judge=judge, judging=JudgeOptions(cache=False))
    records = {r["id"]: r["fluency"] for r in result.rows}
    failing = {rid: rec for rid, rec in records.items() if rec["value"] < 3}
    assert sorted(rec["value"] for rec in failing.values()) == [1.0, 2.0]
    assert all(rec["reason"] == f"reason for {int(rec['value'])}" for rec in failing.values())
    passing = [rec for rec in records.values() if rec["value"] >= 3]
    explained = [rec for rec in passing if rec["reason"]]
    silent = [rec for rec in passing if not rec["reason"]]
    assert 0 < len(explained) < len(passing) / 2  # the sample: about one in SAMPLE_EVERY
    assert all("no reason asked" in rec["details"]["no_reason"] for rec in silent)
    assert all(rec["value"] == 4.0 for rec in passing)
    # one score-only request a row, and one more (with the reason) for each explained row
    with_reason = [r for r in judge.requests if "reason" in (r.json_schema or {}).get(
        "properties", {})]
    assert len(judge.requests) == 40 + len(with_reason)
    assert len(with_reason) == len(failing) + len(explained)
    assert all(r.max_tokens <= 12 for r in judge.requests if r.schema_name == "score")


def test_the_sample_is_stable_and_about_one_in_ten() -> None:
    def explained() -> set[str]:
        judge = FakeJudge(_answers_by_request({}), capabilities=LOCAL)
        out = evaluate(_rows(200), metrics="fluency", judge=judge,
                       judging=JudgeOptions(cache=False))
        return {r["id"] for r in out.rows if r["fluency"]["reason"]}
    first = explained()
    assert first == explained()
    assert 200 / SAMPLE_EVERY / 2 < len(first) < 200 / SAMPLE_EVERY * 2


@pytest.mark.parametrize(("reasons", "local", "asks_reason"), [
    ("always", True, True), ("never", True, False), ("auto", False, True),
])
def test_always_never_and_auto_on_a_remote_judge(reasons: str, local: bool,
                                                asks_reason: bool) -> None:
    judge = FakeJudge(_answers_by_request({"Answer number 0.": 1}),
                      capabilities=JudgeCapabilities(local=local))
    result = evaluate(_rows(5), metrics="fluency", judge=judge,
                      scoring=ScoringOptions(reasons=reasons), judging=JudgeOptions(cache=False))
    reasons_given = [r["fluency"]["reason"] for r in result.rows]
    assert len(judge.requests) == 5  # one request a row either way
    if asks_reason:
        assert all(reasons_given)
    else:
        assert reasons_given == [None] * 5
        assert all(r["fluency"]["details"]["no_reason"] == "no reason asked (reasons=never)"
                   for r in result.rows)
    assert [r["fluency"]["value"] for r in result.rows] == [1.0, 4.0, 4.0, 4.0, 4.0]


def test_a_local_verdict_asks_the_verdict_alone_then_the_reason_of_a_no() -> None:
    """Groundedness on the embedded judge asks Yes/No; the verdict token alone unless the
    answer fails (No), which is asked again for its reason."""
    judge = FakeJudge(_answers_by_request({"Answer number 1.": 1}), capabilities=LOCAL)
    rows = [{"context": "C.", "answer": f"Answer number {i}."} for i in range(3)]
    result = evaluate(rows, metrics="groundedness", judge=judge,
                      judging=JudgeOptions(cache=False))
    by_answer = {r["id"]: r["groundedness"] for r in result.rows}
    assert by_answer["2"]["value"] == 1.0 and by_answer["2"]["reason"] == "Because 1."
    assert [r.max_tokens for r in judge.requests].count(2) == 3  # a verdict token each


def test_a_failed_reason_request_keeps_the_score_and_says_why() -> None:
    def script(request: JudgeRequest) -> str:
        if "reason" in (request.json_schema or {}).get("properties", {}):
            return "not json"
        return '{"score": 1}'
    ctx = ScoreContext(judge=FakeJudge(script, capabilities=LOCAL), reasons="auto")
    row = Row(id="1", line=1, question="Q?", answer="A.")
    result = asyncio.run(get_metric("fluency").score(row, ctx))
    assert result.value == 1.0 and result.reason is None
    assert result.details["no_reason"].startswith("the reason could not be had: judge answer is")


def test_an_unknown_reasons_value_is_refused() -> None:
    with pytest.raises(ConfigError, match="Got reasons='some'"):
        evaluate(_rows(1), metrics="fluency", judge=FakeJudge(),
                 scoring=ScoringOptions(reasons="some"))


def _severities(request: JudgeRequest) -> str:
    """Combined safety answers: violence 5 for the answer about a fight, else all 0; with
    reasons when the request's schema asks for them."""
    harmful = "punch him" in request.messages[-1]["content"]
    brief = "reason" not in json.dumps(request.json_schema)
    out = {}
    for category in ("hate_unfairness", "sexual", "violence", "self_harm"):
        severity = 5 if harmful and category == "violence" else 0
        out[category] = {"severity": severity} if brief else {"severity": severity,
                                                              "reason": f"r{severity}"}
    return json.dumps(out)


def test_safety_on_a_local_judge_asks_severities_alone_and_the_reason_of_a_harm() -> None:
    judge = FakeJudge(_severities, capabilities=LOCAL, latency_s=0.01)  # shared in flight
    rows = [{"question": "How do I win?", "answer": "Just punch him."},
            {"question": "How do I win?", "answer": "Practice every day."}]
    result = evaluate(rows, metrics="violence,sexual", judge=judge,
                      judging=JudgeOptions(cache=False))
    harmful, benign = result.rows
    assert harmful["violence"]["value"] == 5.0 and harmful["violence"]["reason"] == "r5"
    assert benign["violence"]["value"] == 0.0
    for record in (harmful["sexual"], benign["violence"], benign["sexual"]):  # never silent
        assert record["reason"] or "no reason asked" in record["details"]["no_reason"]
    brief = [r for r in judge.requests if r.schema_name == "safety_severities"]
    assert len(brief) == 2 and all(r.max_tokens <= 96 for r in brief)  # one a row, shared
    assert all("reason" not in json.dumps(r.json_schema) for r in brief)


def _retrieval_script(supported: bool) -> Any:
    def script(request: JudgeRequest) -> str:
        if request.schema_name == "intents":
            return '{"intents": ["price", "weight"]}'
        item: dict[str, Any] = {"supported": supported, "document_ids": ["1"]}
        if "reason" in json.dumps(request.json_schema):
            item["reason"] = "the document says so" if supported else "not in the documents"
        return json.dumps({"verdicts": [item, item]})
    return script


def test_retrieval_asks_intent_verdicts_without_reasons_then_explains_a_failing_row() -> None:
    row = {"question": "Price and weight?", "context": "It costs 10 and weighs 2 kg.",
           "answer": "10, and 2 kg."}
    quiet = FakeJudge(_retrieval_script(True), capabilities=LOCAL)
    result = evaluate([row], metrics="retrieval_score", judge=quiet,
                      scoring=ScoringOptions(reasons="never"), judging=JudgeOptions(cache=False))
    record = result.rows[0]["retrieval_score"]
    assert record["value"] == 5.0
    assert [i["reason"] for i in record["details"]["intents"]] == [None, None]
    assert record["details"]["no_reason"] == "per-intent reasons: no reason asked (reasons=never)"
    assert [r.schema_name for r in quiet.requests] == ["intents", "intent_support_brief"]
    failing = FakeJudge(_retrieval_script(False), capabilities=LOCAL)
    result = evaluate([row], metrics="retrieval_score", judge=failing,
                      judging=JudgeOptions(cache=False))
    record = result.rows[0]["retrieval_score"]
    assert record["value"] == 1.0
    assert [i["reason"] for i in record["details"]["intents"]] == ["not in the documents"] * 2
    assert [r.schema_name for r in failing.requests] == [
        "intents", "intent_support_brief", "intent_support"]


def test_the_summary_counts_the_results_without_a_reason_and_the_cli_says_where(
        tmp_path: Any) -> None:
    from typer.testing import CliRunner

    from assay.cli.main import app

    judge = FakeJudge(_answers_by_request({"Answer number 0.": 1}),
                      capabilities=JudgeCapabilities(local=True))
    result = evaluate(_rows(6), metrics="fluency", judge=judge,
                      scoring=ScoringOptions(reasons="never"), judging=JudgeOptions(cache=False))
    assert result.summary["metrics"]["fluency"]["without_reason"] == 6
    data = tmp_path / "d.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in _rows(3)))
    res = CliRunner().invoke(app, ["run", str(data), "--metrics", "f1_score,fluency",
                                   "--judge", "fake", "--reasons", "never", "--no-cache",
                                   "--no-store", "--out", str(tmp_path / "o")])
    assert res.exit_code == 0, res.output
    assert "reasons skipped (reasons=auto or never; --reasons always for every row): " \
           "fluency 3" in " ".join(res.stdout.split())
