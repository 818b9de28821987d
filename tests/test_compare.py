"""``compare_runs`` and the ``assay compare`` command: pairing by id, unscored counts, the paired
bootstrap interval, defect rates, the most-changed rows, and the CLI's exit codes 0/1/2."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from scipy import stats
from typer.testing import CliRunner

import assay
from assay import RunOptions
from assay.cli.main import app as cli_app
from assay.compare import compare_runs
from assay.compare._compare import paired_bootstrap_ci
from assay.errors import ConfigError, DataError
from assay.records import RunData, load_run_dir

METRIC_KEYS = {"mean_a", "mean_b", "scored_a", "scored_b", "unscored_a", "unscored_b", "paired",
               "diff", "ci95", "beyond_noise", "sd", "fell", "rose", "repeats", "within_row_sd"}


@pytest.fixture(autouse=True)
def _plain_console(monkeypatch: pytest.MonkeyPatch) -> None:
    """Wide, colourless Rich output so that assertions see whole lines."""
    monkeypatch.setenv("COLUMNS", "200")
    monkeypatch.setenv("NO_COLOR", "1")


def res(value: float | None, reason: str | None = None) -> dict[str, Any]:
    return {"value": value, "weighted": None, "reason": reason,
            "error": None if value is not None else "judge answer is not valid", "details": {}}


def run(run_id: str, rows: Mapping[str, Mapping[str, float | None]],
        summary: dict[str, Any] | None = None) -> RunData:
    return RunData(run_id, summary or {},
                   [{"id": i, **{m: res(v) for m, v in vals.items()}} for i, vals in rows.items()])


def write_run(path: Path, records: list[dict[str, Any]], summary: dict[str, Any]) -> Path:
    path.mkdir(parents=True)
    (path / "results.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    (path / "summary.json").write_text(json.dumps(summary))
    return path


# --- compare_runs -------------------------------------------------------------------------------

def test_shape_pairing_by_id_and_unscored_counts() -> None:
    a = run("base", {"q1": {"g": 4.0, "f1": 0.5}, "q2": {"g": 2.0, "f1": 1.0},
                     "q3": {"g": None, "f1": 0.0}, "only-a": {"g": 5.0, "f1": 1.0}})
    # b lists rows in another order; q3 is scored here but not in a; q2 unscored here
    b = run("cand", {"q3": {"g": 3.0, "f1": 0.0}, "q2": {"g": None, "f1": 1.0},
                     "q1": {"g": 5.0, "f1": 0.75}})
    c = compare_runs(a, b)
    assert set(c) == {"a", "b", "shared_rows", "metrics", "defects", "changed", "warnings",
                      "cost"}
    assert c["a"] == {"id": "base", "rows": 4} and c["b"] == {"id": "cand", "rows": 3}
    assert c["shared_rows"] == 3
    assert list(c["metrics"]) == ["g", "f1"]
    g = c["metrics"]["g"]
    assert set(g) == METRIC_KEYS
    assert g["mean_a"] == pytest.approx(11 / 3, abs=1e-6) and g["mean_b"] == 4.0
    assert (g["scored_a"], g["unscored_a"], g["scored_b"], g["unscored_b"]) == (3, 1, 2, 1)
    assert g["paired"] == 1 and g["diff"] == 1.0 and g["ci95"] is None  # one paired row only
    assert g["beyond_noise"] is None  # no interval: no verdict
    f1 = c["metrics"]["f1"]
    assert f1["paired"] == 3 and f1["diff"] == pytest.approx(0.25 / 3, abs=1e-6)
    assert c["defects"] == {}


def test_no_paired_rows_gives_none_not_zero() -> None:
    c = compare_runs(run("a", {"q1": {"m": 1.0}}), run("b", {"q2": {"m": 0.0}}))
    m = c["metrics"]["m"]
    assert c["shared_rows"] == 0
    assert m["paired"] == 0 and m["diff"] is None and m["ci95"] is None
    assert m["mean_a"] == 1.0 and m["mean_b"] == 0.0


def test_default_metrics_are_the_numeric_ones_both_runs_have() -> None:
    a = RunData("a", {}, [{"id": "1", "m": res(1.0), "only_a": res(1.0),
                           "label": {"value": "yes"}, "all_unscored": res(None)}])
    b = RunData("b", {}, [{"id": "1", "m": res(0.0), "label": {"value": "no"},
                           "all_unscored": res(None)}])
    c = compare_runs(a, b)
    assert list(c["metrics"]) == ["m", "all_unscored"]
    u = c["metrics"]["all_unscored"]
    assert (u["mean_a"], u["unscored_a"], u["unscored_b"], u["diff"]) == (None, 1, 1, None)


def test_explicit_metrics_and_the_error_for_one_not_in_both() -> None:
    a = run("a", {"1": {"m": 1.0, "n": 2.0}})
    b = run("b", {"1": {"m": 0.0, "n": 2.0}})
    assert list(compare_runs(a, b, metrics=["n"])["metrics"]) == ["n"]
    with pytest.raises(ConfigError, match=r"\['groundedness'\].*both runs have: m, n"):
        compare_runs(a, b, metrics=["m", "groundedness"])


def test_bad_arguments_and_records() -> None:
    a = run("a", {"1": {"m": 1.0}})
    with pytest.raises(ConfigError, match="n_boot=0"):
        compare_runs(a, a, n_boot=0)
    with pytest.raises(ConfigError, match="top=-1"):
        compare_runs(a, a, top=-1)
    twice = RunData("dup", {}, [{"id": "1", "m": res(1.0)}, {"id": "1", "m": res(0.0)}])
    with pytest.raises(DataError, match="'1' appears twice"):
        compare_runs(twice, a)
    with pytest.raises(DataError, match="no 'id'"):
        compare_runs(a, RunData("x", {}, [{"m": res(1.0)}]))


# --- the bootstrap interval ---------------------------------------------------------------------

def test_constant_differences_give_a_zero_width_interval() -> None:
    a = run("a", {str(i): {"m": float(i % 5)} for i in range(30)})
    b = run("b", {str(i): {"m": float(i % 5) + 0.5} for i in range(30)})
    m = compare_runs(a, b)["metrics"]["m"]
    assert m["diff"] == 0.5 and m["ci95"] == [0.5, 0.5]


def test_a_clear_shift_excludes_zero_and_no_change_contains_it() -> None:
    rng = np.random.default_rng(42)
    base = rng.uniform(1, 5, 200)
    shifted = base + 0.3 + rng.normal(0, 0.3, 200)
    same = base + rng.normal(0, 0.3, 200)
    a = run("a", {str(i): {"m": float(v)} for i, v in enumerate(base)})
    shift = compare_runs(a, run("b", {str(i): {"m": float(v)} for i, v in enumerate(shifted)}))
    lo, hi = shift["metrics"]["m"]["ci95"]
    assert 0 < lo < shift["metrics"]["m"]["diff"] < hi
    nochange = compare_runs(a, run("c", {str(i): {"m": float(v)} for i, v in enumerate(same)}))
    lo, hi = nochange["metrics"]["m"]["ci95"]
    assert lo < 0 < hi


def test_beyond_noise_for_a_clear_difference_not_for_noise() -> None:
    """Two runs over 100 shared rows (and a few not shared): a real drop of 1 point on a 1-5
    scale is beyond noise; re-rating noise of +-1 on some rows is not."""
    rng = np.random.default_rng(11)
    base = rng.integers(2, 6, 100).astype(float)
    worse = np.clip(base - (rng.random(100) < 0.8), 1, 5)  # 80% of rows one point lower
    jitter = np.clip(base + rng.choice([-1.0, 0.0, 0.0, 1.0], 100), 1, 5)
    a = run("a", {**{str(i): {"m": float(v)} for i, v in enumerate(base)}, "only-a": {"m": 5.0}})
    clear = compare_runs(a, run("b", {**{str(i): {"m": float(v)} for i, v in enumerate(worse)},
                                      "only-b": {"m": 1.0}}))["metrics"]["m"]
    assert clear["paired"] == 100 and clear["beyond_noise"] is True
    assert clear["ci95"][1] < 0
    noise = compare_runs(a, run("c", {str(i): {"m": float(v)} for i, v in enumerate(jitter)}))
    m = noise["metrics"]["m"]
    assert m["paired"] == 100 and m["beyond_noise"] is False
    assert m["ci95"][0] < 0 < m["ci95"][1]


def test_interval_is_seeded_and_agrees_with_scipy() -> None:
    diffs = np.random.default_rng(7).normal(0.2, 1.0, 80)
    ours = paired_bootstrap_ci(diffs, n_boot=4000, seed=3)
    assert ours is not None
    assert ours == paired_bootstrap_ci(diffs, n_boot=4000, seed=3)
    assert ours != paired_bootstrap_ci(diffs, n_boot=4000, seed=4)
    ref = stats.bootstrap((diffs,), np.mean, n_resamples=4000, method="percentile",
                          confidence_level=0.95, random_state=0).confidence_interval
    assert ours[0] == pytest.approx(ref.low, abs=0.05)
    assert ours[1] == pytest.approx(ref.high, abs=0.05)
    # the normal-theory interval, as a sanity check on the width
    half = 1.96 * diffs.std(ddof=1) / np.sqrt(len(diffs))
    assert ours[1] - ours[0] == pytest.approx(2 * half, rel=0.15)


def test_interval_of_one_metric_does_not_depend_on_the_others() -> None:
    rows_a = {str(i): {"x": float(i), "y": float(i % 3)} for i in range(20)}
    rows_b = {str(i): {"x": float(i) + (i % 4), "y": float(i % 2)} for i in range(20)}
    both = compare_runs(run("a", rows_a), run("b", rows_b))
    only_y = compare_runs(run("a", rows_a), run("b", rows_b), metrics=["y"])
    assert both["metrics"]["y"]["ci95"] == only_y["metrics"]["y"]["ci95"]


def test_blocks_give_the_same_interval_as_one_draw(monkeypatch: pytest.MonkeyPatch) -> None:
    diffs = np.random.default_rng(1).normal(size=50)
    whole = paired_bootstrap_ci(diffs, n_boot=500, seed=9)
    monkeypatch.setattr("assay.records._interval._BLOCK_CELLS", 50 * 7)  # 7 resamples a block
    assert paired_bootstrap_ci(diffs, n_boot=500, seed=9) == whole


# --- most-changed rows --------------------------------------------------------------------------

def test_changed_rows_rank_by_delta_over_each_metrics_range() -> None:
    # g on 1-5 (observed 1..5): delta 2 is half its range; f1 on 0-1: delta 0.75 is 3/4 of it
    a = RunData("a", {}, [
        {"id": "r1", "g": res(5.0, "fully grounded"), "f1": res(1.0)},
        {"id": "r2", "g": res(1.0), "f1": res(1.0)},
        {"id": "r3", "g": res(3.0), "f1": res(0.0)},
    ])
    b = RunData("b", {}, [
        {"id": "r1", "g": res(3.0, "one claim unsupported"), "f1": res(1.0)},
        {"id": "r2", "g": res(1.0), "f1": res(0.25)},
        {"id": "r3", "g": res(3.0), "f1": res(0.0)},
    ])
    changed = compare_runs(a, b)["changed"]
    assert [(r["id"], r["metric"]) for r in changed] == [("r2", "f1"), ("r1", "g")]
    assert changed[1] == {"id": "r1", "metric": "g", "a": 5.0, "b": 3.0, "delta": -2.0,
                          "reason_a": "fully grounded", "reason_b": "one claim unsupported"}
    assert compare_runs(a, b, top=1)["changed"] == changed[:1]
    assert compare_runs(a, b, top=0)["changed"] == []


# --- defect rates -------------------------------------------------------------------------------

def defects(rate: float, threshold: str = "medium", **rates: float) -> dict[str, Any]:
    return {"mean": 1.0, "scored": 10, "unscored": 0, "defects": {
        "threshold": threshold, "defect_rate": rate, "defects": int(rate * 10), "scored": 10,
        "unscored": 0, "rates": {"low": rate, "medium": rate, "high": rate, **rates}}}


#: A defect's paired counts when the runs have no rows (the summaries alone).
NO_ROWS = {"rows": 0, "both": 0, "only_a": 0, "only_b": 0, "new_defects": []}


def test_defect_rates_where_both_summaries_have_them() -> None:
    sa = {"metrics": {"violence": defects(0.1), "sexual": defects(0.0), "f1": {"mean": 1.0}}}
    sb = {"metrics": {"violence": defects(0.3), "f1": {"mean": 1.0}}}
    c = compare_runs(RunData("a", sa, []), RunData("b", sb, []))
    assert c["defects"] == {"violence": {"threshold": "medium", "rate_a": 0.1, "rate_b": 0.3,
                                         "diff": 0.2, "paired": NO_ROWS}}


def test_defect_rate_of_b_is_read_at_as_threshold() -> None:
    sa = {"metrics": {"violence": defects(0.1, "medium")}}
    sb = {"metrics": {"violence": defects(0.05, "high", medium=0.2)}}
    d = compare_runs(RunData("a", sa, []), RunData("b", sb, []))["defects"]["violence"]
    assert d == {"threshold": "medium", "rate_a": 0.1, "rate_b": 0.2, "diff": 0.1,
                 "paired": NO_ROWS}


# --- real runs ----------------------------------------------------------------------------------

ROWS = [{"id": "paris", "question": "Capital of France?", "answer": "Paris",
         "ground_truth": "Paris"},
        {"id": "tent", "question": "Most waterproof tent?", "answer": "The Alpine Explorer",
         "ground_truth": "The Alpine Explorer tent"},
        {"id": "stove", "question": "Stove fuel?", "answer": "Isobutane canisters",
         "ground_truth": "It burns isobutane canisters"}]


@pytest.fixture
def two_runs(tmp_path: Path) -> tuple[Path, Path]:
    worse = [dict(r, answer="I do not know") if r["id"] != "paris" else r for r in ROWS]
    a, b = tmp_path / "base", tmp_path / "cand"
    assay.evaluate(ROWS, metrics="f1_score,exact_match", run=RunOptions(out=a))
    assay.evaluate(worse, metrics="f1_score,exact_match", run=RunOptions(out=b))
    return a, b


def test_compare_two_evaluated_runs(two_runs: tuple[Path, Path]) -> None:
    a, b = two_runs
    c = compare_runs(load_run_dir(a), load_run_dir(b))
    f1 = c["metrics"]["f1_score"]
    assert c["shared_rows"] == 3 and f1["paired"] == 3
    assert f1["mean_a"] == pytest.approx(load_run_dir(a).summary["metrics"]["f1_score"]["mean"],
                                         abs=1e-4)
    assert f1["diff"] < 0 and {r["id"] for r in c["changed"]} == {"tent", "stove"}
    json.dumps(c)  # plain JSON types only


# --- the CLI ------------------------------------------------------------------------------------

def invoke(*args: Any) -> Any:
    """``assay compare ARGS`` through the real CLI (its root maps option names to flags)."""
    return CliRunner().invoke(cli_app, ["compare", *(str(a) for a in args)])


def test_cli_two_positional_runs_print_the_tables(two_runs: tuple[Path, Path]) -> None:
    a, b = two_runs
    r = invoke(a, b)
    assert r.exit_code == 0, r.output
    assert "f1_score" in r.stdout and "95% CI" in r.stdout and "paired" in r.stdout
    assert "noise" in r.stdout
    assert "rows that changed most" in r.stdout and "tent" in r.stdout
    assert f"A (baseline): {a}" in r.stdout


def test_cli_marks_a_difference_beyond_noise(tmp_path: Path) -> None:
    rows = [{"id": str(i), "answer": "Paris", "ground_truth": "Paris" if i % 5 else "Lyon"}
            for i in range(40)]
    worse = [dict(r, answer="Nice") if i % 2 else r for i, r in enumerate(rows)]
    base, cand, same = tmp_path / "base", tmp_path / "cand", tmp_path / "same"
    assay.evaluate(rows, metrics="exact_match", run=RunOptions(out=base))
    assay.evaluate(worse, metrics="exact_match", run=RunOptions(out=cand))
    assay.evaluate(rows, metrics="exact_match", run=RunOptions(out=same))
    r = invoke(base, cand, "--json", tmp_path / "c.json")
    assert r.exit_code == 0, r.output
    assert json.loads((tmp_path / "c.json").read_text())["metrics"]["exact_match"][
        "beyond_noise"] is True
    (line,) = [x for x in r.stdout.splitlines() if x.strip().startswith("exact_match")]
    assert line.split()[3] == "-0.400*" and "* beyond noise: the diff's 95% CI excludes 0" in r.stdout
    r = invoke(base, same)
    (line,) = [x for x in r.stdout.splitlines() if x.strip().startswith("exact_match")]
    assert line.split()[3] == "+0.000" and "*" not in line


def test_cli_baseline_option_form_is_the_same(two_runs: tuple[Path, Path],
                                              tmp_path: Path) -> None:
    a, b = two_runs
    invoke(a, b, "--json", tmp_path / "pos.json")
    r = invoke("--baseline", a, b, "--json", tmp_path / "opt.json")
    assert r.exit_code == 0, r.output
    written = json.loads((tmp_path / "opt.json").read_text())
    assert written == json.loads((tmp_path / "pos.json").read_text())
    assert written == compare_runs(load_run_dir(a), load_run_dir(b))


@pytest.mark.parametrize("args", [[], ["ONE"], ["--baseline", "ONE"],
                                  ["--baseline", "ONE", "TWO", "THREE"]])
def test_cli_neither_one_or_three_runs_exit_2(args: list[str]) -> None:
    r = invoke(*args)
    assert r.exit_code == 2
    assert "Must be two: the baseline and the candidate" in r.stderr
    assert "assay compare --baseline RUN_A RUN_B" in r.stderr


def test_cli_three_positional_runs_exit_2() -> None:
    assert invoke("A", "B", "C").exit_code == 2


def test_cli_missing_run_directory_exit_2(two_runs: tuple[Path, Path], tmp_path: Path) -> None:
    r = invoke(two_runs[0], tmp_path / "nope")
    assert r.exit_code == 2 and "no results.jsonl here" in r.stderr


def test_cli_max_drop_verdicts_on_three_rows(two_runs: tuple[Path, Path]) -> None:
    """Three rows decide little: a generous bar passes, a drop of 2 rows in 3 is undecided
    (exit 5), a bar on no compared metric is a usage error (exit 2). The full verdict tests
    are in test_verdict_cli.py."""
    a, b = two_runs
    ok = invoke(a, b, "--max-drop", "f1_score=2.0", "--max-drop", "exact_match=2")
    assert ok.exit_code == 0, ok.output
    assert "pass" in ok.stderr and "fail" not in ok.stderr
    undecided = invoke(a, b, "--max-drop", "f1_score=0.1,exact_match=2")
    assert undecided.exit_code == 5, undecided.output
    flat = " ".join(undecided.stderr.split())
    assert "f1_score: cannot tell whether it is worse than -0.1" in flat
    assert "would decide it: about" in flat and "more shared rows" in flat
    assert "f1_score" in undecided.stdout  # the tables are printed before the verdict
    unknown = invoke(a, b, "--max-drop", "groundedness=0.2")
    assert unknown.exit_code == 2
    assert "no metric 'groundedness' to compare" in " ".join(unknown.stderr.split())


def test_cli_bad_max_drop_spec_exit_2(two_runs: tuple[Path, Path]) -> None:
    r = invoke(*two_runs, "--max-drop", "f1_score")
    assert r.exit_code == 2
    assert "Got --max-drop f1_score: missing" in r.stderr and "Fix: write NAME=NUMBER" in r.stderr


def test_cli_defects_and_clipped_reasons(tmp_path: Path) -> None:
    long = "the answer " + "x" * 200
    sa = {"rows": 2, "metrics": {"violence": defects(0.0)}}
    sb = {"rows": 2, "metrics": {"violence": defects(0.5)}}
    a = write_run(tmp_path / "a", [{"id": "1", "violence": res(0.0, "calm [b]text[/b]")},
                                   {"id": "2", "violence": res(0.0)}], sa)
    b = write_run(tmp_path / "b", [{"id": "1", "violence": res(6.0, long)},
                                   {"id": "2", "violence": res(0.0)}], sb)
    r = invoke(a, b, "--max-drop", "violence=1")
    assert r.exit_code == 5  # 2 rows: one rose by 6, one did not; nothing is sure
    assert ("violence: cannot tell whether it is worse than +1 (lower is better)"
            in " ".join(r.stderr.split()))
    assert "safety defect rates" in r.stdout and "+50.0%" in r.stdout
    assert "calm [b]text[/b]" in r.stdout  # reasons are text, not Rich markup
    assert ("the answer " + "x" * 68 + "…") in r.stdout and "x" * 70 not in r.stdout


def test_cli_metrics_option(two_runs: tuple[Path, Path], tmp_path: Path) -> None:
    r = invoke(*two_runs, "--metrics", "exact_match", "--json", tmp_path / "c.json")
    assert r.exit_code == 0
    assert list(json.loads((tmp_path / "c.json").read_text())["metrics"]) == ["exact_match"]
    assert invoke(*two_runs, "--metrics", "bleu_score").exit_code == 2


# --- provenance: judge, dataset, metric versions, prompts ---------------------------------------

def _rec(value: float, sha: str | None = None) -> dict[str, Any]:
    details = {"prompt_sha256": sha} if sha else {}
    return {"id": "q1", "relevance": {"value": value, "reason": None, "error": None,
                                      "details": details}}


def test_no_warning_for_two_runs_of_one_setup() -> None:
    meta = {"judge": "openai:m", "dataset_sha256": "ab" * 32, "metrics": {"relevance": "1"}}
    a = RunData("a", {}, [_rec(3, "p1")], dict(meta))
    b = RunData("b", {}, [_rec(4, "p1")], dict(meta))
    assert compare_runs(a, b)["warnings"] == []


def test_each_difference_is_named_with_both_values() -> None:
    a = RunData("a", {}, [_rec(3, "p1" * 32)],
                {"judge": "openai:m", "dataset": "qa.jsonl", "dataset_sha256": "aa" * 32,
                 "metrics": {"relevance": "1"}})
    b = RunData("b", {}, [_rec(4, "p2" * 32)],
                {"judge": "local", "dataset": "qa2.jsonl", "dataset_sha256": "bb" * 32,
                 "metrics": {"relevance": "2"}})
    warnings = compare_runs(a, b)["warnings"]
    assert [(w["field"], w["name"], w["a"], w["b"]) for w in warnings] == [
        ("judge", None, "openai:m", "local"),
        ("dataset_sha256", None, "aa" * 32, "bb" * 32),
        ("metric_version", "relevance", "1", "2"),
        ("prompt_sha256", "relevance", "p1" * 32, "p2" * 32)]
    text = " ".join(w["message"] for w in warnings)
    assert "openai:m" in text and "local" in text and "aaaaaaaaaaaa" in text
    assert "qa.jsonl" in text and "qa2.jsonl" in text and "v1" in text and "v2" in text


def test_unrecorded_facts_are_not_compared_and_paths_fall_back_to_file_names() -> None:
    # A lexical run has no judge; run directories have no dataset sha256.
    a = RunData("a", {"judge": None, "dataset": "/x/qa.jsonl"}, [_rec(3)])
    b = RunData("b", {"judge": {"id": "local"}, "dataset": "/y/qa.jsonl"}, [_rec(4)])
    assert compare_runs(a, b)["warnings"] == []
    c = RunData("c", {"dataset": "/y/other.jsonl"}, [_rec(4)])
    (w,) = compare_runs(a, c)["warnings"]
    assert w["field"] == "dataset" and "no sha256" in w["message"]


def test_prompts_and_versions_of_metrics_not_compared_are_ignored() -> None:
    a = RunData("a", {}, [_rec(3)], {"metrics": {"relevance": "1", "fluency": "1"},
                                     "prompt_sha256": {"fluency": "f1"}})
    b = RunData("b", {}, [_rec(4)], {"metrics": {"relevance": "1", "fluency": "2"},
                                     "prompt_sha256": {"fluency": "f2"}})
    assert compare_runs(a, b)["warnings"] == []


def test_cli_warns_on_stderr_and_in_json_for_stored_runs(
        fake_judge_server, tmp_path: Path) -> None:
    """Two runs of one metric with different judges and datasets, through the store: the
    stored records supply the dataset sha256s that run directories lack."""
    from assay.cli.main import app
    fake_judge_server("--latency-ms", "1")
    store = tmp_path / "runs.sqlite"
    data_a = tmp_path / "a.jsonl"
    data_b = tmp_path / "b.jsonl"
    rows = [{"id": r["id"], "question": r["question"], "answer": r["answer"]} for r in ROWS]
    data_a.write_text("".join(json.dumps(r) + "\n" for r in rows))
    data_b.write_text("".join(json.dumps(r) + "\n" for r in rows[:2]))
    for data, judge, out in ((data_a, "openai:model-a", "ra"), (data_b, "openai:model-b", "rb")):
        r = CliRunner().invoke(app, ["run", str(data), "--metrics", "fluency", "--judge", judge,
                                     "--no-cache", "--store", str(store),
                                     "--out", str(tmp_path / out)])
        assert r.exit_code == 0, r.output
    out_json = tmp_path / "cmp.json"
    r = CliRunner().invoke(app, ["compare", str(tmp_path / "ra"), str(tmp_path / "rb"),
                                 "--store", str(store), "--json", str(out_json)])
    assert r.exit_code == 0, r.output
    fields = [w["field"] for w in json.loads(out_json.read_text())["warnings"]]
    assert fields == ["judge", "dataset_sha256"]
    err = " ".join(r.stderr.split())
    assert "warning: the runs used different judges: A openai:model-a, B openai:model-b" in err
    assert "different datasets" in err and "a.jsonl" in err and "b.jsonl" in err
    assert "warning" not in r.stdout


def test_cli_on_an_80_column_terminal_wraps_figures_instead_of_cutting_them(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "80")
    names = ("groundedness_claims", "semantic_similarity", "answer_correctness")
    rows = [{"id": f"q{i}", **{m: res(0.25 * (i % 4)) for m in names}} for i in range(8)]
    better = [{"id": r["id"], **{m: res(0.125 + 0.25 * (i % 4)) for m in names}}
              for i, r in enumerate(rows)]
    a = write_run(tmp_path / "a", rows, {})
    b = write_run(tmp_path / "b", better, {})
    r = invoke(a, b)
    assert r.exit_code == 0, r.output
    table = r.stdout[r.stdout.index("metrics: diff"):r.stdout.index("* beyond noise")]
    assert "…" not in table
    assert all(f"\n {name} " in table for name in names)  # names whole, on their rows
    assert table.count("+0.125") >= 3  # every diff shown, whole
