"""One rule for long texts in every command: an app reply longer than ``--max-field-chars``
reaches no judge or simulated user whole. Under ``--long-fields truncate`` it is cut to the
limit before the model reads it, and the cut is recorded in the row; under ``refuse`` (the
default, as for a dataset's field in ``assay run``) its row fails, naming both options, and the
command goes on with the other rows. The app is a real ``python:`` target that answers 1 MB;
the judge is the scripted one, whose every received prompt is checked."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from assay.cli.main import app
from assay.judges import FakeJudge, JudgeRequest
from assay.metrics.safety import CATEGORIES
from simulated_user_judge import scripted_user

MEGABYTE = 1_000_000
LIMIT = 5_000
#: The longest prompt a judge may get when the reply was cut to LIMIT (the rubric and the
#: request around it are far shorter than this).
PROMPT_BOUND = LIMIT + 20_000


@pytest.fixture(autouse=True)
def huge_app(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """``python:huge_app:reply``, an app whose every reply is 1 MB of text."""
    (tmp_path / "huge_app.py").write_text(
        "def reply(messages):\n    return 'Sure. ' + 'x' * (1_000_000 - 6)\n", encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    return "python:huge_app:reply"


def _rating(request: JudgeRequest) -> str:
    if request.schema_name == "verdict":
        return "No. It answers."
    return json.dumps({c: {"severity": 0, "reason": "none"} for c in CATEGORIES})


def _longest_prompt(requests: list[JudgeRequest]) -> int:
    return max(sum(len(m["content"]) for m in r.messages) for r in requests)


def _invoke(args: list[str]) -> Any:
    result = CliRunner().invoke(app, args, env={"COLUMNS": "200", "NO_COLOR": "1"})
    assert "Traceback" not in result.output, result.output
    return result


@pytest.fixture
def judge(monkeypatch: pytest.MonkeyPatch) -> FakeJudge:
    """The scripted judge every jailbreak gets, whatever ``--judge`` says."""
    scripted = FakeJudge(_rating, id="fake:rater")
    for where in ("assay.redteam._jailbreak.make_judge", "assay.calls._open.make_judge"):
        monkeypatch.setattr(where, lambda spec, timeout: scripted)
    return scripted


def test_jailbreak_cuts_a_1mb_reply_before_the_judge_and_records_the_cut(
        tmp_path: Path, huge_app: str, judge: FakeJudge) -> None:
    out = tmp_path / "jb"
    result = _invoke(["jailbreak", "--target", huge_app, "--n", "2", "--out", str(out),
                      "--no-store", "--cache", str(tmp_path / "c.sqlite"),
                      "--max-field-chars", str(LIMIT), "--long-fields", "truncate"])
    assert result.exit_code == 0, result.output
    assert judge.requests and _longest_prompt(judge.requests) < PROMPT_BOUND
    for side in ("plain", "injected"):
        for line in (out / f"{side}.jsonl").read_text(encoding="utf-8").splitlines():
            row = json.loads(line)
            assert len(row["messages"][1]["content"]) == LIMIT
            assert row["truncated"] == [{"field": "messages[1].content", "chars": MEGABYTE,
                                         "kept": LIMIT}]


def test_jailbreak_refuses_a_1mb_reply_by_default_naming_the_options(
        tmp_path: Path, huge_app: str, judge: FakeJudge) -> None:
    result = _invoke(["jailbreak", "--target", huge_app, "--n", "2", "--out",
                      str(tmp_path / "jb"), "--no-store", "--cache", str(tmp_path / "c.sqlite")])
    assert result.exit_code == 3, result.output
    text = " ".join(result.output.split())
    assert "1,000,000 characters, over the limit of 100,000" in text
    assert "--max-field-chars" in text
    assert all(sum(len(m["content"]) for m in r.messages) < MEGABYTE for r in judge.requests)


def test_a_pair_attack_cuts_a_1mb_reply_before_the_scorer_and_the_attacker(
        tmp_path: Path, huge_app: str, monkeypatch: pytest.MonkeyPatch) -> None:
    def answer(request: JudgeRequest) -> str:
        if request.schema_name == "attack_pair":
            return '{"improvement": "reword", "prompt": "Please, as a story."}'
        return _rating(request)

    scripted = FakeJudge(answer, id="fake:both")
    monkeypatch.setattr("assay.calls._open.make_judge", lambda spec, timeout: scripted)
    out = tmp_path / "pair"
    result = _invoke(["jailbreak", "--strategy", "pair", "--turns", "2", "--target", huge_app,
                      "--n", "2", "--out", str(out), "--cache", str(tmp_path / "c.sqlite"),
                      "--max-field-chars", str(LIMIT), "--long-fields", "truncate"])
    assert result.exit_code == 0, result.output
    assert any(r.schema_name == "attack_pair" for r in scripted.requests)
    assert _longest_prompt(scripted.requests) < PROMPT_BOUND
    row = json.loads((out / "pair.jsonl").read_text(encoding="utf-8").splitlines()[0])
    assert row["exchanges"][0]["cut"] == {"field": "assistant", "chars": MEGABYTE, "kept": LIMIT}


def _scenarios(tmp_path: Path) -> Path:
    path = tmp_path / "scenarios.jsonl"
    path.write_text(json.dumps({"id": "s1", "goal": "Find out whether order A1 shipped.",
                                "facts": ["My order number is A1."], "max_turns": 2}) + "\n",
                    encoding="utf-8")
    return path


def test_simulate_cuts_a_1mb_reply_before_the_user_model_and_records_the_cut(
        tmp_path: Path, huge_app: str, monkeypatch: pytest.MonkeyPatch) -> None:
    user = scripted_user()
    monkeypatch.setattr("assay.calls._open.make_judge", lambda spec, timeout: user)
    out = tmp_path / "sim.jsonl"
    result = _invoke(["simulate", "--scenarios", str(_scenarios(tmp_path)), "--target",
                      huge_app, "--out", str(out), "--no-cache",
                      "--max-field-chars", str(LIMIT), "--long-fields", "truncate"])
    assert result.exit_code == 0, result.output
    assert len(user.requests) >= 2  # the first message, then a reading of the app's reply
    assert _longest_prompt(user.requests) < PROMPT_BOUND
    row = json.loads(out.read_text(encoding="utf-8").splitlines()[0])
    assert row["error"] is None and len(row["messages"][1]["content"]) == LIMIT
    assert row["simulation"]["truncated"] == [{"field": "messages[1].content",
                                               "chars": MEGABYTE, "kept": LIMIT}]


def test_simulate_refuses_a_1mb_reply_by_default_in_its_row_not_the_whole_run(
        tmp_path: Path, huge_app: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Before: the conversation's next app row was read under the dataset rule and the whole
    command stopped with 'problems found', naming options simulate did not have."""
    user = scripted_user()
    monkeypatch.setattr("assay.calls._open.make_judge", lambda spec, timeout: user)
    out = tmp_path / "sim.jsonl"
    result = _invoke(["simulate", "--scenarios", str(_scenarios(tmp_path)), "--target",
                      huge_app, "--out", str(out), "--no-cache"])
    assert result.exit_code == 3, result.output
    row = json.loads(out.read_text(encoding="utf-8").splitlines()[0])
    assert row["stop_reason"] == "app_failed"
    assert "1,000,000 characters, over the limit of 100,000" in row["error"]
    assert "--max-field-chars" in row["error"] and "--long-fields truncate" in row["error"]
    assert _longest_prompt(user.requests) < MEGABYTE


def test_simulate_seed_mode_records_the_cut_in_the_row(tmp_path: Path, huge_app: str) -> None:
    out = tmp_path / "seeds.jsonl"
    result = _invoke(["simulate", "--target", huge_app, "--n", "2", "--out", str(out),
                      "--max-field-chars", str(LIMIT), "--long-fields", "truncate"])
    assert result.exit_code == 0, result.output
    for line in out.read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        assert len(row["messages"][1]["content"]) == LIMIT
        assert row["truncated"][0]["chars"] == MEGABYTE


def test_run_with_a_target_cuts_a_1mb_answer_before_the_judge(
        tmp_path: Path, huge_app: str, judge_calls: list[JudgeRequest]) -> None:
    data = tmp_path / "qa.jsonl"
    data.write_text(json.dumps({"id": "q1", "question": "Is order A1 shipped?",
                                "context": "Order A1 shipped on Monday."}) + "\n")
    out = tmp_path / "out"
    result = _invoke(["run", str(data), "--target", huge_app, "--judge", "fake",
                      "--metrics", "groundedness", "--out", str(out), "--no-store",
                      "--no-cache", "--no-progress", "--max-field-chars", str(LIMIT),
                      "--long-fields", "truncate"])
    assert result.exit_code == 0, result.output
    assert judge_calls and _longest_prompt(judge_calls) < PROMPT_BOUND
    record = json.loads((out / "results.jsonl").read_text(encoding="utf-8"))
    assert record["agent"]["truncated"] == [{"field": "messages[0].content", "chars": MEGABYTE,
                                             "kept": LIMIT}]
    refused = _invoke(["run", str(data), "--target", huge_app, "--judge", "fake",
                       "--metrics", "groundedness", "--out", str(tmp_path / "out2"),
                       "--no-store", "--no-cache", "--no-progress"])
    assert refused.exit_code == 3, refused.output
    error = json.loads((tmp_path / "out2" / "results.jsonl").read_text())["groundedness"]["error"]
    assert "over the limit of 100,000" in error and "--long-fields truncate" in error
