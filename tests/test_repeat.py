"""``assay run --repeat K``: each judge metric asked K times per row, each repeat cached apart,
the row's value the mean of its repeats, and the test-retest figures in the summary."""

from __future__ import annotations

import json
import math
import statistics
import subprocess
import sys
from pathlib import Path

import krippendorff
import numpy as np
import pytest
from typer.testing import CliRunner

from assay import JudgeOptions, RunOptions, evaluate
from assay.calls import JUDGE_REPEAT
from assay.cli.main import app
from assay.errors import ConfigError, JudgeError
from assay.judges import FakeJudge, JudgeRequest
from assay.records import RetestTally, kept_results
from assay.records._failures import over_failed_share
from conftest import QA50
from support import interrupt_after_rows, timeless, without_usage

#: Each row's answer, and the score the judge gives it on each repeat (0-based index).
SCRIPT = {"A1": [4, 4, 4], "A2": [3, 4, 5], "A3": [2, 2, 3], "A4": [5, 5, 5]}
ROWS = [{"id": f"q{i}", "question": f"Question {i}?", "answer": answer, "ground_truth": answer}
        for i, answer in enumerate(SCRIPT, 1)]


def _answer_of(request: JudgeRequest) -> str:
    text = "\n".join(m["content"] for m in request.messages)
    return next(answer for answer in SCRIPT if f"\n{answer}\n" in text)


def scripted(request: JudgeRequest) -> str:
    """The score SCRIPT gives this row on the repeat the call belongs to."""
    repeat = JUDGE_REPEAT.get()
    score = SCRIPT[_answer_of(request)][repeat]
    return json.dumps({"score": score, "reason": f"repeat {repeat + 1}"})


def test_the_value_is_the_mean_of_the_repeats_each_listed() -> None:
    judge = FakeJudge(scripted)
    result = evaluate(ROWS, metrics="f1_score,fluency", judge=judge,
                      judging=JudgeOptions(cache=False), run=RunOptions(repeat=3))
    assert len(judge.requests) == 3 * len(ROWS)  # K judge calls per row; f1 asks none
    by_id = {r["id"]: r for r in result.rows}
    for row, scores in zip(ROWS, SCRIPT.values(), strict=True):
        fluency = by_id[row["id"]]["fluency"]
        assert fluency["repeats"] == [float(s) for s in scores]
        assert fluency["value"] == pytest.approx(statistics.fmean(scores))
        assert fluency["reason"] == "repeat 1"  # the first scored repeat's
        assert "repeats" not in by_id[row["id"]]["f1_score"]  # computed once
    summary = result.summary["metrics"]["fluency"]
    assert summary["mean"] == pytest.approx(statistics.fmean(
        statistics.fmean(s) for s in SCRIPT.values()), abs=1e-4)
    retest = summary["retest"]
    columns = np.array(list(SCRIPT.values()), dtype=float).T  # one rater per repeat
    assert retest == {
        "repeats": 3, "rows": 4,
        "agreement": 0.5,  # A1 and A4 agree on every repeat
        "within_row_sd": round(statistics.fmean(statistics.stdev(s) for s in SCRIPT.values()),
                               4),
        "alpha": round(float(krippendorff.alpha(reliability_data=columns,
                                                level_of_measurement="interval")), 4),
        "alpha_level": "interval", "unscored_repeats": 0, "failed_repeats": 0}
    assert retest["within_row_sd"] == 0.3943  # (0 + 1 + 0.5774 + 0) / 4
    assert "retest" not in result.summary["metrics"]["f1_score"]


def test_without_repeat_the_record_is_as_before() -> None:
    result = evaluate(ROWS[:1], metrics="fluency", judge=FakeJudge(scripted),
                      judging=JudgeOptions(cache=False))
    assert set(result.rows[0]["fluency"]) == {"value", "weighted", "reason", "error", "details"}
    assert "retest" not in result.summary["metrics"]["fluency"]


def test_the_cache_keeps_repeats_apart(tmp_path: Path) -> None:
    cache = tmp_path / "judge.sqlite"
    once = FakeJudge(scripted)
    evaluate(ROWS, metrics="fluency", judge=once, judging=JudgeOptions(cache=cache))
    assert len(once.requests) == len(ROWS)
    thrice = FakeJudge(scripted)
    first = evaluate(ROWS, metrics="fluency", judge=thrice, judging=JudgeOptions(cache=cache),
                     run=RunOptions(repeat=3))
    assert len(thrice.requests) == 2 * len(ROWS)  # repeat 1 answered by the run without
    assert first.summary["judge"]["cache_hits"] == len(ROWS)
    assert [r["fluency"]["repeats"] for r in first.rows] == [
        [float(s) for s in scores] for scores in SCRIPT.values()]  # not one answer three times
    again = FakeJudge(scripted)
    second = evaluate(ROWS, metrics="fluency", judge=again, judging=JudgeOptions(cache=cache),
                      run=RunOptions(repeat=3))
    assert again.requests == []
    assert without_usage(timeless(second.rows)) == without_usage(timeless(first.rows))


@pytest.mark.parametrize("bad", ["0", "-2", "three", "1.5"])
def test_a_bad_repeat_is_a_usage_error(tmp_path: Path, bad: str) -> None:
    data = tmp_path / "d.jsonl"
    data.write_text(json.dumps(ROWS[0]) + "\n")
    done = subprocess.run(
        [sys.executable, "-m", "assay", "run", str(data), "--metrics", "fluency", "--judge",
         "fake", "--no-cache", "--no-store", "--out", str(tmp_path / "out"), "--repeat", bad],
        capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 2, done.stderr
    message = " ".join(done.stderr.split())
    assert "--repeat" in message and "Traceback" not in message
    if bad.lstrip("-").isdigit():
        assert (f"Got {bad}. Must be a whole number, 1 or more: how many times each judge "
                "metric is asked per row, such as 3") in message
    else:
        assert "Input should be a valid integer" in message
    assert not (tmp_path / "out" / "results.jsonl").exists()


def test_a_bad_repeat_in_the_library_is_a_config_error() -> None:
    with pytest.raises(ConfigError, match=r"Got repeat=0\. Must be a whole number, 1 or more"):
        evaluate(ROWS, metrics="fluency", judge=FakeJudge(scripted), run=RunOptions(repeat=0))


def test_assay_run_prints_and_writes_the_retest_figures(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    judge = FakeJudge(scripted)
    monkeypatch.setattr("assay.calls._open.make_judge", lambda spec, **kw: judge)
    data = tmp_path / "d.jsonl"
    data.write_text("".join(json.dumps(row) + "\n" for row in ROWS))
    out = tmp_path / "out"
    result = CliRunner().invoke(app, ["run", str(data), "--metrics", "fluency,f1_score",
                                      "--judge", "fake", "--no-cache", "--no-store", "--out",
                                      str(out), "--repeat", "3", "--quiet"])
    assert result.exit_code == 0, result.output
    assert ("fluency retest (3 repeats, 4 rows): agreement 50.0%, within-row SD 0.394, alpha"
            in " ".join(result.stdout.split()))
    assert "f1_score retest" not in result.stdout
    summary = json.loads((out / "summary.json").read_text())
    assert summary["metrics"]["fluency"]["retest"]["agreement"] == 0.5
    run = json.loads((out / "run.json").read_text())
    assert run["judging"]["repeat"] == 3
    assert "K times the judge calls" in " ".join(
        CliRunner().invoke(app, ["run", "--help"]).stdout.split())


def test_ctrl_c_then_resume_keeps_every_repeat(fake_judge_server, tmp_path: Path) -> None:
    """A real SIGINT to ``assay run --repeat 3`` on a noisy judge server: the rows written
    keep their repeats, ``--resume`` asks only what is missing, every row ends with 3."""
    server = fake_judge_server("--latency-ms", "60", "--score-noise", "0.4", "--seed", "7")
    out = tmp_path / "out"
    cmd = [sys.executable, "-m", "assay", "run", str(QA50), "--judge", "openai:gpt-4o-mini",
           "--metrics", "groundedness", "--concurrency", "3", "--repeat", "3", "--out",
           str(out), "--cache", str(tmp_path / "c.sqlite"), "--no-store",
           "--injection-detector", "patterns"]  # no classifier to load: a faster start
    results = out / "results.jsonl"
    code, stderr = interrupt_after_rows(cmd, results, 4, wait_s=60)
    assert code == 130, stderr
    kept = [json.loads(x) for x in results.read_text().splitlines()]
    assert 4 <= len(kept) < 50
    assert all(len(r["groundedness"]["repeats"]) == 3 for r in kept)
    asked_before = sum(r["status"] == 200 for r in server.records())
    done = subprocess.run(cmd + ["--resume"], capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    final = {r["id"]: r for r in map(json.loads, results.read_text().splitlines())}
    assert len(final) == 50
    assert all(final[r["id"]] == r for r in kept)  # the rows written are kept as they were
    for record in final.values():
        result = record["groundedness"]
        assert len(result["repeats"]) == 3 and None not in result["repeats"]
        assert result["value"] == pytest.approx(statistics.fmean(result["repeats"]))
    answered = sum(r["status"] == 200 for r in server.records())
    # each of the 150 repeats answered once; at most the 3 calls in flight at Ctrl-C again
    assert 150 <= answered <= 153, (asked_before, answered)
    summary = json.loads((out / "summary.json").read_text())
    assert summary["complete"] is True
    assert summary["metrics"]["groundedness"]["retest"]["rows"] == 50
    assert summary["metrics"]["groundedness"]["retest"]["agreement"] < 1.0  # a noisy judge


def test_resume_with_another_repeat_is_refused(tmp_path: Path) -> None:
    out = tmp_path / "out"
    evaluate(ROWS, metrics="fluency", judge=FakeJudge(scripted),
             judging=JudgeOptions(cache=False), run=RunOptions(out=out, repeat=3))
    with pytest.raises(ConfigError, match="repeat: the folder's run used 3, this one 2"):
        evaluate(ROWS, metrics="fluency", judge=FakeJudge(scripted),
                 judging=JudgeOptions(cache=False), run=RunOptions(out=out, repeat=2,
                                                                   resume=True))


def test_a_failed_repeat_counts_as_a_failure_and_is_asked_again_on_resume(
        tmp_path: Path) -> None:
    cache, out = tmp_path / "c.sqlite", tmp_path / "out"

    def fails_once(request: JudgeRequest) -> str:
        if _answer_of(request) == "A2" and JUDGE_REPEAT.get() == 1:
            return JudgeError("HTTP 500: boom")  # type: ignore[return-value]
        return scripted(request)

    first = evaluate(ROWS, metrics="fluency", judge=FakeJudge(fails_once),
                     judging=JudgeOptions(cache=cache, max_attempts=1),
                     run=RunOptions(out=out, repeat=3))
    row = next(r for r in first.rows if r["id"] == "q2")["fluency"]
    assert row["repeats"] == [3.0, None, 5.0] and row["value"] == 4.0
    assert row["details"]["unscored_repeats"][0]["repeat"] == 2
    assert row["details"]["unscored_repeats"][0]["error"].startswith("judge call failed")
    assert "fluency" not in kept_results({"id": "q2", "fluency": row})
    retest = first.summary["metrics"]["fluency"]["retest"]
    assert (retest["unscored_repeats"], retest["failed_repeats"]) == (1, 1)
    failures = first.summary["failures"]
    assert failures["by_metric"]["fluency"]["failed_repeats"] == 1
    assert failures["by_metric"]["fluency"]["share"] == round(1 / (3 * len(ROWS)), 4)
    assert over_failed_share(failures, 0.05) == ["fluency"]  # 1 of 12 asks: exit 3
    resumed = FakeJudge(scripted)
    second = evaluate(ROWS, metrics="fluency", judge=resumed, judging=JudgeOptions(cache=cache),
                      run=RunOptions(out=out, resume=True, repeat=3))
    assert len(resumed.requests) == 1  # only the failed repeat: the others are cached
    row = next(r for r in second.rows if r["id"] == "q2")["fluency"]
    assert row["repeats"] == [3.0, 4.0, 5.0] and "unscored_repeats" not in row["details"]


def test_every_repeat_unscored_leaves_the_row_unscored_with_the_reason() -> None:
    result = evaluate(ROWS[:1], metrics="fluency", judge=FakeJudge("not json"),
                      judging=JudgeOptions(cache=False), run=RunOptions(repeat=2))
    fluency = result.rows[0]["fluency"]
    assert fluency["value"] is None and fluency["repeats"] == [None, None]
    assert fluency["error"] and fluency["details"]["unreadable"] == "answer"
    assert result.summary["metrics"]["fluency"]["retest"]["rows"] == 0


def test_continuous_values_leave_agreement_out_and_say_so() -> None:
    tally = RetestTally()
    tally.add("groundedness", {"value": 3.5, "repeats": [3.2, 3.8]})
    tally.add("groundedness", {"value": 4.0, "repeats": [4.0, 4.0]})
    figures = tally.figures("groundedness")
    assert figures is not None and "agreement" not in figures
    assert "not whole numbers" in figures["agreement_note"]
    assert figures["within_row_sd"] == round(statistics.stdev([3.2, 3.8]) / 2, 4)
    assert figures["alpha"] is not None and math.isfinite(figures["alpha"])


def test_a_deterministic_judge_agrees_with_itself_and_alpha_says_why_it_is_undefined() -> None:
    result = evaluate(ROWS, metrics="fluency", judge=FakeJudge(),
                      judging=JudgeOptions(cache=False), run=RunOptions(repeat=2))
    retest = result.summary["metrics"]["fluency"]["retest"]
    assert retest["agreement"] == 1.0 and retest["within_row_sd"] == 0.0
    assert retest["alpha"] is None and "same value" in retest["alpha_note"]


def test_the_html_report_shows_the_retest_figures(tmp_path: Path) -> None:
    out = tmp_path / "out"
    evaluate(ROWS, metrics="fluency", judge=FakeJudge(scripted),
             judging=JudgeOptions(cache=False), run=RunOptions(out=out, repeat=3))
    page = tmp_path / "report.html"
    done = CliRunner().invoke(app, ["report", str(out), "-o", str(page)])
    assert done.exit_code == 0, done.output
    html = page.read_text()
    assert "3 repeats: agreement 50.0%, SD 0.394, &alpha; " in html


def test_a_panel_repeated_gives_each_judge_its_mean_over_the_repeats() -> None:
    def judge_a(request: JudgeRequest) -> str:
        return json.dumps({"score": [2, 4][JUDGE_REPEAT.get()], "reason": "a"})

    def judge_b(request: JudgeRequest) -> str:
        return json.dumps({"score": 5, "reason": "b"})

    result = evaluate(ROWS[:2], metrics="fluency",
                      judge=[FakeJudge(judge_a, id="fake:a"), FakeJudge(judge_b, id="fake:b")],
                      judging=JudgeOptions(cache=False), run=RunOptions(repeat=2))
    fluency = result.rows[0]["fluency"]
    assert fluency["repeats"] == [3.5, 4.5] and fluency["value"] == 4.0
    assert {judge: e["value"] for judge, e in fluency["details"]["panel"].items()} == {
        "fake:a": 3.0, "fake:b": 5.0}
