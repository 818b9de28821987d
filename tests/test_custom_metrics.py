"""Custom pointwise and pairwise metrics: definition, template files, validation, swapping."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from typer.testing import CliRunner

import assay
from assay import JudgeOptions
from assay.cli.main import app
from assay.errors import ConfigError, DataError
from assay.judges import FakeJudge, JudgeRequest, JudgeResponse, TokenLogprob
from assay.metrics.custom import PairwiseMetric, PointwiseMetric, load_metric_file

HELPFULNESS = """---
name: helpfulness
kind: pointwise
scale: 1-5
instruction: Rate how well the response helps with the question.
rating_rubric:
  5: answers fully and correctly
  3: partly helps
  1: does not help
---
<question>
{{ question }}
</question>
<answer>
{{ response }}
</answer>
Audience: {{ audience }}
"""

PREFERENCE = """---
name: preference
kind: pairwise
instruction: Which response answers the question better?
---
<question>
{{ question }}
</question>
Response of model_A:
{{ response_a }}
Response of model_B:
{{ response_b }}
"""

ROWS = [
    {"id": "1", "question": "Capital of France?", "answer": "Paris.", "audience": "kids",
     "baseline_model_response": "Lyon."},
    {"id": "2", "question": "2+2?", "answer": "5", "audience": "adults",
     "baseline_model_response": "4"},
    {"id": "3", "question": "Boiling point of water?", "answer": "100 C at sea level.",
     "audience": "adults", "baseline_model_response": "Hot."},
]


def _user(req: JudgeRequest) -> str:
    return req.messages[-1]["content"]


def _write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def test_pointwise_file_renders_rubric_fields_and_extra_columns(tmp_path: Path) -> None:
    metric = load_metric_file(_write(tmp_path, "h.md", HELPFULNESS))
    judge = FakeJudge(lambda r: json.dumps(
        {"score": 5 if "Paris" in _user(r) else 2, "reason": "checked"}))
    result = assay.evaluate(ROWS, metrics=[metric], judge=judge, judging=JudgeOptions(cache=None))
    assert [r["helpfulness"]["value"] for r in result.rows] == [5.0, 2.0, 2.0]
    system, user = judge.requests[0].messages
    assert "5 = answers fully and correctly" in system["content"]
    assert system["content"].index("5 =") < system["content"].index("1 =")
    assert "an integer from 1 to 5" in system["content"]
    assert "Audience: kids" in user["content"] and "Paris." in user["content"]
    assert judge.requests[0].json_schema["properties"]["score"] == {
        "type": "integer", "minimum": 1, "maximum": 5}
    agg = result.summary["metrics"]["helpfulness"]
    assert agg["mean"] == 3.0 and agg["labels"] == {"1": 0, "2": 2, "3": 0, "4": 0, "5": 1}


def test_label_scale_and_weighted_numeric_score() -> None:
    tone = PointwiseMetric("tone", "{{ response }}", scale=["rude", "neutral", "warm"],
                           rating_rubric={"warm": "friendly", "rude": "insulting"})
    judge = FakeJudge('{"score": "Warm", "reason": "friendly"}')
    row = assay.Row(id="1", line=1, answer="Happy to help!")
    import asyncio

    from assay.metrics import ScoreContext
    got = asyncio.run(tone.score(row, ScoreContext(judge=judge)))
    assert got.value == 2.0 and got.details["label"] == "warm"
    assert judge.requests[0].json_schema["properties"]["score"]["enum"] == [
        "rude", "neutral", "warm"]
    lp = [TokenLogprob(token='{"score": ', logprob=0.0),
          TokenLogprob(token="3", logprob=math.log(0.5),
                       top={"3": math.log(0.5), "2": math.log(0.25), "9": math.log(0.25)})]
    rated = PointwiseMetric("clarity", "{{ response }}", scale="1-3")
    resp = JudgeResponse(text='{"score": 3, "reason": "clear"}', logprobs=lp)
    got = asyncio.run(rated.score(row, ScoreContext(judge=FakeJudge(lambda r: resp))))
    # 9 is off the 1-3 scale and ignored: (3 x 0.5 + 2 x 0.25) / 0.75
    assert got.value == 3.0 and got.weighted == pytest.approx(2.6667, abs=1e-4)


def test_off_scale_answers_are_unscored_never_clamped() -> None:
    metric = PointwiseMetric("clarity", "{{ response }}", scale="1-5")
    judge = FakeJudge('{"score": 7, "reason": "very clear"}')
    result = assay.evaluate(ROWS[:1], metrics=[metric], judge=judge,
                            judging=JudgeOptions(cache=None))
    cell = result.rows[0]["clarity"]
    assert cell["value"] is None and "not a score on the scale" in cell["error"]
    assert cell["details"]["raw_answer"].startswith('{"score": 7') and len(judge.requests) == 2
    assert result.summary["metrics"]["clarity"]["unscored"] == 1


def test_template_field_the_data_lacks_fails_before_any_judge_call(tmp_path: Path) -> None:
    metric = load_metric_file(_write(tmp_path, "h.md", HELPFULNESS))
    data = tmp_path / "d.jsonl"
    data.write_text("\n".join(json.dumps({k: v for k, v in r.items() if k != "audience"})
                              for r in ROWS) + "\n")
    judge = FakeJudge()
    with pytest.raises(DataError) as err:
        assay.evaluate(data, metrics=[metric], judge=judge, judging=JudgeOptions(cache=None))
    assert "'audience'" in str(err.value) and "lines 1, 2, 3" in str(err.value)
    assert str(data) in str(err.value) and judge.requests == []


@pytest.mark.parametrize("text, message", [
    ("name: x\n---\n{{ response }}", "starts with a '---' line"),
    ("---\nname: x\n{{ response }}", "no closing '---'"),
    ("---\nname: x\nscale: 1-5\nrubric: {}\n---\n{{ response }}", "unknown key 'rubric'"),
    ("---\nkind: pointwise\n---\n{{ response }}", "key 'name' is missing"),
    ("---\nname: x\nkind: listwise\n---\n{{ response }}", "Must be pointwise or pairwise"),
    ("---\nname: x\nscale: 1 to ten\n---\n{{ response }}", "integer range"),
    ("---\nname: x\nscale: 1-5\nrating_rubric:\n  6: great\n---\n{{ response }}",
     "not on the scale"),
    ("---\nname: x\n---\n{{ response ", "template line"),
    ("---\nname: x\n---\nno fields here", "uses no field"),
    ("---\nname: x-y\n---\n{{ response }}", "Python identifier"),
    ("---\nname: p\nkind: pairwise\n---\n{{ response }} vs {{ baseline_model_response }}",
     "response_a"),
    ("---\nname: x\nscale: [a: b\n---\n{{ response }}", "not valid YAML"),
])
def test_metric_file_errors_name_the_file_and_the_fix(tmp_path: Path, text: str,
                                                      message: str) -> None:
    path = _write(tmp_path, "m.md", text)
    with pytest.raises(ConfigError) as err:
        load_metric_file(path)
    assert message in str(err.value) and str(path) in str(err.value)


def _prefers_right(r: JudgeRequest) -> str:
    """Prefers the response holding the right answer, wherever it appears."""
    user = _user(r)
    a, _b = user.split("Response of model_B:")
    good = ("Paris" in a or "\n4" in a or "100 C" in a)
    return json.dumps({"choice": "model_A" if good else "model_B", "reason": "right one"})


def test_pairwise_swaps_positions_and_maps_choices(tmp_path: Path) -> None:
    metric = load_metric_file(_write(tmp_path, "p.md", PREFERENCE))
    judge = FakeJudge(_prefers_right)
    result = assay.evaluate(ROWS, metrics=[metric], judge=judge, judging=JudgeOptions(cache=None))
    choices = [r["preference"]["details"]["choice"] for r in result.rows]
    assert choices == ["CANDIDATE", "BASELINE", "CANDIDATE"]
    assert [r["preference"]["value"] for r in result.rows] == [1.0, 0.0, 1.0]
    assert len(judge.requests) == 6  # both orders per row
    first, second = judge.requests[0], judge.requests[1]
    assert _user(first).index("Paris.") < _user(first).index("Lyon.")
    assert _user(second).index("Lyon.") < _user(second).index("Paris.")
    agg = result.summary["metrics"]["preference"]
    assert agg["choices"] == {"BASELINE": 1, "CANDIDATE": 2, "TIE": 0}
    assert agg["candidate_win_rate"] == round(2 / 3, 4) and agg["position_consistency"] == 1.0


def test_pairwise_position_flip_is_a_tie_unless_no_swap(tmp_path: Path) -> None:
    always_a = FakeJudge('{"choice": "model_A", "reason": "first is better"}')
    metric = load_metric_file(_write(tmp_path, "p.md", PREFERENCE))
    result = assay.evaluate(ROWS, metrics=[metric], judge=always_a,
                            judging=JudgeOptions(cache=None))
    assert all(r["preference"]["details"]["choice"] == "TIE" for r in result.rows)
    assert all(r["preference"]["details"]["position_consistent"] is False for r in result.rows)
    assert result.summary["metrics"]["preference"]["position_consistency"] == 0.0
    once = load_metric_file(tmp_path / "p.md", swap=False)
    judge = FakeJudge('{"choice": "model_A", "reason": "first is better"}')
    result = assay.evaluate(ROWS, metrics=[once], judge=judge, judging=JudgeOptions(cache=None))
    assert [r["preference"]["details"]["choice"] for r in result.rows] == ["CANDIDATE"] * 3
    assert len(judge.requests) == 3
    assert result.summary["metrics"]["preference"]["position_consistency"] is None


def test_pairwise_tie_and_unparseable_order(tmp_path: Path) -> None:
    metric = PairwiseMetric("pref", "{{ response_a }} | {{ response_b }}")

    def script(r: JudgeRequest) -> str:
        if "Paris" in _user(r):
            return '{"choice": "tie", "reason": "same"}'
        return "model_A obviously"

    result = assay.evaluate(ROWS[:2], metrics=[metric], judge=FakeJudge(script),
                            judging=JudgeOptions(cache=None))
    assert result.rows[0]["pref"]["details"]["choice"] == "TIE"
    assert result.rows[0]["pref"]["details"]["position_consistent"] is True
    bad = result.rows[1]["pref"]
    assert bad["value"] is None and "model_A, model_B or TIE" in bad["error"]
    assert result.summary["metrics"]["pref"]["unscored"] == 1


def test_cli_metric_file_and_no_swap(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    data = tmp_path / "d.jsonl"
    data.write_text("\n".join(json.dumps(r) for r in ROWS) + "\n")
    metric_file = _write(tmp_path, "p.md", PREFERENCE)
    out = tmp_path / "out"
    result = CliRunner().invoke(app, ["run", str(data), "--metric-file", str(metric_file),
                                      "--judge", "fake", "--no-cache", "--no-swap",
                                      "--out", str(out)])
    # The default fake answer is not a choice: asked twice, then unreadable, on every row,
    # so the run fails (exit 3), not passes with nothing scored.
    assert result.exit_code == 3, result.output
    summary = json.loads((out / "summary.json").read_text())
    assert list(summary["metrics"]) == ["preference"]
    assert summary["judge"]["requests"] == 6
    assert summary["metrics"]["preference"]["unreadable"] == 3
    bad = CliRunner().invoke(app, ["run", str(data), "--metric-file", str(metric_file),
                                   "--metrics", "auto", "--judge", "fake", "--no-cache"])
    assert bad.exit_code == 2 and "cannot be combined" in bad.output


def test_a_metric_file_named_like_a_built_in_metric_is_refused_like_a_clashing_plugin(
        tmp_path: Path) -> None:
    data = tmp_path / "d.jsonl"
    data.write_text("\n".join(json.dumps(r) for r in ROWS) + "\n")
    rubric = _write(tmp_path, "grounded.md", HELPFULNESS.replace("name: helpfulness",
                                                                 "name: groundedness"))
    for extra in ([], ["--metrics", "groundedness,f1_score"]):
        out = tmp_path / f"out{len(extra)}"
        result = CliRunner().invoke(app, ["run", str(data), "--metric-file", str(rubric), *extra,
                                          "--judge", "fake", "--no-cache", "--no-store",
                                          "--out", str(out)])
        text = " ".join(result.output.split())
        assert result.exit_code == 2, result.output
        assert (f"{rubric}: metric 'groundedness' is claimed by built-in and by this file: the "
                "file is refused") in text
        assert "rename it in the front matter, e.g. 'name: my_groundedness'" in text
        assert "Traceback" not in result.output and not out.exists()  # before any judge call
    with pytest.raises(ConfigError, match="claimed by built-in"):
        load_metric_file(rubric)


def test_two_metric_files_with_one_name_are_both_refused(tmp_path: Path) -> None:
    data = tmp_path / "d.jsonl"
    data.write_text("\n".join(json.dumps(r) for r in ROWS) + "\n")
    first = _write(tmp_path, "a.md", HELPFULNESS)
    second = _write(tmp_path, "b.md", HELPFULNESS.replace("Rate how well", "Judge how well"))
    out = tmp_path / "out"
    result = CliRunner().invoke(app, ["run", str(data), "--metric-file", str(first),
                                      "--metric-file", str(second), "--judge", "fake",
                                      "--no-cache", "--no-store", "--out", str(out)])
    text = " ".join(result.output.split())
    assert result.exit_code == 2, result.output
    assert (f"Metric 'helpfulness' is claimed by {first} and by {second}: both files are "
            "refused") in text and "give each file its own name" in text
    assert not out.exists()
    again = CliRunner().invoke(app, ["run", str(data), "--metric-file", str(first),
                                     "--metric-file", str(first), "--judge", "fake",
                                     "--no-cache", "--no-store", "--out", str(out)])
    assert again.exit_code == 0, again.output  # one file given twice is one claim
