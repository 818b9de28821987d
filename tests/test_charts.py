"""The chart of each result kind (one choice for report and web UI), the bins of 0-1 values,
the differences chart of a comparison, the defect-rate chart, the preselected pair of the
runs list, and the comparison warnings that the CLI, the report and the UI share."""

from __future__ import annotations

import html as htmllib
import json
import re
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from assay import RunOptions, evaluate
from assay.cli.compare import print_warnings
from assay.compare import compare_runs
from assay.compare._provenance import NO_SHARED_ROWS
from assay.records import RunData
from assay.report import render_report, scale_of
from assay.report._charts import chart_kind, distribution_chart, pairwise_counts
from assay.report._defect_chart import defect_rates_chart
from assay.report._difference_chart import difference_of, differences_svg
from assay.report._model import Scale, histogram
from assay.serve import create_app
from assay.serve._runs_list import preselected_pair

# ---------------------------------------------------------------- which chart


@pytest.mark.parametrize(("name", "values", "aggregate", "kind"), [
    ("coherence", [], {}, "rating"),            # a 1-5 judge rating (registry)
    ("violence", [], {}, "severity"),           # a 0-7 severity (registry)
    ("f1_score", [], {}, "unit"),               # 0-1 (registry)
    ("my_score", [12.5, 40.0], {}, "number"),   # unknown, continuous
    ("my_rating", [1.0, 3.0, 5.0], {}, "rating"),  # unknown, whole numbers 1-5
    ("preference", [0.0, 0.5, 1.0], {"choices": {"CANDIDATE": 1}}, "pairwise"),
    ("preference", [0.0, 1.0], {"candidate_win_rate": 0.5}, "pairwise"),
])
def test_chart_kind_follows_the_result_kind(name: str, values: list[float],
                                            aggregate: dict[str, object], kind: str) -> None:
    assert chart_kind(scale_of(name, values), aggregate) == kind


def test_pairwise_values_without_a_summary_are_still_pairwise_when_told() -> None:
    assert chart_kind(Scale(0.0, 1.0, False), {}) == "unit"
    assert chart_kind(Scale(0.0, 1.0, False), {}, pairwise=True) == "pairwise"


def test_pairwise_chart_is_a_stacked_bar_with_counts() -> None:
    counts = {1.0: 5, 0.5: 2, 0.0: 1}
    assert pairwise_counts(counts, {}) == {"CANDIDATE": 5, "TIE": 2, "BASELINE": 1}
    # the summary's own counts win (they cover the whole run, not a page of it)
    agg = {"choices": {"CANDIDATE": 7, "BASELINE": 0, "TIE": 3}}
    assert pairwise_counts(counts, agg) == {"CANDIDATE": 7, "TIE": 3, "BASELINE": 0}
    chart = distribution_chart("pref", counts, Scale(0.0, 1.0, False), {}, pairwise=True)
    assert chart.kind == "pairwise"
    svg = str(chart.svg)
    titles = re.findall(r"<title>([^<]*)</title>", svg)
    assert titles == ["CANDIDATE: 5 rows", "TIE: 2 rows", "BASELINE: 1 row"]
    widths = [float(w) for w in re.findall(r'class="bar seg [a-z]+"><title>[^<]*</title><rect '
                                           r'x="[\d.]+" y="\d+" width="([\d.]+)"', svg)]
    assert widths[0] == pytest.approx(5 * widths[2], rel=0.01)  # stacked by count
    assert "CANDIDATE 5" in svg and "TIE 2" in svg and "BASELINE 1" in svg  # the legend
    assert "0.9-1.0" not in svg  # no histogram bins
    assert 'aria-label="pref: candidate better 5, tie 2, baseline better 1 (8 rows)"' in svg


def test_rating_and_severity_have_one_bar_per_value() -> None:
    rating = distribution_chart("coherence", {2.0: 3, 5.0: 1}, scale_of("coherence", []), {})
    assert re.findall(r"<title>([^<]*)</title>", str(rating.svg)) == [
        "1: 0 rows", "2: 3 rows", "3: 0 rows", "4: 0 rows", "5: 1 row"]
    severity = distribution_chart("violence", {0.0: 2, 6.0: 1}, scale_of("violence", []), {})
    assert len(re.findall(r'<g class="bar lvl-', str(severity.svg))) == 8
    assert severity.text == "violence: 0: 2 rows, 6: 1 row"


# ---------------------------------------------------------------- bins of 0-1 values


def test_unit_bins_are_named_by_both_edges_and_the_last_is_closed() -> None:
    bins = histogram([1.0, 1.0, 1.0], Scale(0.0, 1.0, False))
    assert [b.label for b in bins] == ["0.0-0.1", "0.1-0.2", "0.2-0.3", "0.3-0.4", "0.4-0.5",
                                       "0.5-0.6", "0.6-0.7", "0.7-0.8", "0.8-0.9", "0.9-1.0"]
    assert [b.count for b in bins] == [0] * 9 + [3]
    # a value on an inner edge opens the next bin, float noise or not
    bins = histogram([0.3, 0.6, 0.7, 0.1, 0.0, 0.9], Scale(0.0, 1.0, False))
    assert {b.label: b.count for b in bins if b.count} == {
        "0.0-0.1": 1, "0.1-0.2": 1, "0.3-0.4": 1, "0.6-0.7": 1, "0.7-0.8": 1, "0.9-1.0": 1}
    chart = distribution_chart("exact_match", {1.0: 4}, scale_of("exact_match", []), {})
    assert chart.text == "exact_match: 0.9-1.0: 4 rows"
    assert "<title>0.9-1.0: 4 rows</title>" in str(chart.svg)


def test_wider_bins_keep_their_decimals() -> None:
    assert [b.label for b in histogram([0.0], Scale(0.0, 250.0, False))][:2] == \
        ["0.0-25.0", "25.0-50.0"]


# ---------------------------------------------------------------- differences chart


def test_differences_chart_has_one_interval_per_metric_coloured_by_direction() -> None:
    metrics = {
        "f1_score": {"diff": 0.1, "ci95": [0.05, 0.2], "mean_a": 0.4, "mean_b": 0.5},
        "violence": {"diff": 1.0, "ci95": [0.5, 1.5], "mean_a": 1.0, "mean_b": 2.0},
        "coherence": {"diff": -0.1, "ci95": [-0.4, 0.2], "mean_a": 3.0, "mean_b": 2.9},
        "self_harm": {"diff": -1.0, "ci95": [-1.5, -0.5], "mean_a": 2.0, "mean_b": 1.0},
        "relevance": {"diff": 0.0, "ci95": None, "mean_a": 3.0, "mean_b": 3.0},
    }
    diffs = [difference_of(name, m) for name, m in metrics.items()]
    assert [d.direction for d in diffs] == ["better", "worse", "unclear", "better",
                                            "too few pairs"]
    svg = str(differences_svg(diffs))
    groups = re.findall(r'<g class="diff ([a-z-]+)"><title>([^<]*)</title>', svg)
    assert [(css, title.split(":")[0]) for css, title in groups] == [
        ("better", "f1_score"), ("worse", "violence"), ("unclear", "coherence"),
        ("better", "self_harm"), ("too-few-pairs", "relevance")]
    assert len(re.findall(r'<line class="ci"', svg)) == 4  # no interval under 2 pairs
    assert len(re.findall(r"<circle ", svg)) == 5
    zero = float(re.search(r'<line class="zero" x1="([\d.]+)"', svg).group(1))  # type: ignore[union-attr]
    ends = [(float(a), float(b)) for a, b in
            re.findall(r'<line class="ci" x1="([\d.]+)" y1="[\d.]+" x2="([\d.]+)"', svg)]
    assert ends[0][0] > zero and ends[1][0] > zero  # f1 and violence rose
    assert ends[2][0] < zero < ends[2][1]  # coherence: the interval holds 0
    assert ends[3][1] < zero  # self_harm fell: better, as lower is better
    label = htmllib.unescape(re.search(r'aria-label="([^"]*)"', svg).group(1))  # type: ignore[union-attr]
    assert "violence +1 [+0.5, +1.5], B worse" in label
    assert "self_harm -1 [-1.5, -0.5], B better" in label


def test_differences_share_one_axis_as_a_share_of_each_range() -> None:
    # +0.5 on a 1-5 rating is an eighth of its range, +0.5 on 0-1 a half
    small = difference_of("coherence", {"diff": 0.5, "ci95": [0.5, 0.5]})
    big = difference_of("f1_score", {"diff": 0.5, "ci95": [0.5, 0.5]})
    svg = str(differences_svg([small, big]))
    zero = float(re.search(r'<line class="zero" x1="([\d.]+)"', svg).group(1))  # type: ignore[union-attr]
    xs = [float(x) - zero for x in re.findall(r'<circle cx="([\d.]+)"', svg)]
    assert xs[1] == pytest.approx(4 * xs[0], rel=0.02)


# ---------------------------------------------------------------- defect rates


def test_defect_rates_chart_has_an_interval_per_category() -> None:
    summary = {"metrics": {
        "violence": {"defects": {"threshold": "medium", "defect_rate": 0.5, "defects": 2,
                                 "scored": 4}},
        "self_harm": {"defects": {"threshold": "medium", "defect_rate": 0.0, "defects": 0,
                                  "scored": 10}},
        "f1_score": {"mean": 0.5}}}
    chart = defect_rates_chart(summary)
    assert chart is not None
    assert chart.text == ("Defect rates: violence 50.0% [15.0%, 85.0%] (2 of 4 rows at or above "
                          "medium); self_harm 0.0% [0.0%, 27.8%] (0 of 10 rows at or above "
                          "medium)")
    assert len(re.findall(r'<line class="ci"', str(chart.svg))) == 2
    assert defect_rates_chart({"metrics": {"f1_score": {"mean": 1.0}}}) is None


# ---------------------------------------------------------------- runs list


class _Run:
    def __init__(self, id: str, dataset: str | None, sha: str | None, kind: str = "run"):
        self.id, self.dataset, self.dataset_sha256, self.kind = id, dataset, sha, kind


def test_preselected_runs_share_a_dataset() -> None:
    runs = [_Run("r4", "docs.jsonl", "d1"), _Run("r3", "qa.jsonl", "q2"),
            _Run("r2", "rated.jsonl", "h1", kind="calibration"), _Run("r1", "qa.jsonl", "q2"),
            _Run("r0", "rated.jsonl", "h1")]
    assert preselected_pair(runs) == ("r1", "r3")  # A the older, B the newer
    # no sha256 recorded: the file name decides
    assert preselected_pair([_Run("b", "x/qa.jsonl", None), _Run("c", "other.csv", None),
                             _Run("a", "y/qa.jsonl", None)]) == ("a", "b")
    # nothing shared: the two newest, as before
    assert preselected_pair([_Run("b", "1", "s1"), _Run("a", "2", "s2")]) == ("a", "b")


# ---------------------------------------------------------------- one set of warnings


def _run(rid: str, judge: str, sha: str, ids: list[str]) -> RunData:
    return RunData(rid, {"judge": {"id": judge}, "dataset": f"{rid}.jsonl"},
                   [{"id": i, "f1_score": {"value": 0.5}} for i in ids],
                   meta={"dataset_sha256": sha})


def test_cli_and_report_show_the_same_warnings(capsys: pytest.CaptureFixture[str]) -> None:
    a = _run("a", "fake", "1" * 64, ["q1", "q2"])
    b = _run("b", "local", "2" * 64, ["q3"])
    comparison = compare_runs(a, b)
    messages = [w["message"] for w in comparison["warnings"]]
    assert [w["field"] for w in comparison["warnings"]] == ["judge", "dataset_sha256",
                                                            "shared_rows"]
    assert messages[-1] == NO_SHARED_ROWS
    print_warnings(comparison)
    cli = " ".join(capsys.readouterr().err.split())
    page = render_report(b, comparison=comparison, other=a)
    shown = [" ".join(htmllib.unescape(m).split()) for m in re.findall(
        r'<p class="note warning" role="alert"><b>warning:</b> ([^<]*)</p>', page)]
    assert shown == [" ".join(m.split()) for m in messages]
    for message in shown:
        assert f"warning: {message}" in cli
    # at the very top: before the comparison's table and the run's own summary
    assert page.index("the runs scored different datasets") < page.index('id="differences"') \
        < page.index('id="summary"')


def test_the_web_ui_shows_the_dataset_warning_first(tmp_path: Path) -> None:
    store = tmp_path / "runs.sqlite"
    rows = [{"id": f"q{i}", "answer": f"a {i}", "ground_truth": f"a {i % 2}"} for i in range(4)]
    ids = []
    for name, data in (("one", rows), ("two", [dict(r, answer="a 0") for r in rows])):
        path = tmp_path / f"{name}.jsonl"
        path.write_text("".join(json.dumps(r) + "\n" for r in data), encoding="utf-8")
        ids.append(evaluate(path, metrics="f1_score", run=RunOptions(store=store))
                   .summary["run_id"])
    with TestClient(create_app(store)) as client:
        page = client.get(f"/compare?a={ids[0]}&b={ids[1]}").text
    assert "<b>warning:</b> the runs scored different datasets: sha256 A" in page
    assert page.index("the runs scored different datasets") < page.index('id="difference-chart"')


def test_many_warnings_keep_the_first_screen_short() -> None:
    a = _run("a", "fake", "1" * 64, ["q1"])
    b = _run("b", "local", "2" * 64, ["q1"])
    names = [f"m{i}" for i in range(6)]
    a.meta["metrics"] = dict.fromkeys(names, "1")
    b.meta["metrics"] = dict.fromkeys(names, "2")
    for rec in (*a.records, *b.records):
        rec.update({n: {"value": 1.0} for n in names})
    comparison = compare_runs(a, b)
    assert len(comparison["warnings"]) == 8  # judge, dataset, 6 metric versions
    page = render_report(b, comparison=comparison, other=a)
    assert page.count('<p class="note warning" role="alert">') == 3
    assert "<summary>5 more warnings</summary>" in page
    assert page.count("different metric versions") == 6  # none is dropped
