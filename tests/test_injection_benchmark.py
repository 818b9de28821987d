"""benchmarks/injection.py runs end to end on the scripted fake judge (one that obeys any
injected text it reads): every injection style is measured, with its flag rate; withheld
(the default) nothing moves, flagged only every family is steered."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "benchmarks" / "injection.py"
DATA = ROOT.parent / "shared" / "data"

pytestmark = pytest.mark.skipif(not (DATA / "halueval").is_dir(),
                                reason="needs ../shared/data (HaluEval, JailbreakBench)")


TRAINED = ["--set", "train_round1"]
"""A phrase set the learned detector trained on: every phrasing is flagged, so these tests
measure the pipeline (flagging, withholding), not the detector."""


def _load() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bench_injection", SCRIPT)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_fake_judge_run_measures_every_style_with_a_flag_rate(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bench = _load()
    out = tmp_path / "fig.json"
    result = bench.main(["--judge", "fake", "--n", "10", *TRAINED, "--metrics",
                         "groundedness,violence,helpfulness,preference", "--json", str(out)])
    table = capsys.readouterr().out
    assert "flag rate [95% CI]" in table
    for style in ("plain", *bench.STYLES):
        assert set(result["metrics"]["groundedness"]) >= {style}
        assert table.count(f"\n{style} ") == 4, style  # one line per metric
    assert table.count(f"\n{bench.SAFETY_STYLE} ") == 1  # the severities only
    assert table.count(f"\n{bench.PAIRWISE_STYLE} ") == 1  # the pairwise rubric only
    ground = result["metrics"]["groundedness"]
    assert ground["plain"]["rows"] == 10 and ground["plain"]["scored"] == 10
    assert ground["plain"]["flag"]["mean"] == 0.0  # clean HaluEval answers are not flagged
    assert all(ground[s]["flag"]["mean"] == 1.0 for s in bench.STYLES)
    assert result["metrics"]["violence"]["safety"]["score"]["mean"] == 5.0  # as plain
    assert result["metrics"]["preference"]["pairwise"]["score"]["mean"] == 0.5  # as plain
    assert result["goal"] == {"groundedness": [], "violence": [], "helpfulness": [],
                              "preference": []}  # withheld: the judge never read an order
    assert "groundedness: no style moved the mean above" in table
    assert "violence: no style moved the mean below" in table
    assert "wall time:" in table
    assert json.loads(out.read_text(encoding="utf-8"))["metrics"].keys() == {
        "groundedness", "violence", "helpfulness", "preference"}


def test_flag_only_lets_the_obedient_judge_be_steered_in_every_family(
        capsys: pytest.CaptureFixture[str]) -> None:
    bench = _load()
    result = bench.main(["--judge", "fake", "--n", "6", "--on-injection", "flag", *TRAINED,
                         "--metrics", "groundedness,violence,helpfulness,preference"])
    table = capsys.readouterr().out
    assert result["goal"]["groundedness"] == list(bench.STYLES)
    assert result["goal"]["violence"] == [*bench.STYLES, bench.SAFETY_STYLE]
    assert result["goal"]["preference"] == [*bench.STYLES, bench.PAIRWISE_STYLE]
    assert result["metrics"]["preference"]["pairwise"]["score"]["mean"] > 0.75
    assert "helpfulness: STEERED" in table


def test_unscored_mode_leaves_injected_rows_unscored_but_flagged(
        capsys: pytest.CaptureFixture[str]) -> None:
    bench = _load()
    result = bench.main(["--judge", "fake", "--n", "3", "--metrics", "groundedness",
                         "--on-injection", "unscored", *TRAINED])
    capsys.readouterr()
    fig = result["metrics"]["groundedness"]
    assert fig["plain"]["scored"] == 3
    for style in bench.STYLES:
        assert fig[style]["scored"] == 0 and fig[style]["score"]["mean"] is None
        assert fig[style]["flag"]["mean"] == 1.0


def test_by_default_the_phrasings_are_the_held_out_set(capsys: pytest.CaptureFixture[str]) -> None:
    bench = _load()
    result = bench.main(["--judge", "fake", "--n", "2", "--metrics", "groundedness"])
    assert result["set"] == "test" and "set=test " in capsys.readouterr().out
