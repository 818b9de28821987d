"""assay align on the command line, and the aligned metric file in assay run / calibrate."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from assay.align import align
from assay.cli.main import app
from assay.judges import FakeJudge
from assay.metrics.custom import load_metric_file
from test_align import HUMANS, _metric, _mis_scaled, _rated

METRIC_FILE = """---
name: helpfulness
kind: pointwise
scale: 1-5
instruction: Rate how well it helps.
rating_rubric:
  5: helps
  1: no help
---
<question>
{{ question }}
</question>
<answer>
{{ response }}
</answer>
"""


def test_cli_align_writes_both_files_and_prints_the_table(tmp_path: Path) -> None:
    data = _rated(tmp_path, HUMANS)
    (tmp_path / "helpfulness.md").write_text(METRIC_FILE)
    out = tmp_path / "out"
    result = CliRunner().invoke(app, ["align", str(data), "--metric-file",
                                      str(tmp_path / "helpfulness.md"), "--judge", "fake",
                                      "--no-cache", "--out", str(out), "--shots", "1"])
    assert result.exit_code == 0, result.output
    shown = " ".join(result.output.split())
    for text in ("balanced", "kappa", "Spearman", "(n=9)", "not more than noise"):
        assert text in shown, text
    report = json.loads((out / "alignment.json").read_text())
    examples = report["train"] - report["selection_rows"]
    assert examples > 0  # --shots 1 took examples out of the train rows
    assert (f"chosen on {report['selection_rows']} of the {report['train']} train rows "
            f"(the other {examples} are the few-shot examples)") in shown
    assert load_metric_file(out / "helpfulness-aligned.md").name == "helpfulness"


def test_cli_align_errors_exit_2(tmp_path: Path) -> None:
    data = _rated(tmp_path, HUMANS)
    none = CliRunner().invoke(app, ["align", str(data), "--judge", "fake"])
    assert none.exit_code == 2 and "--metric-file" in none.output
    (tmp_path / "helpfulness.md").write_text(METRIC_FILE)
    small = CliRunner().invoke(app, ["align", str(data), "--metric-file",
                                     str(tmp_path / "helpfulness.md"), "--judge", "fake",
                                     "--heldout", "0.1", "--no-cache"])
    assert small.exit_code == 2 and "--heldout 0.1" in small.output
    few = CliRunner().invoke(app, ["align", str(_rated(tmp_path, [1, 2, 3], "few.jsonl")),
                                   "--metric-file", str(tmp_path / "helpfulness.md"),
                                   "--judge", "fake", "--no-cache"])
    assert few.exit_code == 2 and "at least 10" in few.output
    shots = CliRunner().invoke(app, ["align", str(data), "--metric-file",
                                     str(tmp_path / "helpfulness.md"), "--judge", "fake",
                                     "--shots", "1,two", "--no-cache"])
    assert shots.exit_code == 2
    assert "Got --shots '1,two'. Must be whole numbers such as 1,2" in shots.output


def test_aligned_file_runs_in_assay_run_and_calibrate(tmp_path: Path) -> None:
    data = _rated(tmp_path, HUMANS)
    got = align(data, metric=_metric(), judge=FakeJudge(_mis_scaled), out=tmp_path / "out",
                cache=None, shots=())
    aligned = got.files["metric_file"]
    run = CliRunner().invoke(app, ["run", str(data), "--metric-file", str(aligned),
                                   "--judge", "fake", "--no-cache", "--out",
                                   str(tmp_path / "run")])
    assert run.exit_code == 0, run.output
    record = json.loads((tmp_path / "run" / "results.jsonl").read_text().splitlines()[0])
    cell = record["helpfulness"]
    # the fake judge says 5; the map learned from the judge that says 2 too high gives 3
    assert cell["details"]["judge_label"] == 5 and cell["details"]["judge_score"] == 5.0
    assert cell["details"]["label"] == 3 and cell["value"] == 3.0
    cal = CliRunner().invoke(app, ["calibrate", str(data), "--metric-file", str(aligned),
                                   "--judge", "fake", "--no-cache", "--out",
                                   str(tmp_path / "cal")])
    assert cal.exit_code == 0, cal.output
    report = json.loads((tmp_path / "cal" / "calibration.json").read_text())
    assert "helpfulness" in json.dumps(report)
