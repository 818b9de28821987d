"""The CI gate: bar specs, every message of ``check_summary`` / ``check_comparison``, the exit
codes of ``assay run --fail-under / --fail-over``, and ``assay.testing.assert_scores``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

import assay
from assay import RunOptions
from assay.cli.main import app
from assay.errors import ConfigError
from assay.gate import check_comparison, check_summary, parse_bars
from assay.testing import assert_scores


@pytest.fixture(autouse=True)
def _plain_console(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "200")
    monkeypatch.setenv("NO_COLOR", "1")


SUMMARY: dict[str, Any] = {
    "rows": 10, "rows_done": 10, "complete": True,
    "metrics": {
        "groundedness": {"mean": 3.62, "scored": 8, "unscored": 2},
        "f1_score": {"mean": 0.5, "scored": 10, "unscored": 0},
        "relevance": {"mean": None, "scored": 0, "unscored": 10},
        "violence": {"mean": 0.8, "scored": 10, "unscored": 0,
                     "defects": {"threshold": "medium", "defect_rate": 0.12, "defects": 1,
                                 "scored": 10, "unscored": 0,
                                 "rates": {"low": 0.2, "medium": 0.12, "high": 0.0}}},
    },
}


# --- parse_bars ---------------------------------------------------------------------------------

def test_parse_bars_repeated_and_comma_separated() -> None:
    assert parse_bars(["groundedness=4.0", " f1_score = 0.5 ,violence_defect_rate=5e-2,"],
                      "fail_under") == {"groundedness": 4.0, "f1_score": 0.5,
                                          "violence_defect_rate": 0.05}
    assert parse_bars([], "fail_under") == {}
    assert parse_bars(["a=1", "a=1.0"], "max_drop") == {"a": 1.0}  # same bar twice is fine


@pytest.mark.parametrize(("spec", "problem"), [
    ("groundedness", "missing '=NUMBER'"),
    ("=4", "missing the metric name"),
    ("groundedness=high", "'high' is not a number"),
    ("groundedness=", "'' is not a number"),
    ("groundedness=nan", "'nan' is not a number"),
    ("a=1,b", "missing '=NUMBER'"),
    ("a=1,a=2", "a already has the bar 1.0"),
])
def test_parse_bars_errors_name_the_option_spec_and_fix(spec: str, problem: str) -> None:
    with pytest.raises(ConfigError) as e:
        parse_bars([spec], "fail_over")
    msg = str(e.value)
    assert msg.startswith(f"Got fail_over={spec!r}: ")
    assert problem in msg
    assert "Fix: write NAME=NUMBER, e.g. fail_over='groundedness=4.0'" in msg


# --- check_summary ------------------------------------------------------------------------------

def test_check_summary_all_pass_including_equal_values() -> None:
    assert check_summary(SUMMARY, fail_under={"groundedness": 3.62, "f1_score": 0.5},
                         fail_over={"violence_defect_rate": 0.12,
                                    "groundedness_unscored_rate": 0.2}) == []


def test_check_summary_every_message() -> None:
    failures = check_summary(SUMMARY, fail_under={
        "groundedness": 4.0,
        "relevance": 3.0,
        "coherence": 4.0,
        "f1_score_defect_rate": 0.0,
    }, fail_over={
        "violence_defect_rate": 0.05,
        "groundedness_unscored_rate": 0.1,
        "f1_score": 0.4,
        "sexual_defect_rate": 0.1,
    })
    assert failures == [
        "groundedness mean 3.62 is under the bar 4.0",
        "relevance mean is missing (nothing scored), so it cannot pass the bar 3.0",
        ("coherence: no such metric in this run, so the bar 4.0 cannot pass. Metrics: "
        "groundedness, f1_score, relevance, violence; also violence_defect_rate, "
        "<metric>_unscored_rate."),
        ("f1_score_defect_rate: f1_score has no defect rate (only severity metrics do), so the "
        "bar 0.0 cannot pass."),
        "violence defect rate 0.12 is over the bar 0.05",
        "groundedness unscored rate 0.2 is over the bar 0.1",
        "f1_score mean 0.5 is over the bar 0.4",
        ("sexual_defect_rate: no such metric in this run, so the bar 0.1 cannot pass. Metrics: "
        "groundedness, f1_score, relevance, violence; also violence_defect_rate, "
        "<metric>_unscored_rate."),
    ]


def test_unscored_rate_counts_rows_not_reached() -> None:
    partial = {"rows": 10, "rows_done": 6,
               "metrics": {"f1_score": {"mean": 1.0, "scored": 5, "unscored": 1}}}
    assert check_summary(partial, fail_under={}, fail_over={"f1_score_unscored_rate": 0.3}) == [
        "f1_score unscored rate 0.5 is over the bar 0.3"]


def test_empty_summary_fails_every_bar() -> None:
    assert check_summary({}, fail_under={"f1_score": 0.1}, fail_over={}) == [
        ("f1_score: no such metric in this run, so the bar 0.1 cannot pass. This run has no "
        "metrics (is its summary.json missing or empty?).")]
    assert check_summary({"metrics": {"f1_score": {"mean": 1.0, "unscored": 0}}}, fail_under={},
                         fail_over={"f1_score_unscored_rate": 0.1}) == [
        "f1_score_unscored_rate: the run has no rows, so the bar 0.1 cannot pass."]


def test_a_metric_literally_named_like_a_rate_wins() -> None:
    s = {"rows": 1, "metrics": {"x_defect_rate": {"mean": 0.3}}}
    assert check_summary(s, fail_under={}, fail_over={"x_defect_rate": 0.2}) == [
        "x_defect_rate mean 0.3 is over the bar 0.2"]


# --- check_comparison ---------------------------------------------------------------------------

COMPARISON: dict[str, Any] = {"metrics": {
    "groundedness": {"mean_a": 4.1, "mean_b": 3.75},
    "f1_score": {"mean_a": 0.4747, "mean_b": 0.5},
    "relevance": {"mean_a": 4.3, "mean_b": 4.1},
    "coherence": {"mean_a": None, "mean_b": 4.0},
    "violence": {"mean_a": 0.5, "mean_b": 2.5},
}}


def test_check_comparison_every_message() -> None:
    failures = check_comparison(COMPARISON, max_drop={
        "groundedness": 0.2, "f1_score": 0.0, "relevance": 0.2, "coherence": 0.5,
        "violence": 0.5, "fluency": 0.1})
    assert failures == [
        "groundedness dropped 0.35 (4.10 -> 3.75), more than 0.2",
        "coherence: nothing scored in the baseline run, so the bar 0.5 cannot pass",
        "violence rose 2.0 (0.50 -> 2.50), more than 0.5 (lower is better)",
        ("fluency: not a metric of this comparison, so the bar 0.1 cannot pass. Metrics "
        "compared: groundedness, f1_score, relevance, coherence, violence."),
    ]


def test_check_comparison_passes_improvements_and_drops_within_the_bar() -> None:
    assert check_comparison(COMPARISON, max_drop={"groundedness": 0.35, "f1_score": 0.0,
                                                  "relevance": 0.2}) == []
    # a metric named lower-is-better explicitly: its fall is an improvement
    assert check_comparison(COMPARISON, max_drop={"groundedness": 0.0},
                            lower_is_better=["groundedness"]) == []


# --- assay run --fail-under / --fail-over -------------------------------------------------------

ROWS = [{"id": "paris", "answer": "Paris", "ground_truth": "Paris"},
        {"id": "tent", "answer": "The Alpine Explorer", "ground_truth": "The Alpine Explorer tent"}]


@pytest.fixture
def data(tmp_path: Path) -> Path:
    path = tmp_path / "qa.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in ROWS))
    return path


def assay_run(data: Path, out: Path, *args: str) -> Any:
    return CliRunner().invoke(app, ["run", str(data), "--metrics", "f1_score,exact_match",
                                    "--no-cache", "--no-progress", "--out", str(out), *args])


def test_run_exits_0_when_every_bar_passes(data: Path, tmp_path: Path) -> None:
    r = assay_run(data, tmp_path / "out", "--fail-under", "f1_score=0.8,exact_match=0.5",
                  "--fail-over", "f1_score_unscored_rate=0")
    assert r.exit_code == 0, r.output
    assert "gate failed" not in r.stderr


def test_run_without_bars_exits_0(data: Path, tmp_path: Path) -> None:
    assert assay_run(data, tmp_path / "out").exit_code == 0


def test_run_exits_1_with_every_failed_bar(data: Path, tmp_path: Path) -> None:
    r = assay_run(data, tmp_path / "out", "--fail-under", "exact_match=0.9",
                  "--fail-under", "f1_score=0.95", "--fail-over", "f1_score=0.5")
    assert r.exit_code == 1
    assert "f1_score" in r.stdout  # the summary is printed first
    assert "gate failed: exact_match mean 0.5 is under the bar 0.9" in r.stderr
    assert "gate failed: f1_score mean 0.9" in r.stderr and "is under the bar 0.95" in r.stderr
    assert "gate failed: f1_score mean 0.9" in r.stderr and "is over the bar 0.5" in r.stderr
    assert (tmp_path / "out" / "summary.json").is_file()  # the results are kept


@pytest.mark.parametrize("option", ["--fail-under", "--fail-over"])
def test_run_bad_spec_exits_2_before_running(data: Path, tmp_path: Path, option: str) -> None:
    r = assay_run(data, tmp_path / "out", option, "f1_score>0.5")
    assert r.exit_code == 2
    assert f"Got {option} f1_score>0.5: missing '=NUMBER'" in r.stderr
    assert not (tmp_path / "out").exists()


def test_run_bar_on_an_unknown_metric_exits_2_before_any_judge_call(
        data: Path, tmp_path: Path, judge_calls: list[object]) -> None:
    """A misspelt bar could never pass: it is refused with a did-you-mean before the judge is
    paid for, with every bad bar in one message (a metric the run does not score, a defect rate
    of a metric that has none)."""
    out = tmp_path / "out"
    r = CliRunner().invoke(app, [
        "run", str(data), "--metrics", "f1_score,fluency", "--judge", "fake", "--no-cache",
        "--no-store", "--no-progress", "--out", str(out), "--fail-under", "flunecy=4",
        "--fail-over", "violence_defect_rate=0.1,f1_score_defect_rate=0.2"])
    assert r.exit_code == 2, r.output
    flat = " ".join(r.stderr.split())
    assert "--fail-under flunecy=4.0: no metric 'flunecy' (did you mean fluency" in flat
    assert ("--fail-over violence_defect_rate=0.1: violence is not one of this run's "
            "metrics") in flat
    assert "f1_score has no defect rate (only the severity metrics do)" in flat
    assert "Fix: use one of those names, or add the metric to --metrics" in flat
    assert "Traceback" not in r.output
    assert not judge_calls
    assert not (out / "results.jsonl").exists()


def test_run_bar_on_a_skipped_metric_says_why_it_is_skipped(
        data: Path, tmp_path: Path, judge_calls: list[object]) -> None:
    r = CliRunner().invoke(app, [
        "run", str(data), "--metrics", "f1_score,fluency,groundedness", "--judge", "fake",
        "--no-cache", "--no-store", "--no-progress", "--out", str(tmp_path / "out"),
        "--fail-under", "fluency=3,groundedness=3"])
    assert r.exit_code == 2, r.output
    flat = " ".join(r.stderr.split())
    assert ("--fail-under groundedness=3.0: groundedness is not one of this run's metrics "
            "(groundedness: skipped, no row can be scored") in flat
    assert "fluency=3.0" not in flat  # a bar on a metric of the run is fine
    assert not judge_calls


# --- assert_scores ------------------------------------------------------------------------------

def test_assert_scores_accepts_result_summary_and_directory(tmp_path: Path) -> None:
    result = assay.evaluate(ROWS, metrics="f1_score,exact_match",
                            run=RunOptions(out=tmp_path / "run"))
    for given in (result, result.summary, tmp_path / "run", str(tmp_path / "run")):
        assert_scores(given, min={"f1_score": 0.8}, max={"exact_match_unscored_rate": 0.0})
        with pytest.raises(AssertionError, match="1 score bar failed:\n  - exact_match mean "
                                                 "0.5 is under the bar 1.0"):
            assert_scores(given, min={"exact_match": 1.0})


def test_assert_scores_lists_every_failed_bar() -> None:
    with pytest.raises(AssertionError) as e:
        assert_scores(SUMMARY, min={"groundedness": 4.0, "nope": 1.0},
                      max={"violence_defect_rate": 0.05})
    lines = str(e.value).splitlines()
    assert lines[0] == "3 score bars failed:"
    assert lines[1] == "  - groundedness mean 3.62 is under the bar 4.0"
    assert lines[2].startswith("  - nope: no such metric")
    assert lines[3] == "  - violence defect rate 0.12 is over the bar 0.05"


def test_assert_scores_needs_a_bar_and_a_run() -> None:
    with pytest.raises(ValueError, match="no bars"):
        assert_scores(SUMMARY)
    with pytest.raises(ValueError, match="Got result of type int"):
        assert_scores(3, min={"f1_score": 0.5})
