"""``assay run QA --target APP``: the app under test answers the QA rows that have a question and
no answer (asked the question alone), its answers are recorded and scored; a row the app failed
on is unscored with the cause; ``--resume`` never asks the app again for an answered row;
``negative_rejection`` scores the rows marked ``answerable: false``. All offline: Python apps
from ``examples/apps.py`` and temporary modules, scripted judges."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from assay.agents import AgentRunner, make_agent
from assay.cli.main import app
from assay.data import rows_from_records
from assay.errors import DataError, JudgeError
from assay.judges import FakeJudge, JudgeRequest
from assay.run import RunOptions, evaluate

ROOT = Path(__file__).resolve().parents[1]
FAQ = ROOT / "examples" / "faq_questions.jsonl"

# An app that records every conversation it is asked, fails on questions that mention
# "crash" (with a key in its message, which must be masked), declines "opening hours"
# questions and otherwise answers with the question's last word.
COUNTING_APP = '''
ASKED = []

def app(messages):
    ASKED.append(messages)
    question = messages[-1]["content"]
    if "crash" in question:
        raise RuntimeError("backend refused key sk-proj-a1b2c3d4e5f6g7h8i9j0")
    if "opening" in question:
        return "I don't know: my documents do not say."
    return "It is " + question.split()[-1].strip("?") + "."
'''




def _cli(*args: str | Path) -> Any:
    return CliRunner().invoke(app, [str(a) for a in args])


def _records(path: Path) -> dict[str, dict[str, Any]]:
    rows = [json.loads(line) for line in path.read_text().splitlines()]
    return {r["id"]: r for r in rows}


def _question(row_id: str, question: str, truth: str, *, answerable: bool = True
              ) -> dict[str, Any]:
    return {"id": row_id, "question": question, "ground_truth": truth,
            "context": "Reference passage the app must not see.", "answerable": answerable,
            "source": [{"doc": "faq.md", "start": 0, "end": 9, "text": "Reference"}]}


def _write(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def _rejection_judge(request: JudgeRequest) -> str:
    """Yes (it answers) unless the answer says it does not know."""
    answer = request.messages[-1]["content"].split("<answer>", 1)[1]
    return "No. It declines." if "don't know" in answer else "Yes. It states a fact."


def test_the_faq_example_answers_its_questions_end_to_end_through_the_cli(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    out = tmp_path / "out"
    result = _cli("run", "examples/faq_questions.jsonl", "--target",
                  "python:examples.apps:faq_app", "--judge", "fake", "--metrics",
                  "f1_score,coherence", "--out", out, "--no-store", "--quiet")
    assert result.exit_code == 0, result.output
    text = " ".join(result.output.split())
    assert "6 rows completed (5 questions answered, 6 agent turns" in text
    records = _records(out / "results.jsonl")
    refund = records["faq-refund"]
    assert refund["agent"]["target"] == "python:examples.apps:faq_app"
    assert refund["agent"]["answer"] == "Refunds are paid within 14 days of the return reaching us."
    assert refund["agent"]["steps"] == 1 and refund["agent"]["seconds"] >= 0
    assert "messages" not in refund["agent"] and "failure" not in refund["agent"]
    assert refund["f1_score"]["value"] == pytest.approx(0.7059, abs=1e-4)
    assert records["faq-shipping"]["f1_score"]["value"] > 0.5
    # an unanswerable row: the ground truth is a decline, nothing to compare with
    hours = records["faq-store-hours"]
    assert hours["agent"]["answer"] == "I don't know: that is not in my documents."
    assert hours["f1_score"]["value"] is None
    assert hours["f1_score"]["error"].startswith("does not apply: row is marked answerable: false")
    assert hours["coherence"]["value"] == 5.0  # the fake judge rates it as it rates any answer
    # a conversation without tools: a plain chat app (one parameter) takes the user's turn
    chat = records["faq-chat-express"]
    assert chat["agent"]["messages"] == [
        {"role": "assistant", "content": "Standard shipping takes 3 to 5 working days."}]
    summary = json.loads((out / "summary.json").read_text())
    assert summary["agent"] == {"target": "python:examples.apps:faq_app", "rows": 6,
                                "answered": 5, "failed": 0, "step_limit": 0, "turns": 6,
                                "tool_calls": 0}


def test_the_app_is_asked_the_question_alone_and_its_answer_is_scored(
        module: Any, tmp_path: Path) -> None:
    name = module(COUNTING_APP)
    data = _write(tmp_path / "qa.jsonl", [
        _question("color", "What colour is the tent? green", "green"),
        {"id": "given", "question": "Q?", "answer": "already answered", "ground_truth": "x"}])
    result = evaluate(data, metrics="exact_match", agent=make_agent(f"python:{name}:app"),
                      run=RunOptions(out=tmp_path / "out", store=False, progress=False))
    asked = sys.modules[name].ASKED
    assert asked == [[{"role": "user", "content": "What colour is the tent? green"}]]
    color, given = result.rows
    assert color["agent"]["answer"] == "It is green."
    assert color["exact_match"]["value"] == 0.0  # "It is green." is not "green"
    assert "agent" not in given and given["exact_match"]["value"] == 0.0  # scored as it is


def test_rows_the_app_failed_on_are_unscored_with_the_masked_cause_and_exit_3(
        module: Any, tmp_path: Path) -> None:
    name = module(COUNTING_APP)
    data = _write(tmp_path / "qa.jsonl", [
        _question("a", "Tent colour? green", "green"),
        _question("b", "Does it crash?", "no"),
        _question("c", "Stove colour? red", "red")])
    args = ("run", data, "--target", f"python:{name}:app", "--metrics", "f1_score",
            "--judge", "fake", "--no-store", "--quiet")
    result = _cli(*args, "--out", tmp_path / "a")
    assert result.exit_code == 3, result.output
    text = " ".join(result.output.split())
    assert "could not answer 1 of 3 rows" in text and "--max-failed-share" in text
    assert "a1b2c3d4e5f6" not in result.output
    records = _records(tmp_path / "a" / "results.jsonl")
    failed = records["b"]
    assert failed["agent"]["failure"].startswith("target call failed: RuntimeError: backend "
                                                 "refused key")
    assert "a1b2c3d4e5f6" not in failed["agent"]["failure"]
    assert failed["f1_score"]["value"] is None
    assert failed["f1_score"]["error"] == failed["agent"]["failure"]
    assert records["a"]["f1_score"]["value"] == pytest.approx(0.5)
    # under the share the run passes: one of three is 33%
    assert _cli(*args, "--out", tmp_path / "b", "--max-failed-share", "0.5").exit_code == 0


def test_resume_keeps_the_answers_and_never_asks_the_app_again(
        module: Any, tmp_path: Path) -> None:
    name = module(COUNTING_APP)
    data = _write(tmp_path / "qa.jsonl", [
        _question("a", "Tent colour? green", "green"),
        _question("b", "Stove colour? red", "red"),
        _question("hours", "Shop opening hours?", "The documents do not say.",
                  answerable=False)])
    out = tmp_path / "out"
    # the judge fails on every call: the judge metric is left unscored, to be scored again
    down = FakeJudge(lambda request: JudgeError("judge down"))
    first = evaluate(data, metrics="f1_score,negative_rejection", judge=down,
                     agent=make_agent(f"python:{name}:app"),
                     run=RunOptions(out=out, store=False, progress=False))
    asked = sys.modules[name].ASKED
    assert len(asked) == 3
    assert first.rows[2]["negative_rejection"]["error"].startswith("judge call failed")
    again = make_agent(f"python:{name}:app")
    second = evaluate(data, metrics="f1_score,negative_rejection",
                      judge=FakeJudge(_rejection_judge), agent=again,
                      run=RunOptions(out=out, store=False, progress=False, resume=True))
    assert len(asked) == 3 and again.stats.rows == 0  # answers replayed, not asked again
    assert [r["agent"] for r in second.rows] == [r["agent"] for r in first.rows]
    assert second.rows[2]["negative_rejection"]["value"] == 1.0
    assert second.rows[0]["f1_score"] == first.rows[0]["f1_score"]


def test_negative_rejection_scores_a_decline_1_and_an_answer_anyway_0(
        module: Any, tmp_path: Path) -> None:
    answers_anyway = module("def app(messages):\n    return 'The store opens at 10 on Sundays.'\n")
    rows = [_question("hours", "When does the Oslo store open on Sundays?",
                      "The documents do not say.", answerable=False),
            _question("refund", "How soon is a refund paid?", "Within 14 days.")]
    scored = {}
    for spec in ("python:examples.apps:faq_app", f"python:{answers_anyway}:app"):
        result = evaluate(rows, metrics="negative_rejection,answer_correctness",
                          judge=FakeJudge(_rejection_judge), agent=make_agent(spec),
                          run=RunOptions(store=False, progress=False))
        scored[spec] = result.rows
    declines, answers = scored.values()
    assert declines[0]["negative_rejection"]["value"] == 1.0
    assert declines[0]["negative_rejection"]["details"]["declined"] is True
    assert answers[0]["negative_rejection"]["value"] == 0.0
    assert answers[0]["negative_rejection"]["reason"] == "It states a fact."
    for rows_of_app in (declines, answers):
        hours, refund = rows_of_app
        assert hours["answer_correctness"]["error"].startswith(
            "does not apply: row is marked answerable: false")
        assert refund["negative_rejection"]["error"] == (
            "does not apply: row is answerable (answerable: true): negative_rejection scores "
            "rows marked answerable: false")


def test_a_qa_row_without_an_answer_needs_a_target() -> None:
    row = {"id": "q", "question": "Who?", "ground_truth": "Ada."}
    with pytest.raises(DataError, match="or let the app under test answer the question"):
        rows_from_records([row])
    assert rows_from_records([row], answer_required=False)[0].answer is None
    with pytest.raises(DataError, match="field 'answer': missing"):  # no question to ask
        rows_from_records([{"id": "x", "ground_truth": "Ada."}], answer_required=False)


def test_the_cli_refuses_unanswered_rows_without_a_target(tmp_path: Path) -> None:
    data = _write(tmp_path / "qa.jsonl", [_question("a", "Tent colour?", "green")])
    result = _cli("run", data, "--metrics", "f1_score", "--out", tmp_path / "out", "--no-store")
    assert result.exit_code == 2
    assert "--target" in " ".join(result.output.split())


class ChatApp:
    """A chat target without agent turns (as ``http:`` and ``local`` are)."""

    id = "chat:test"

    def __init__(self) -> None:
        self.asked: list[list[dict[str, Any]]] = []

    async def reply(self, messages: list[dict[str, Any]]) -> str:
        self.asked.append(messages)
        return "Chat reply."


def test_a_chat_target_answers_questions_and_conversations_without_tools() -> None:
    rows = rows_from_records([
        {"id": "q", "question": "Who?"},
        {"id": "c", "messages": [{"role": "user", "content": "Weather?"}],
         "tools": [{"type": "function", "function": {"name": "weather"}}]}],
        answer_required=False)
    chat = ChatApp()
    runner = AgentRunner(chat)
    assert not runner.takes_tools
    qa, conversation = (asyncio.run(runner.complete(row)) for row in rows)
    assert qa["answer"] == "Chat reply." and "note" not in qa
    assert conversation["messages"] == [{"role": "assistant", "content": "Chat reply."}]
    assert conversation["note"].startswith("asked without the row's tools")
    assert chat.asked == [[{"role": "user", "content": "Who?"}],
                          [{"role": "user", "content": "Weather?"}]]
    assert runner.apply(rows[0], qa).answer == "Chat reply."
    assert runner.stats.answered == 1 and runner.stats.rows == 2
