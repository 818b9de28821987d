"""The reliability curve of ``assay calibrate``: the binning, the curve per kind of scale, and
the PNGs (reliability curve and confusion matrix) it writes into its output folder."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

import assay
from assay.calibration._reliability import reliability, reliability_bins
from assay.calibration._report import RELIABILITY_KEY
from assay.cli.main import app
from assay.judges import FakeJudge, JudgeRequest

PNG = b"\x89PNG\r\n\x1a\n"


def _labels(bins: list[dict]) -> list[tuple[str, int, float, float]]:
    return [(b["label"], b["n"], b["judge_mean"], b["human_mean"]) for b in bins]


def test_levels_one_bin_per_value_empty_ones_left_out() -> None:
    got = reliability_bins([1, 1, 2, 5, 5, 5, None, 3], [1, 2, 2, 3, 4, 5, 4, None],
                           levels=[1, 2, 3, 4, 5])
    # 3 (its human label is missing) and 4 (never given) are left out; None rows dropped
    assert _labels(got) == [("1", 2, 1.0, 1.5), ("2", 1, 2.0, 2.0), ("5", 3, 5.0, 4.0)]
    assert [(b["low"], b["high"]) for b in got] == [(1.0, 1.0), (2.0, 2.0), (5.0, 5.0)]


def test_a_score_between_levels_goes_to_the_nearest_and_the_lower_on_a_tie() -> None:
    got = reliability_bins([2.4, 2.5, 2.6], [1, 2, 3], levels=[1, 2, 3])
    assert _labels(got) == [("2", 2, 2.45, 1.5), ("3", 1, 2.6, 3.0)]


def test_zero_to_one_ten_bins_with_both_edges_the_last_closed() -> None:
    xs = [0.0, 0.0999, 0.1, 0.3, 0.7, 0.9, 0.95, 1.0]
    ys = [0, 0, 1, 0, 1, 1, 1, 0]
    got = reliability_bins(xs, ys)
    assert [(b["label"], b["n"]) for b in got] == [
        ("[0, 0.1)", 2), ("[0.1, 0.2)", 1), ("[0.3, 0.4)", 1), ("[0.7, 0.8)", 1),
        ("[0.9, 1]", 3)]
    last = got[-1]
    assert (last["low"], last["high"], last["human_mean"]) == (0.9, 1.0, pytest.approx(2 / 3,
                                                                                      abs=1e-4))
    assert reliability_bins([], []) == []


def test_bad_input_is_refused_with_what_was_got() -> None:
    with pytest.raises(ValueError, match="1.5"):
        reliability_bins([1.5], [1])
    with pytest.raises(ValueError, match="one value per row"):
        reliability_bins([0.1, 0.2], [1])


def test_pairwise_uses_probabilities_when_given_else_the_choice() -> None:
    cells = [{"value": 1.0, "details": {"choice": "CANDIDATE", "probabilities":
                                        {"candidate": 0.7, "baseline": 0.1, "tie": 0.2}}},
             {"value": 0.0, "details": {"choice": "BASELINE"}},
             {"value": 0.5, "details": {"choice": "TIE"}},
             None]
    got = reliability(cells, ["CANDIDATE", "tie", "BASELINE", "TIE"],
                      labels=["BASELINE", "CANDIDATE", "TIE"], ordinal=False, pairwise=True)
    assert got is not None and got["domain"] == [0.0, 1.0] and got["levels"] is None
    # 0.7 + 0.2 / 2 = 0.8; the choices without probabilities count 0 and 0.5
    assert _labels(got["bins"]) == [("[0, 0.1)", 1, 0.0, 0.5), ("[0.5, 0.6)", 1, 0.5, 0.0),
                                    ("[0.8, 0.9)", 1, 0.8, 1.0)]


def test_label_scales_by_position_and_no_curve_for_unordered_ones() -> None:
    cells = [{"value": 1.0}, {"value": 0.0}, {"value": 1.0}]
    yes_no = reliability(cells, ["Yes", "No", "No"], labels=["No", "Yes"], ordinal=False,
                         pairwise=False)
    assert yes_no is not None and yes_no["levels"] == [0.0, 1.0]
    assert _labels(yes_no["bins"]) == [("0", 1, 0.0, 0.0), ("1", 2, 1.0, 0.5)]
    assert "0 No, 1 Yes" in yes_no["x"]
    assert reliability(cells, ["a", "b", "c"], labels=["a", "b", "c"], ordinal=False,
                       pairwise=False) is None


RATED = [("ok", 1), ("fine answer", 2), ("a longer answer here", 4), ("x", 1),
         ("a good and complete answer", 5), ("medium text!", 3)]


def _rated(tmp_path: Path) -> Path:
    path = tmp_path / "rated.jsonl"
    path.write_text("".join(json.dumps({"id": str(i), "question": "Q?", "answer": a,
                                        "coherence/human_rating": h}) + "\n"
                            for i, (a, h) in enumerate(RATED)))
    return path


def test_calibrate_keeps_the_curve_and_writes_both_pngs(tmp_path: Path) -> None:
    def by_length(req: JudgeRequest) -> str:
        answer = req.messages[-1]["content"].split("<answer>")[1].split("</answer>")[0]
        return json.dumps({"score": 2 if len(answer.strip()) < 10 else 4, "reason": "n"})

    got = assay.calibrate(_rated(tmp_path), metric="coherence", out=tmp_path / "o",
                          judges=[FakeJudge(by_length, id="len")], cache=None)
    curve = got.reports["len"]["reliability"]
    # short answers (ok, x) rated 2 by the judge, 1 by people; the rest 4, people 2, 4, 5, 3
    assert _labels(curve["bins"]) == [("2", 2, 2.0, 1.0), ("4", 4, 4.0, 3.5)]
    saved = json.loads((tmp_path / "o" / "calibration.json").read_text())
    assert saved["reports"]["len"]["reliability"] == curve
    png = got.files[RELIABILITY_KEY.format("len")]
    assert png == tmp_path / "o" / "reliability-len.png"
    for path in (png, got.files["len"]):
        data = path.read_bytes()
        assert data.startswith(PNG) and len(data) > 2000


def test_cli_calibrate_writes_the_pngs_and_prints_the_bins(tmp_path: Path) -> None:
    out = tmp_path / "calibration"
    result = CliRunner().invoke(app, ["calibrate", str(_rated(tmp_path)), "--metric",
                                      "coherence", "--judge", "fake", "--no-cache",
                                      "--no-store", "--out", str(out)])
    assert result.exit_code == 0, result.output
    pngs = sorted(p.name for p in out.glob("*.png"))
    assert pngs == ["confusion-fake.png", "reliability-fake.png"]
    for name in pngs:
        data = (out / name).read_bytes()
        assert data.startswith(PNG) and len(data) > 2000
        assert str(out / name) in result.output.replace("\n", "")
    assert "reliability, fake" in result.output
    report = json.loads((out / "calibration.json").read_text())["reports"]["fake"]
    (only,) = report["reliability"]["bins"]  # the fake judge gives every row one score
    assert only["n"] == 6 and only["human_mean"] == pytest.approx(16 / 6, abs=1e-4)
    assert f"n={only['n']}" in result.output


def test_a_probability_weighted_score_is_used_where_the_judge_gave_one() -> None:
    cells = [{"value": 4.0, "weighted": 3.6}, {"value": 4.0, "weighted": None},
             {"value": None, "weighted": 2.0}]  # unscored: no point, whatever its weight
    got = reliability(cells, [3, 5, 1], labels=[1, 2, 3, 4, 5], ordinal=True, pairwise=False)
    assert got is not None and "probability-weighted" in got["x"]
    assert _labels(got["bins"]) == [("4", 2, 3.8, 4.0)]
    plain = reliability(cells[1:], [5, 1], labels=[1, 2, 3, 4, 5], ordinal=True,
                        pairwise=False)
    assert plain is not None and plain["x"] == "judge score"
