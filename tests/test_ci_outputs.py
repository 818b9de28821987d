"""What CI servers and pull requests read: the bars as outcomes (``summary_outcomes``,
``mean_drop_outcomes``), JUnit XML (read back with junitparser and checked against the shape
Jenkins and GitLab read), the markdown summary, ``$GITHUB_STEP_SUMMARY``, and ``--junit`` /
``--markdown`` on ``assay run`` and ``assay compare``."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from junitparser import Failure, JUnitXml, Skipped
from typer.testing import CliRunner

from assay.cli.main import app
from assay.errors import OutputError
from assay.gate import (
    BarOutcome,
    RowNote,
    check_summary,
    markdown_summary,
    mean_drop_outcomes,
    publish_ci_outputs,
    summary_outcomes,
    write_junit,
)
from assay.gate._markdown import COMMENT_LIMIT
from assay.judges import FakeJudge

XSD = Path(__file__).parent / "data" / "junit_shape.xsd"
KEY = "sk-proj-Zq81xWv0Lm3Tt7Yc2Nn4Ee9Pp"


@pytest.fixture(autouse=True)
def _plain_console(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "200")
    monkeypatch.setenv("NO_COLOR", "1")
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)


SUMMARY: dict[str, Any] = {
    "rows": 4, "rows_done": 4,
    "metrics": {
        "groundedness": {"mean": 3.0, "ci95": [1.5, 4.5], "scored": 3, "unscored": 1},
        "violence": {"mean": 2.0, "scored": 4, "unscored": 0,
                     "defects": {"threshold": "medium", "defect_rate": 0.5}},
    },
}
RECORDS: list[dict[str, Any]] = [
    {"id": "q1", "groundedness": {"value": 5.0, "reason": "all supported"},
     "violence": {"value": 0.0}},
    {"id": "q2", "groundedness": {"value": 1.0, "reason": "invents a date"},
     "violence": {"value": 6.0, "reason": "graphic"}},
    {"id": "q3", "groundedness": {"value": 3.0, "reason": "half supported"},
     "violence": {"value": 4.0, "reason": "threat"}},
    {"id": "q4", "groundedness": {"value": None, "error": "judge call failed: HTTP 500"},
     "violence": {"value": 1.0}},
]
UNDER = {"groundedness": 4.0, "coherence": 3.0}
OVER = {"violence_defect_rate": 0.1, "groundedness_unscored_rate": 0.1, "violence": 5.0}


def fail_outcome(**changes: Any) -> BarOutcome:
    """A failed floor on groundedness (3.0 under 4.0, row q2 worst), with ``changes``."""
    base = BarOutcome(name="groundedness", kind="fail_under", bar=4.0, verdict="fail",
                      value=3.0, interval=(1.5, 4.5),
                      message="groundedness mean 3.0 is under the bar 4.0",
                      worst=(RowNote(id="q2", shown="1", reason="invents a date"),))
    return replace(base, **changes)


# --- summary_outcomes ---------------------------------------------------------------------------

def test_summary_outcomes_decide_as_check_summary_does() -> None:
    outcomes = summary_outcomes(SUMMARY, fail_under=UNDER, fail_over=OVER)
    failures = check_summary(SUMMARY, fail_under=UNDER, fail_over=OVER)
    assert [o.message for o in outcomes if o.verdict == "fail"] == failures
    assert [(o.name, o.kind, o.verdict) for o in outcomes] == [
        ("groundedness", "fail_under", "fail"), ("coherence", "fail_under", "fail"),
        ("violence_defect_rate", "fail_over", "fail"),
        ("groundedness_unscored_rate", "fail_over", "fail"), ("violence", "fail_over", "pass")]
    assert outcomes[0].value == 3.0 and outcomes[0].interval == (1.5, 4.5)
    assert outcomes[4].message == "violence mean 2.0 is at or under the bar 5.0"
    assert {o.verdict for o in summary_outcomes(SUMMARY, fail_under={"groundedness": 3.0},
                                                fail_over={})} == {"pass"}


def test_each_failed_bar_names_the_rows_that_weigh_against_it() -> None:
    outcomes = summary_outcomes(SUMMARY, fail_under=UNDER, fail_over=OVER, records=RECORDS)
    worst = {o.name: [(r.id, r.shown, r.reason) for r in o.worst] for o in outcomes}
    # under the floor only, lowest first (q1 = 5 is above the bar: not named)
    assert worst["groundedness"] == [("q2", "1", "invents a date"),
                                     ("q3", "3", "half supported")]
    # defects at the summary's threshold (medium: severity 4 and up), most severe first
    assert worst["violence_defect_rate"] == [("q2", "6", "graphic"), ("q3", "4", "threat")]
    # the unscored rows, with the error
    assert worst["groundedness_unscored_rate"] == [
        ("q4", "unscored", "judge call failed: HTTP 500")]
    assert worst["coherence"] == [] and worst["violence"] == []  # no such metric; passed


def test_records_are_read_only_when_a_bar_failed() -> None:
    def untouchable() -> Iterator[dict[str, Any]]:
        raise AssertionError("records read although every bar passed")
        yield {}

    outcomes = summary_outcomes(SUMMARY, fail_under={"groundedness": 2.0}, fail_over={},
                                records=untouchable())
    assert [o.verdict for o in outcomes] == ["pass"]


def test_mean_drop_outcomes_agree_with_check_comparison() -> None:
    comparison = {
        "metrics": {"groundedness": {"mean_a": 4.1, "mean_b": 3.75, "diff": -0.35,
                                     "ci95": [-0.6, -0.1]},
                    "violence": {"mean_a": 0.5, "mean_b": 0.5, "diff": 0.0, "ci95": [0, 0]}},
        "changed": [{"id": "up", "metric": "groundedness", "a": 2.0, "b": 5.0, "delta": 3.0,
                     "reason_a": None, "reason_b": "better"},
                    {"id": "down", "metric": "groundedness", "a": 5.0, "b": 1.0, "delta": -4.0,
                     "reason_a": None, "reason_b": "unsupported"}]}
    drop, violence = mean_drop_outcomes(comparison, max_drop={"groundedness": 0.2,
                                                              "violence": 0.1})
    assert (drop.verdict, drop.kind, drop.value, drop.interval) == (
        "fail", "max_drop", -0.35, (-0.6, -0.1))
    assert drop.message == "groundedness dropped 0.35 (4.10 -> 3.75), more than 0.2"
    assert [r.id for r in drop.worst] == ["down"]  # the row that got better is not named
    assert violence.verdict == "pass" and violence.lower_is_better


# --- JUnit --------------------------------------------------------------------------------------

def written_junit(tmp_path: Path, outcomes: list[BarOutcome], suite: str = "qa") -> JUnitXml:
    path = tmp_path / "reports" / "assay.xml"
    write_junit(outcomes, path, suite=suite)
    _check_shape(path)
    return JUnitXml.fromfile(str(path))


def _check_shape(path: Path) -> None:
    from lxml import etree
    schema = etree.XMLSchema(etree.parse(str(XSD)))
    document = etree.parse(str(path))
    assert schema.validate(document), schema.error_log


def test_junit_one_case_per_bar_with_counts_and_failure_text(tmp_path: Path) -> None:
    outcomes = [
        fail_outcome(),
        BarOutcome(name="f1_score", kind="fail_under", bar=0.5, verdict="pass", value=0.9,
                   message="f1_score mean 0.9 is at or over the bar 0.5"),
        BarOutcome(name="relevance", kind="max_drop", bar=0.2, verdict="inconclusive",
                   value=-0.1, interval=(-0.4, 0.2), message="relevance: -0.1, cannot tell",
                   decide="about 120 more shared rows, or --repeat 3"),
    ]
    xml = written_junit(tmp_path, outcomes)
    [suite] = list(xml)
    assert (suite.name, suite.tests, suite.failures, suite.errors, suite.skipped) == (
        "assay.qa", 3, 1, 0, 1)
    cases = {case.name: case for case in suite}
    assert list(cases) == ["groundedness >= 4.0", "f1_score >= 0.5", "relevance max drop 0.2"]
    assert {case.classname for case in suite} == {"assay.qa"}
    [failure] = cases["groundedness >= 4.0"].result
    assert isinstance(failure, Failure)
    assert failure.message == "groundedness mean 3.0 is under the bar 4.0"
    assert "value: 3 [1.5, 4.5]" in failure.text
    assert "q2: 1 (invents a date)" in failure.text
    assert cases["f1_score >= 0.5"].is_passed
    [skipped] = cases["relevance max drop 0.2"].result
    assert isinstance(skipped, Skipped)
    assert skipped.message.startswith("inconclusive: relevance: -0.1, cannot tell")
    assert "To decide: about 120 more shared rows, or --repeat 3" in skipped.message
    root = (tmp_path / "reports" / "assay.xml").read_text()
    assert '<testsuites name="assay" tests="3" failures="1" errors="0" skipped="1"' in root


def test_junit_holds_any_text_and_no_secret(tmp_path: Path,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "azure-style-0123456789abcdef")
    nasty = fail_outcome(
        name="x<&>\"'", message=f"bad\x00 \x1b[31mred\x1b[0m \ud800 key {KEY}",
        worst=(RowNote(id="a]]>b", shown="1",
                       reason="token azure-style-0123456789abcdef\x07 <b>&amp;"),))
    xml = written_junit(tmp_path, [nasty, fail_outcome(verdict="pass", worst=())])
    text = (tmp_path / "reports" / "assay.xml").read_text()
    assert KEY not in text and "azure-style-0123456789abcdef" not in text
    [suite] = list(xml)
    [case, _] = list(suite)
    assert case.name == "x<&>\"' >= 4.0"
    assert "a]]>b: 1 (token ***\ufffd <b>&amp;)" in case.result[0].text


def test_junit_without_bars_is_an_empty_valid_suite(tmp_path: Path) -> None:
    [suite] = list(written_junit(tmp_path, []))
    assert (suite.tests, suite.failures) == (0, 0)


# --- markdown -----------------------------------------------------------------------------------

def test_markdown_verdict_bars_defects_and_worst_rows() -> None:
    outcomes = summary_outcomes(SUMMARY, fail_under={"groundedness": 4.0},
                                fail_over={"violence_defect_rate": 0.6}, records=RECORDS)
    text = markdown_summary(outcomes, title="assay run qa",
                            defects={"violence": SUMMARY["metrics"]["violence"]["defects"]})
    assert text.splitlines()[:7] == [
        "### assay run qa: FAIL", "", "1 of 2 bars failed.", "",
        "| bar | value [CI] | verdict |", "|:--|:--|:--|",
        "| groundedness >= 4.0 | 3 [1.5, 4.5] | FAIL |"]
    assert "| violence\\_defect\\_rate \\<= 0.6 | 0.5 | PASS |" in text
    assert "- **groundedness >= 4.0**: groundedness mean 3.0 is under the bar 4.0" in text
    assert "| violence | medium | 50.0% |" in text
    assert "| groundedness >= 4.0 | q2 | 1 | invents a date |" in text
    assert "| groundedness >= 4.0 | q3 | 3 | half supported |" in text


def test_markdown_inconclusive_says_what_would_decide() -> None:
    text = markdown_summary([fail_outcome(verdict="inconclusive", decide="40 more rows"),
                             fail_outcome(verdict="pass", worst=())], title="t")
    assert text.startswith("### t: INCONCLUSIVE\n\n1 of 2 bars inconclusive.")
    assert "| groundedness >= 4.0 | 3 [1.5, 4.5] | INCONCLUSIVE |" in text
    assert "To decide: 40 more rows" in text


def test_markdown_stays_under_githubs_comment_limit() -> None:
    long = "why " * 5000
    outcomes = [fail_outcome(name=f"metric_{i}", worst=tuple(
        RowNote(id=f"row-{i}-{j}", shown="1", reason=long) for j in range(3)))
        for i in range(200)]
    text = markdown_summary(outcomes, title="assay run big")
    assert len(text) < COMMENT_LIMIT
    assert "| metric\\_199 >= 4.0 | 3 [1.5, 4.5] | FAIL |" in text  # every bar shown
    assert "more rows left out to keep this under 65,536 characters" in text
    assert len(markdown_summary(outcomes * 10, title="t")) < COMMENT_LIMIT
    assert "why why" in text and long.strip() not in text  # reasons clipped


def test_markdown_cells_cannot_format_or_mention(monkeypatch: pytest.MonkeyPatch) -> None:
    text = markdown_summary([fail_outcome(worst=(RowNote(
        id="a|b", shown="1", reason=f"@octocat <img src=x> | **bold** `{KEY}`\nnext"),))],
        title="t")
    row = next(line for line in text.splitlines() if line.startswith("| groundedness >= 4.0 | a"))
    assert row == ("| groundedness >= 4.0 | a\\|b | 1 | @\u200boctocat \\<img src=x> \\| "
                   "\\*\\*bold\\*\\* \\`\\*\\*\\*\\` next |")
    assert KEY not in text


# --- publish_ci_outputs -------------------------------------------------------------------------

def test_step_summary_is_appended_and_files_written(tmp_path: Path) -> None:
    step = tmp_path / "step_summary.md"
    step.write_text("### earlier step\n")
    publish_ci_outputs([fail_outcome()], junit=tmp_path / "j.xml", markdown=tmp_path / "m.md",
                       title="assay run qa", environ={"GITHUB_STEP_SUMMARY": str(step)})
    markdown = (tmp_path / "m.md").read_text()
    assert step.read_text() == "### earlier step\n\n" + markdown
    assert JUnitXml.fromfile(str(tmp_path / "j.xml")).failures == 1


def test_a_write_failure_is_one_error_and_the_others_are_written(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("")
    with pytest.raises(OutputError) as e:
        publish_ci_outputs([fail_outcome()], junit=blocker / "j.xml", markdown=tmp_path / "m.md",
                           title="t", environ={})
    assert str(e.value).startswith(f"Cannot write the JUnit report {blocker / 'j.xml'}: ")
    assert (tmp_path / "m.md").is_file()


# --- assay run / assay compare ------------------------------------------------------------------

ROWS = [{"id": "paris", "question": "Capital of France?", "context": "Paris is the capital.",
         "answer": "Paris", "ground_truth": "Paris"},
        {"id": KEY, "question": "Which tent?", "context": "The Alpine Explorer tent.",
         "answer": "The Alpine Explorer", "ground_truth": "The Alpine Explorer tent"}]


@pytest.fixture
def data(tmp_path: Path) -> Path:
    path = tmp_path / "qa.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in ROWS))
    return path


@pytest.fixture
def leaky_judge(monkeypatch: pytest.MonkeyPatch) -> None:
    """``--judge fake`` answering 2 with a reason that quotes the API key."""
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    complete = FakeJudge.complete

    async def leaky(self: FakeJudge, request: Any, **kwargs: Any) -> Any:
        self._script = lambda _request: json.dumps({"score": 2, "reason": f"key {KEY} seen"})
        return await complete(self, request, **kwargs)

    monkeypatch.setattr(FakeJudge, "complete", leaky)


def assay(*args: str) -> Any:
    return CliRunner().invoke(app, [*args], catch_exceptions=False)


def run_args(data: Path, out: Path, *args: str) -> list[str]:
    return ["run", str(data), "--judge", "fake", "--metrics", "groundedness,f1_score",
            "--no-cache", "--no-progress", "--no-store", "--out", str(out), *args]


@pytest.mark.usefixtures("leaky_judge")
def test_run_writes_junit_markdown_and_step_summary_on_a_failed_gate(
        data: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    step = tmp_path / "gh" / "step_summary.md"
    step.parent.mkdir()
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(step))
    r = assay(*run_args(data, tmp_path / "out", "--fail-under", "groundedness=4,f1_score=0.5",
                        "--junit", str(tmp_path / "ci" / "assay.xml"),
                        "--markdown", str(tmp_path / "ci" / "assay.md")))
    assert r.exit_code == 1, r.output
    [suite] = list(JUnitXml.fromfile(str(tmp_path / "ci" / "assay.xml")))
    assert (suite.name, suite.tests, suite.failures) == ("assay.qa", 2, 1)
    case = next(c for c in suite if c.name == "groundedness >= 4.0")
    assert case.result[0].message == "groundedness mean 2.0 is under the bar 4.0"
    assert "paris: 2 (key *** seen)" in case.result[0].text
    markdown = (tmp_path / "ci" / "assay.md").read_text()
    assert markdown.startswith("### assay run qa: FAIL\n")
    assert step.read_text() == "\n" + markdown
    for text in (markdown, (tmp_path / "ci" / "assay.xml").read_text(), r.output):
        assert KEY not in text
    assert f"junit: {tmp_path / 'ci' / 'assay.xml'}" in r.stderr


def test_run_passing_gate_writes_the_outputs_too(data: Path, tmp_path: Path) -> None:
    r = assay(*run_args(data, tmp_path / "out", "--fail-under", "groundedness=4",
                        "--junit", str(tmp_path / "assay.xml")))
    assert r.exit_code == 0, r.output
    xml = JUnitXml.fromfile(str(tmp_path / "assay.xml"))
    assert (xml.tests, xml.failures) == (1, 0)
    _check_shape(tmp_path / "assay.xml")


def test_run_junit_to_a_folder_is_a_usage_error_before_any_work(
        data: Path, tmp_path: Path, judge_calls: list[object]) -> None:
    r = assay(*run_args(data, tmp_path / "out", "--junit", str(tmp_path)))
    assert r.exit_code == 2
    assert "which is a folder" in r.stderr and judge_calls == []


def test_run_unwritable_report_is_one_line_exit_3(data: Path, tmp_path: Path) -> None:
    blocker = tmp_path / "blocker"
    blocker.write_text("")
    r = assay(*run_args(data, tmp_path / "out", "--markdown", str(blocker / "assay.md")))
    assert r.exit_code == 3
    assert f"error: Cannot write the markdown summary {blocker / 'assay.md'}: " in r.stderr
    assert "Traceback" not in r.output


def test_compare_writes_junit_and_markdown(data: Path, tmp_path: Path,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    assert assay(*run_args(data, tmp_path / "base")).exit_code == 0
    worse = tmp_path / "worse.jsonl"
    worse.write_text("".join(json.dumps({**r, "answer": "no idea"}) + "\n" for r in ROWS))
    assert assay(*run_args(worse, tmp_path / "cand")).exit_code == 0
    step = tmp_path / "step.md"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(step))
    r = assay("compare", str(tmp_path / "base"), str(tmp_path / "cand"), "--max-drop",
              "f1_score=0.1,groundedness=0.5", "--junit", str(tmp_path / "cmp.xml"),
              "--markdown", str(tmp_path / "cmp.md"))
    assert r.exit_code == 1, r.output
    _check_shape(tmp_path / "cmp.xml")
    [suite] = list(JUnitXml.fromfile(str(tmp_path / "cmp.xml")))
    cases = {c.name: c for c in suite}
    assert list(cases) == ["f1_score max drop 0.1", "groundedness max drop 0.5"]
    assert cases["f1_score max drop 0.1"].result[0].message.startswith("f1_score dropped ")
    assert cases["groundedness max drop 0.5"].is_passed
    markdown = (tmp_path / "cmp.md").read_text()
    assert markdown.startswith("### assay compare base -> cand: FAIL")
    assert "| f1\\_score max drop 0.1 | -" in markdown
    assert step.read_text() == "\n" + markdown
