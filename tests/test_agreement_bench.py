"""benchmarks/agreement.py: every registered set yields rows with gold labels and the fields
its metrics need; ``--all`` on the scripted fake judge prints one table line per set and
metric, writes the Markdown table, and a rerun with ``--resume`` scores nothing again; the
figures count unscored rows and use the bootstrap of ``_stats``."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from assay.metrics import get_metric

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "data"
pytestmark = pytest.mark.skipif(not (DATA / "halueval").is_dir(), reason="needs ../shared/data")
sys.path.insert(0, str(ROOT / "benchmarks"))

import _stats
import agreement
from _agreement_sets import FIGURES, SETS, Item

PAIRWISE_FIELDS = {"question", "answer", "baseline_model_response"}


@pytest.mark.parametrize("name", list(SETS))
def test_every_set_yields_rows_with_gold_labels_and_the_fields_its_metrics_need(
        name: str) -> None:
    bench = SETS[name]
    items = bench.sample(bench.load(), 10)
    assert 1 <= len(items) <= 10
    assert len({it.row["id"] for it in items}) == len(items)
    for line in bench.lines:
        assert line.figure in FIGURES
        golds = [it.gold.get(line.gold) for it in items]
        assert all(g is not None for g in golds), (name, line.name)
        if line.figure == "auroc":  # balanced: both labels
            assert sorted(set(golds)) == [0, 1] and golds.count(1) == 5
        if line.figure == "spearman":
            assert len(set(golds)) > 1
        if line.figure == "false_alarm_medium":  # benign texts only
            assert set(golds) == {0} and not line.graded
        for it in items:
            need = PAIRWISE_FIELDS if bench.pairwise else {
                f for m in line.metrics for f in get_metric(m).required}
            assert need <= {k for k, v in it.row.items() if v}, (name, it.row["id"])


def test_all_with_the_fake_judge_prints_one_line_per_set_and_resumes_without_rescoring(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    table = tmp_path / "table.md"
    args = ["--all", "--judge", "fake", "--n", "3", "--resume", str(tmp_path / "runs"),
            "--table", str(table)]
    assert agreement.main(args) == 0
    out = capsys.readouterr()
    expected = [(s.name, line.name) for s in SETS.values() for line in s.lines]
    rows = [ln.split() for ln in out.out.splitlines()
            if ln and not ln.startswith(" ") and ln.split()[0] in SETS]
    assert [(r[0], r[1]) for r in rows] == expected
    assert all(r[2] == "3" for r in rows)  # n
    assert out.err.count("[set ") == len(SETS) and "0 already scored" in out.err
    md = table.read_text()
    assert md.count("\n| ") == len(expected) + 2  # header, rule, one line per set and metric
    assert "judge `fake`" in md and "cores" in md and "Skipped" in md
    # the fake judge's constant 5 ranks nothing: AUROC 0.5, with an interval
    assert "| halueval | groundedness | 3 | auroc | 0.500 [0.500, 0.500] | 0% |" in md
    timing = json.loads((tmp_path / "runs" / "halueval" / "timing.json").read_text())
    assert timing["rows"] == 3

    assert agreement.main(args) == 0  # a rerun: every row is already there
    err = capsys.readouterr().err
    assert err.count("3 already scored") == len(SETS)
    assert json.loads((tmp_path / "runs" / "halueval" / "timing.json").read_text()) == timing


def test_a_larger_n_on_resume_scores_only_the_new_rows(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    runs = tmp_path / "runs"
    assert agreement.main(["--only", "qags", "--judge", "fake", "--n", "2",
                           "--resume", str(runs)]) == 0
    capsys.readouterr()
    assert agreement.main(["--only", "qags", "--judge", "fake", "--n", "4",
                           "--resume", str(runs)]) == 0
    out = capsys.readouterr()
    assert "qags: 4 rows, 2 already scored" in out.err
    assert json.loads((runs / "qags" / "timing.json").read_text())["rows"] == 4
    assert len((runs / "qags" / "results.jsonl").read_text().splitlines()) == 4


def _cell(value: float | None, weighted: float | None = None) -> dict:
    return {"value": value, "weighted": weighted, "reason": None if value is not None else
            "judge answer unreadable", "error": None, "details": {}}


def test_figures_count_unscored_rows_and_use_the_graded_score() -> None:
    bench = SETS["halueval"]
    items = [Item({"id": str(i)}, {"grounded": g}, str(i // 2))
             for i, g in enumerate([0, 0, 0, 1, 1, 1])]
    # weighted scores rank the rows perfectly; the integer values alone would tie
    records = [{"id": str(i), "groundedness": _cell(4.0, w)}
               for i, w in enumerate([3.1, 3.2, 3.3, 4.1, 4.2])]
    records.append({"id": "5", "groundedness": _cell(None)})
    [line] = agreement.figures(bench, items, records, asked=10, s_per_row=2.0)
    assert line["value"] == 1.0 and line["scored"] == 5 and line["n"] == 6
    assert line["unscored"] == pytest.approx(1 / 6)
    assert line["reasons"] == {"groundedness: judge answer unreadable": 1}
    assert "all 6 rows the set has" in line["note"]


def test_pairwise_figure_is_the_share_of_choices_equal_to_the_gold() -> None:
    bench = SETS["pandalm"]
    gold = ["CANDIDATE", "BASELINE", "TIE", "CANDIDATE"]
    items = [Item({"id": str(i)}, {"choice": g}, str(i)) for i, g in enumerate(gold)]
    chose = ["CANDIDATE", "CANDIDATE", "TIE", "BASELINE"]
    records = [{"id": str(i), "preference": {"value": 1.0, "details": {"choice": c}}}
               for i, c in enumerate(chose)]
    [line] = agreement.figures(bench, items, records, asked=4, s_per_row=None)
    assert line["value"] == 0.5 and line["low"] is not None and line["low"] <= 0.5


def test_the_cluster_bootstrap_is_seeded_and_wider_when_rows_come_in_copies() -> None:
    gold = [1, 0, 1, 1, 0, 1, 0, 0, 1, 0] * 5
    pred = [1, 0, 0, 1, 0, 1, 1, 0, 1, 0] * 5
    groups = [str(i % 10) for i in range(50)]  # each row five times
    rows = _stats.bootstrap_ci(_stats.accuracy, gold, pred)
    clusters = _stats.bootstrap_ci(_stats.accuracy, gold, pred, groups=groups)
    assert rows == _stats.bootstrap_ci(_stats.accuracy, gold, pred)  # seeded
    assert rows[0] == clusters[0] == 0.8
    assert clusters[2] - clusters[1] > rows[2] - rows[1]
    assert _stats.bootstrap_ci(_stats.auroc, [1, 1, 1], [0.1, 0.2, 0.3]) == (None, None, None)
