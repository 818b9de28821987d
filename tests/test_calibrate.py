"""``assay calibrate`` end to end: human columns, judges side by side, files, and errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

import assay
from assay.cli.main import app
from assay.errors import ConfigError, DataError
from assay.judges import FakeJudge, JudgeRequest

# (answer, human rating): the judge below rates by answer length, so its agreement is known.
RATED = [("ok", 1), ("fine answer", 2), ("a longer answer here", 4), ("x", 1),
         ("a good and complete answer", 5), ("medium text!", 3)]


def _rated(tmp_path: Path, column: str = "coherence/human_rating") -> Path:
    path = tmp_path / "rated.jsonl"
    path.write_text("\n".join(json.dumps({"id": str(i), "question": "Q?", "answer": a,
                                          column: h})
                              for i, (a, h) in enumerate(RATED)) + "\n")
    return path


def _by_length(req: JudgeRequest) -> str:
    answer = req.messages[-1]["content"].split("<answer>")[1].split("</answer>")[0].strip()
    score = min(5, 1 + len(answer) // 6)
    return json.dumps({"score": score, "reason": f"{len(answer)} chars"})


def test_builtin_metric_against_human_ratings(tmp_path: Path) -> None:
    got = assay.calibrate(_rated(tmp_path), metric="coherence", out=tmp_path / "o",
                          judges=[FakeJudge(_by_length, id="by-length")], cache=None)
    report = got.reports["by-length"]
    judged = [min(5, 1 + len(a) // 6) for a, _ in RATED]  # 1, 2, 4, 1, 5, 3
    human = [h for _, h in RATED]
    assert report["exact_agreement"] == sum(j == h for j, h in zip(judged, human)) / 6
    assert report["confusion_matrix"][0] == [2, 0, 0, 0, 0]
    assert report["n_compared"] == 6 and report["unscored"] == 0
    assert report["kappa_weights"] == "quadratic" and report["spearman"] == pytest.approx(1.0)
    saved = json.loads((tmp_path / "o" / "calibration.json").read_text())
    assert saved["metric"] == "coherence" and saved["reports"]["by-length"]["n_compared"] == 6
    assert (tmp_path / "o" / "confusion-by-length.png").read_bytes()[:4] == b"\x89PNG"
    again = assay.calibrate(_rated(tmp_path), metric="coherence", out=tmp_path / "o",
                            judges=[FakeJudge(_by_length, id="by-length")], cache=None)
    assert again.reports["by-length"] == report  # a rerun replaces its own results folder


def test_two_judges_side_by_side_and_unscored_rows(tmp_path: Path) -> None:
    def sometimes_broken(req: JudgeRequest) -> str:
        return "no idea" if "answer here" in req.messages[-1]["content"] else _by_length(req)

    got = assay.calibrate(_rated(tmp_path), metric="coherence", out=tmp_path / "o", cache=None,
                          judges=[FakeJudge(_by_length, id="a"),
                                  FakeJudge(sometimes_broken, id="b")])
    assert list(got.reports) == ["a", "b"]
    assert got.reports["b"]["unscored"] == 1 and got.reports["b"]["n_compared"] == 5
    assert got.reports["b"]["unscored_share"] == pytest.approx(1 / 6, abs=1e-3)
    assert got.reports["a"]["unscored"] == 0


def test_pairwise_calibration_with_labels(tmp_path: Path) -> None:
    template = tmp_path / "pref.md"
    template.write_text("---\nname: pref\nkind: pairwise\n---\n"
                        "A: {{ response_a }}\nB: {{ response_b }}\n")
    rows = [{"id": "1", "answer": "good", "baseline_model_response": "bad",
             "pref/human_pairwise_choice": "CANDIDATE"},
            {"id": "2", "answer": "bad", "baseline_model_response": "good",
             "pref/human_pairwise_choice": "baseline"},
            {"id": "3", "answer": "good", "baseline_model_response": "good",
             "pref/human_pairwise_choice": "TIE"},
            {"id": "4", "answer": "bad", "baseline_model_response": "good",
             "pref/human_pairwise_choice": ""}]
    data = tmp_path / "pairs.jsonl"
    data.write_text("\n".join(json.dumps(r) for r in rows) + "\n")

    def prefers_good(req: JudgeRequest) -> str:
        a, b = req.messages[-1]["content"].split("\nB: ")
        choice = "TIE" if ("good" in a) == ("good" in b) else (
            "model_A" if "good" in a else "model_B")
        return json.dumps({"choice": choice, "reason": "good beats bad"})

    got = assay.calibrate(data, metric=assay.load_metric_file(template), out=tmp_path / "o",
                          judges=[FakeJudge(prefers_good, id="j")], cache=None)
    report = got.reports["j"]
    assert report["labels"] == ["BASELINE", "CANDIDATE", "TIE"]
    assert report["confusion_matrix"] == [[1, 0, 0], [0, 1, 0], [0, 0, 1]]
    assert report["no_human"] == 1 and report["n_compared"] == 3


def test_bad_human_labels_are_all_listed_before_any_judge_call(tmp_path: Path) -> None:
    path = tmp_path / "rated.jsonl"
    path.write_text("\n".join(json.dumps({"question": "Q?", "answer": "A",
                                          "coherence/human_rating": h})
                              for h in (4, 7, "good", 2.5)) + "\n")
    judge = FakeJudge(_by_length)
    with pytest.raises(DataError) as err:
        assay.calibrate(path, metric="coherence", judges=[judge], out=tmp_path / "o",
                        cache=None)
    text = str(err.value)
    assert "line 2" in text and "line 3" in text and "line 4" in text and "line 1," not in text
    assert judge.requests == []
    missing = _rated(tmp_path, column="other/human_rating")
    with pytest.raises(DataError, match="coherence/human_rating"):
        assay.calibrate(missing, metric="coherence", judges=[judge], cache=None)
    with pytest.raises(ConfigError, match="discrete scores"):
        assay.calibrate(missing, metric="faithfulness", judges=[judge], cache=None)


def test_cli_calibrate_prints_every_figure(tmp_path: Path) -> None:
    out = tmp_path / "o"
    result = CliRunner().invoke(app, ["calibrate", str(_rated(tmp_path)), "--metric",
                                      "coherence", "--judge", "fake", "--no-cache",
                                      "--out", str(out)])
    assert result.exit_code == 0, result.output
    for figure in ("balanced accuracy", "class-weighted F1", "kappa", "Spearman", "Kendall",
                   "within", "unscored", "confusion matrix"):
        assert figure.lower() in result.output.lower(), figure
    assert (out / "calibration.json").exists()
    bad = CliRunner().invoke(app, ["calibrate", str(_rated(tmp_path)), "--judge", "fake"])
    assert bad.exit_code == 2 and "--metric" in bad.output
