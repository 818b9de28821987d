"""A run whose judge answered but whose answers could not be read does not pass (issue 32).

``assay run`` in-process (Typer's CliRunner) against a small OpenAI-compatible server on
loopback whose answers are scripted per row: ``null`` content, a score out of the rubric's
range, text that is not JSON. Every such row is unscored with the reason and marked
unreadable; over ``--max-failed-share`` of a metric's rows the run exits 3 naming the metric,
its rows and the top reasons, and ``summary.json`` counts them. "Does not apply" is no failure.
``assay calibrate`` and ``assay align`` exit 3 when no answer could be read; the red-team
commands count unreadable answers as failed rows; so does a panel, per judge. (Metric-file
templates: tests/test_template_sandbox.py.)
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from assay.cli.main import app
from support import LoopbackServer, completion_body, send_json

#: The answers a scripted row may get: its marker in the question, and the content sent.
BAD = {"NULL": None, "NINE": '{"score": 9, "reason": "off the scale"}',
       "PROSE": "I would rate this answer quite highly."}
GOOD = '{"score": 4, "reason": "fine"}'


class AnswerServer(LoopbackServer):
    """An OpenAI-compatible chat endpoint on loopback: each request gets ``answer(user
    message)`` as its content (``None`` is sent as JSON ``null``). Counts requests."""

    def __init__(self, answer: Callable[[str], str | None]) -> None:
        self.requests = 0
        self.answer = answer
        super().__init__()

    def on_post(self, handler: BaseHTTPRequestHandler, body: bytes) -> None:
        self.requests += 1
        user = json.loads(body)["messages"][-1]["content"]
        send_json(handler, 200, completion_body(self.answer(user)))


def scripted(user: str) -> str | None:
    """The bad answer whose marker the row's answer holds, else a valid rating."""
    return next((content for marker, content in BAD.items() if marker in user), GOOD)


@pytest.fixture
def judge(monkeypatch: pytest.MonkeyPatch) -> Iterator[AnswerServer]:
    server = AnswerServer(scripted)
    monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-a-secret")
    monkeypatch.setenv("COLUMNS", "200")
    monkeypatch.setenv("NO_COLOR", "1")
    yield server
    server.stop()


def _data(path: Path, answers: list[str]) -> Path:
    """One row per answer (a bad answer's marker in it), with a question and ground truth."""
    rows = [{"id": str(i), "question": f"Question {i}?", "answer": a, "ground_truth": a}
            for i, a in enumerate(answers, start=1)]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def _run(data: Path, out: Path, *extra: str) -> tuple[int, str, dict[str, Any]]:
    result = CliRunner().invoke(app, [
        "run", str(data), "--judge", "openai:m", "--out", str(out), "--no-store", "--no-cache",
        "--quiet", "--concurrency", "4", *extra])
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    summary_file = out / "summary.json"
    summary = json.loads(summary_file.read_text()) if summary_file.exists() else {}
    assert "Traceback" not in result.output
    return result.exit_code, " ".join(result.output.split()), summary


@pytest.mark.parametrize(("marker", "why"), [
    ("NULL", ("judge answer is not a valid 1-5 rating (asked twice); the judge's answer was "
              "empty (null content)")),
    ("NINE", "judge answer is not a valid 1-5 rating (asked twice)"),
    ("PROSE", "judge answer is not a valid 1-5 rating (asked twice)"),
])
def test_a_judge_whose_every_answer_is_unreadable_fails_the_run_with_exit_3(
        judge: AnswerServer, tmp_path: Path, marker: str, why: str) -> None:
    data = _data(tmp_path / "d.jsonl", [f"Answer {i} {marker}." for i in range(10)])
    code, output, summary = _run(data, tmp_path / "out", "--metrics", "fluency,f1_score")
    assert code == 3, output
    assert "judge answers that could not be read" in output
    assert f"fluency: 10 of 10 rows 10 results: {why}" in output
    assert "judge failed: fluency lost more than 5.0% (--max-failed-share)" in output
    assert "f1_score" not in output.split("judge failed:")[1]  # nothing else is blamed
    fluency = summary["metrics"]["fluency"]
    assert fluency["scored"] == 0 and fluency["unreadable"] == 10
    assert summary["failures"]["by_metric"]["fluency"] == {
        "failed": 0, "unreadable": 10, "applicable": 10, "share": 1.0}
    assert summary["failures"]["unreadable"] == {"fluency": {why: 10}}
    assert summary["failures"]["causes"] == {}  # no call failed
    assert judge.requests == 20  # each answer asked twice, then left unscored


def test_unreadable_answers_over_the_share_exit_3_under_it_exit_0(
        judge: AnswerServer, tmp_path: Path) -> None:
    # 1 row of 10 (10%) over the default 0.05: exit 3, naming the metric.
    over = _data(tmp_path / "over.jsonl", ["A NINE."] + [f"A {i}." for i in range(9)])
    code, output, summary = _run(over, tmp_path / "over", "--metrics", "fluency")
    assert code == 3, output
    assert "fluency: 1 of 10 rows" in output
    assert "judge failed: fluency lost more than 5.0%" in output
    assert summary["metrics"]["fluency"]["scored"] == 9
    assert summary["failures"]["by_metric"]["fluency"]["share"] == 0.1
    # 1 row of 30 (3.3%) is under it: exit 0, and the row is still counted and shown.
    under = _data(tmp_path / "under.jsonl", ["A NULL."] + [f"A {i}." for i in range(29)])
    code, output, summary = _run(under, tmp_path / "under", "--metrics", "fluency")
    assert code == 0, output
    assert summary["metrics"]["fluency"]["unreadable"] == 1
    assert summary["failures"]["by_metric"]["fluency"]["share"] == 0.0333
    assert "fluency: 1 of 30 rows" in output
    # --max-failed-share 1 accepts any share.
    code, output, _ = _run(over, tmp_path / "allowed", "--metrics", "fluency",
                           "--max-failed-share", "1")
    assert code == 0, output


def test_rows_the_metric_does_not_apply_to_are_no_failure(
        judge: AnswerServer, tmp_path: Path) -> None:
    # similarity needs a ground truth: 3 rows of 4 lack one ("does not apply"), and the one
    # that has it is read: no failure.
    data = _data(tmp_path / "d.jsonl", [f"A {i}." for i in range(4)])
    rows = [json.loads(line) for line in data.read_text().splitlines()]
    for row in rows[1:]:
        row["ground_truth"] = ""
    data.write_text("".join(json.dumps(r) + "\n" for r in rows))
    code, output, summary = _run(data, tmp_path / "out", "--metrics", "similarity")
    assert code == 0, output
    assert summary["metrics"]["similarity"]["scored"] == 1
    assert summary["failures"]["by_metric"]["similarity"] == {
        "failed": 0, "unreadable": 0, "applicable": 1, "share": 0.0}


def test_resume_asks_again_for_the_answers_that_could_not_be_read(
        judge: AnswerServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    data = _data(tmp_path / "d.jsonl", ["A NULL.", "A 2.", "A 3."])
    out = tmp_path / "out"
    code, _, _ = _run(data, out, "--metrics", "fluency")
    assert code == 3
    fixed = AnswerServer(lambda _user: GOOD)  # the judge's server was fixed
    monkeypatch.setenv("OPENAI_BASE_URL", fixed.base_url)
    try:
        code, output, summary = _run(data, out, "--metrics", "fluency", "--resume")
    finally:
        fixed.stop()
    assert code == 0, output
    assert summary["metrics"]["fluency"]["scored"] == 3
    assert fixed.requests == 1  # only the unreadable row was asked again


# ---------------------------------------------------------------- other commands that judge

HELPFULNESS = """---
name: helpfulness
scale: 1-5
---
<question>{{ question }}</question>
<answer>{{ response }}</answer>
"""


def _null_judge(monkeypatch: pytest.MonkeyPatch) -> AnswerServer:
    """A judge whose every answer has ``null`` content, as the OpenAI judge's endpoint."""
    server = AnswerServer(lambda _user: None)
    monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-a-secret")
    return server


def test_calibrate_with_no_readable_answer_exits_3(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from test_align import HUMANS, _rated
    data = _rated(tmp_path, HUMANS[:6])
    (tmp_path / "helpfulness.md").write_text(HELPFULNESS)
    server = _null_judge(monkeypatch)
    try:
        result = CliRunner().invoke(app, [
            "calibrate", str(data), "--metric-file", str(tmp_path / "helpfulness.md"),
            "--judge", "openai:m", "--no-cache", "--no-store", "--out", str(tmp_path / "o")])
    finally:
        server.stop()
    shown = " ".join(result.output.split())
    assert result.exit_code == 3, shown
    assert ("judge failed: openai:m scored none of the rated rows: 6 judge answers could not "
            "be read, 0 calls failed") in shown
    saved = json.loads((tmp_path / "o" / "calibration.json").read_text())
    report = saved["reports"]["openai:m"]
    assert report["unreadable"] == 6 and report["failed_calls"] == 0


def test_align_with_no_readable_answer_exits_3(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from test_align import HUMANS, _rated
    data = _rated(tmp_path, HUMANS)
    (tmp_path / "helpfulness.md").write_text(HELPFULNESS)
    server = _null_judge(monkeypatch)
    try:
        result = CliRunner().invoke(app, [
            "align", str(data), "--metric-file", str(tmp_path / "helpfulness.md"),
            "--judge", "openai:m", "--no-cache", "--out", str(tmp_path / "o"), "--shots", "0"])
    finally:
        server.stop()
    shown = " ".join(result.output.split())
    assert result.exit_code == 3, shown
    assert "judge failed: the judge scored none of the" in shown


def test_red_team_commands_count_unreadable_answers_as_failed_rows() -> None:
    """``assay jailbreak`` and the other red-team commands decide their exit 3 from these
    causes (with ``--max-failed-share``): an unreadable answer is one, "does not apply" not."""
    from assay.targets import unscored_causes
    record = {"id": "a",
              "violence": {"value": None, "error": "judge answer has no valid 0-7 violence "
                           "severity (asked twice)", "details": {"unreadable": "answer"}},
              "refusal": {"value": None, "error": "does not apply: no answer", "details": {}}}
    assert unscored_causes(record, ["violence", "refusal"]) == [
        "judge answer has no valid 0-7 violence severity (asked twice)"]


def test_a_panel_judge_whose_answers_cannot_be_read_is_counted_against_the_share() -> None:
    """The panel scores the rows with the other judge; the unreadable judge still fails the
    run (as a judge whose calls fail does), under ``"<metric> (<judge>)"``."""
    from assay.judges import FakeJudge
    from assay.records._failures import over_failed_share
    from assay.run import JudgeOptions, evaluate
    judges = [FakeJudge(GOOD, id="fake:a"), FakeJudge(BAD["NINE"], id="fake:b")]
    result = evaluate([{"question": f"Q {i}?", "answer": "A."} for i in range(4)],
                      metrics="fluency", judge=judges, judging=JudgeOptions(cache=None))
    failures = result.summary["failures"]
    assert result.summary["metrics"]["fluency"]["scored"] == 4
    assert failures["by_metric"]["fluency (fake:b)"] == {
        "failed": 0, "unreadable": 4, "applicable": 4, "share": 1.0}
    assert failures["unreadable"] == {
        "fluency (fake:b)": {"judge answer is not a valid 1-5 rating (asked twice)": 4}}
    assert over_failed_share(failures, 0.05) == ["fluency (fake:b)"]
