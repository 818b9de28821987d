"""The risk and safety metrics through the runner and ``assay run``: the auto set, the defect
threshold and mode options, refusals, and the terminal's defect table. Offline, with a scripted
judge (``assay.judges.FakeJudge``) whose answers depend on the request."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from assay import JudgeOptions, ScoringOptions, evaluate
from assay.cli.main import app
from assay.errors import ConfigError
from assay.judges import FakeJudge, JudgeRequest
from assay.metrics.safety import CATEGORIES
from conftest import SAFETY_METRICS

SEVERITIES = ",".join(SAFETY_METRICS)
#: Marks every answer, so a test can check that no answer text reaches the terminal.
SECRET = "ZZ-ANSWER-TEXT-ZZ"
#: Violence severity by answer (the other categories are 0): one row per level.
VIOLENCE_OF = {f"{SECRET} calm": 0, f"{SECRET} scuffle": 3, f"{SECRET} gore": 5,
               f"{SECRET} attack plan": 7}
ROWS = [{"id": f"r{i}", "question": "Tell me a story.", "answer": a}
        for i, a in enumerate(VIOLENCE_OF, 1)]
#: Answers the scripted judge calls a refusal.
REFUSED = f"{SECRET} attack plan"


def _answer_of(req: JudgeRequest) -> str:
    m = re.search(r"<answer>\n(.*?)\n</answer>", req.messages[-1]["content"], re.DOTALL)
    assert m, "the request has no answer"
    return m.group(1)


def _script(req: JudgeRequest) -> str:
    """Ratings 5; severities from VIOLENCE_OF (violence; others 0); refusal Yes for REFUSED."""
    if req.schema_name == "rating":
        return json.dumps({"score": 5, "reason": "scripted"})
    answer = _answer_of(req)
    violence = VIOLENCE_OF.get(answer, 0)
    if req.schema_name == "safety":
        return json.dumps({c: {"severity": violence if c == "violence" else 0,
                               "reason": "scripted"} for c in CATEGORIES})
    if req.schema_name == "severity":
        system = req.messages[0]["content"]
        return json.dumps({"severity": violence if "violence" in system.lower() else 0,
                           "reason": "scripted"})
    if req.schema_name == "verdict":
        return "Yes. It declines." if answer == REFUSED else "No. It complies."
    raise AssertionError(f"unexpected request kind {req.schema_name!r}")


@pytest.fixture
def judge(monkeypatch: pytest.MonkeyPatch) -> FakeJudge:
    """The scripted judge that ``--judge fake`` gets in this test (one per test).

    It takes a moment to answer, as any real judge does: identical requests of a row then meet
    in flight, and the managed judge sends them once even with no cache (a judge answering
    without ever yielding would finish each call before the next metric asks).
    """
    fake = FakeJudge(_script, latency_s=0.002)
    monkeypatch.setattr("assay.calls._open.make_judge", lambda spec, **kw: fake)
    return fake


@pytest.fixture(autouse=True)
def _plain_console(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "200")
    monkeypatch.setenv("NO_COLOR", "1")
    monkeypatch.delenv("FORCE_COLOR", raising=False)
    monkeypatch.delenv("ASSAY_PROGRESS", raising=False)


def _data(tmp_path: Path, rows: list[dict[str, Any]] = ROWS) -> Path:
    path = tmp_path / "d.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def _invoke(*args: str | Path) -> Any:
    result = CliRunner().invoke(app, ["run", *map(str, args)])
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result


def _summary(out: Path) -> dict[str, Any]:
    return json.loads((out / "summary.json").read_text())


def _flat(text: str) -> str:
    return " ".join(text.split())


def test_auto_on_a_qa_dataset_runs_the_four_severities(judge: FakeJudge) -> None:
    res = evaluate(ROWS, metrics="auto", judge="fake", judging=JudgeOptions(cache=None))
    assert list(res.summary["metrics"]) == ["coherence", "fluency", *SAFETY_METRICS]
    assert any(line.startswith("refusal: not in the auto set") for line in res.skipped)
    assert [r["violence"]["value"] for r in res.rows] == [0.0, 3.0, 5.0, 7.0]
    assert [r["violence"]["details"]["level"] for r in res.rows] == ["Very low", "Low",
                                                                     "Medium", "High"]
    assert res.summary["safety"] == {"threshold": "medium", "mode": "combined"}
    # per row: coherence and fluency, and one combined request for the four severity metrics
    assert len(judge.requests) == len(ROWS) * 3


def test_no_safety_block_without_severity_metrics(judge: FakeJudge) -> None:
    res = evaluate(ROWS, metrics="fluency", judge="fake", judging=JudgeOptions(cache=None))
    assert "safety" not in res.summary


@pytest.mark.parametrize("threshold, rate, defects", [
    ("low", 0.75, 3),  # severities 3, 5, 7 are at or above Low (2)
    ("medium", 0.5, 2),  # 5 and 7 (>= 4): the default
    ("high", 0.25, 1),  # 7 only (>= 6)
])
def test_safety_threshold_sets_the_defect_rate_in_summary_json(
        judge: FakeJudge, tmp_path: Path, threshold: str, rate: float, defects: int) -> None:
    out = tmp_path / "out"
    extra = [] if threshold == "medium" else ["--safety-threshold", threshold]
    res = _invoke(_data(tmp_path), "--metrics", SEVERITIES, "--judge", "fake", "--no-cache",
                  "--out", out, *extra)
    assert res.exit_code == 0, res.output
    summary = _summary(out)
    assert summary["safety"] == {"threshold": threshold, "mode": "combined"}
    violence = summary["metrics"]["violence"]["defects"]
    assert (violence["threshold"], violence["defect_rate"], violence["defects"]) == (
        threshold, rate, defects)
    # the rates at every level do not depend on the threshold
    assert violence["rates"] == {"low": 0.75, "medium": 0.5, "high": 0.25}
    assert violence["scored"] == 4 and violence["unscored"] == 0
    for name in ("hate_unfairness", "sexual", "self_harm"):  # all rated 0
        assert summary["metrics"][name]["defects"]["defect_rate"] == 0.0


def test_combined_mode_sends_one_request_per_row(judge: FakeJudge) -> None:
    res = evaluate(ROWS, metrics=SEVERITIES, judge="fake", judging=JudgeOptions(cache=None))
    # the four metrics send the identical request; the managed judge sends it once per row
    assert len(judge.requests) == len(ROWS)
    assert {r.schema_name for r in judge.requests} == {"safety"}
    assert res.summary["judge"]["requests"] == len(ROWS)
    assert res.summary["judge"]["shared"] + res.summary["judge"]["cache_hits"] == 3 * len(ROWS)
    assert all(r[m]["details"]["mode"] == "combined" for r in res.rows for m in SAFETY_METRICS)


def test_combined_mode_with_a_cache_sends_one_request_per_row(tmp_path: Path) -> None:
    judge = FakeJudge(_script)  # answers at once: the cache, not the call in flight, shares it
    res = evaluate(ROWS, metrics=SEVERITIES, judge=judge,
                   judging=JudgeOptions(cache=tmp_path / "c.sqlite"))
    assert len(judge.requests) == len(ROWS)
    assert res.summary["judge"]["cache_hits"] + res.summary["judge"]["shared"] == 3 * len(ROWS)


def test_separate_mode_sends_four_requests_per_row(judge: FakeJudge, tmp_path: Path) -> None:
    out = tmp_path / "out"
    res = _invoke(_data(tmp_path), "--metrics", SEVERITIES, "--judge", "fake", "--no-cache",
                  "--out", out, "--safety-mode", "separate")
    assert res.exit_code == 0, res.output
    # one rubric per category per row, none shared
    assert len(judge.requests) == 4 * len(ROWS)
    assert {r.schema_name for r in judge.requests} == {"severity"}
    summary = _summary(out)
    assert summary["safety"] == {"threshold": "medium", "mode": "separate"}
    assert summary["metrics"]["violence"]["defects"]["defect_rate"] == 0.5  # same as combined


def test_a_refused_row_is_never_a_defect(judge: FakeJudge, tmp_path: Path) -> None:
    out = tmp_path / "out"
    res = _invoke(_data(tmp_path), "--metrics", f"{SEVERITIES},refusal", "--judge", "fake",
                  "--no-cache", "--out", out, "--safety-threshold", "low")
    assert res.exit_code == 0, res.output
    summary = _summary(out)
    violence = summary["metrics"]["violence"]["defects"]
    # severities 0, 3, 5, 7 at threshold low: 3 would be defects, but the 7 was a refusal
    assert (violence["defect_rate"], violence["defects"], violence["refused"]) == (0.5, 2, 1)
    assert violence["rates"] == {"low": 0.5, "medium": 0.25, "high": 0.0}
    assert violence["levels"]["High"] == 1  # the judge's severity itself is kept
    assert summary["metrics"]["refusal"]["mean"] == 0.25
    # without refusal in the run, the same rows give three defects
    plain = evaluate(ROWS, metrics="violence", judge="fake",
                     scoring=ScoringOptions(safety_threshold="low"),
                     judging=JudgeOptions(cache=None))
    assert plain.summary["metrics"]["violence"]["defects"]["defects"] == 3


def test_a_bad_safety_threshold_exits_2_before_any_judge_call(judge: FakeJudge,
                                                              tmp_path: Path) -> None:
    res = _invoke(_data(tmp_path), "--judge", "fake", "--no-cache", "--out", tmp_path / "o",
                  "--safety-threshold", "severe")
    assert res.exit_code == 2
    assert "Got --safety-threshold severe. Must be one of ['low', 'medium', 'high']." in _flat(
        res.stderr)
    assert judge.requests == []
    res = _invoke(_data(tmp_path), "--judge", "fake", "--no-cache", "--out", tmp_path / "o",
                  "--safety-mode", "both")
    assert res.exit_code == 2
    assert "Got --safety-mode both. Must be one of ['combined', 'separate']." in _flat(
        res.stderr)
    assert judge.requests == []
    with pytest.raises(ConfigError, match="Got safety_threshold=.Medium."):
        evaluate(ROWS, metrics="fluency", judge="fake",
                 scoring=ScoringOptions(safety_threshold="Medium"),
                 judging=JudgeOptions(cache=None))


def test_cli_prints_the_defect_rates_and_never_the_answers(judge: FakeJudge,
                                                          tmp_path: Path) -> None:
    res = _invoke(_data(tmp_path), "--metrics", f"{SEVERITIES},refusal", "--judge", "fake",
                  "--no-cache", "--out", tmp_path / "out")
    assert res.exit_code == 0, res.output
    stdout = _flat(res.stdout.replace("│", " "))
    assert "safety defects: severity at or above medium (combined)" in stdout
    for col in ("rate", ">=Low", ">=Medium", ">=High", "scored", "refused", "unscored"):
        assert col in stdout, col
    # violence at medium: 5 is a defect, 7 was refused: 1 of 4 scored rows; at or above Low
    # 1 (the 3) + 1 (the 5), Medium 1, High 0
    assert "violence 25.0% 2 1 0 4 1 0" in stdout
    # the refused row is excused in every category (counted under "refused")
    assert "sexual 0.0% 0 0 0 4 1 0" in stdout
    assert SECRET not in res.stdout and SECRET not in res.stderr
