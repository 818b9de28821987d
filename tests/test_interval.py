"""The mean's standard error and 95% bootstrap interval (``assay.records._interval.mean_interval``): checked
against scipy (``stats.sem``, ``stats.bootstrap`` percentile), their edge cases, their
independence from row order, and what a run's summary.json carries."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from scipy import stats

import assay
import assay.records._interval as interval_module
from assay import RunOptions
from assay.records import bootstrap_mean_ci
from assay.records._interval import BOOTSTRAP_RESAMPLES, mean_interval


def _samples() -> list[tuple[str, int, np.ndarray, float]]:
    """(kind, n, values, span of the scale) for binary, 1-5 and continuous 0-1 samples."""
    rng = np.random.default_rng(2026)
    out = []
    for n in (5, 30, 200):
        for p in (0.3, 0.7):
            out.append(("binary", n, (rng.random(n) < p).astype(float), 1.0))
        for _ in range(2):
            out.append(("1-5", n, rng.integers(1, 6, n).astype(float), 4.0))
        out.append(("0-1 continuous", n, rng.beta(2, 3, n).round(4), 1.0))
    return out


SAMPLES = _samples()


@pytest.mark.parametrize(("kind", "n", "values", "span"), SAMPLES,
                         ids=[f"{k}-n{n}-{i}" for i, (k, n, _, _) in enumerate(SAMPLES)])
def test_interval_matches_scipy_bootstrap_and_sem(kind: str, n: int, values: np.ndarray,
                                                  span: float) -> None:
    ours = mean_interval(values)
    assert ours is not None and ours.n == n and ours.ci95 is not None and ours.se is not None
    assert ours.se == pytest.approx(stats.sem(values), abs=5e-5)  # rounded to 4 decimals
    ref = stats.bootstrap((values,), np.mean, n_resamples=BOOTSTRAP_RESAMPLES,
                          method="percentile", confidence_level=0.95,
                          random_state=0).confidence_interval
    # 2% of the scale; a mean of n ratings moves in steps of span / n, and two bootstraps of
    # 2000 resamples may land one step apart where the 2.5% point sits on a step (scipy with
    # another seed does too), so discrete scales allow one step.
    tol = span * (0.02 if kind == "0-1 continuous" else max(0.02, 1 / n)) + 1e-4  # rounding
    assert ours.ci95[0] == pytest.approx(ref.low, abs=tol)
    assert ours.ci95[1] == pytest.approx(ref.high, abs=tol)
    assert ours.ci95[0] <= ours.mean <= ours.ci95[1]


def test_no_values_no_interval() -> None:
    assert mean_interval([]) is None


def test_one_value_says_why_it_has_no_interval() -> None:
    one = mean_interval([3.0])
    assert one is not None
    assert (one.n, one.mean, one.se, one.ci95) == (1, 3.0, None, None)
    assert one.note == "1 scored row: no spread to estimate an interval from"
    assert one.fields() == {"se": None, "ci95": None, "ci_note": one.note}


def test_equal_values_give_a_zero_width_interval() -> None:
    same = mean_interval([0.75] * 40)
    assert same is not None and (same.se, same.ci95, same.note) == (0.0, (0.75, 0.75), None)


def test_seeded_and_independent_of_row_order() -> None:
    values = list(np.random.default_rng(5).beta(2, 5, 300))
    first = mean_interval(values)
    assert mean_interval(values) == first
    assert mean_interval(list(reversed(values))) == first
    assert mean_interval(values, seed=1) != first


def test_few_distinct_values_draw_counts_like_rows() -> None:
    """5 000 ratings are resampled as counts over the 5 distinct values: same distribution
    as drawing rows one by one (checked against scipy), at a fraction of the cost."""
    values = np.random.default_rng(3).integers(1, 6, 5000).astype(float)
    ours = bootstrap_mean_ci(values)
    ref = stats.bootstrap((values,), np.mean, n_resamples=2000, method="percentile",
                          random_state=0).confidence_interval
    assert ours is not None
    assert ours[0] == pytest.approx(ref.low, abs=0.01)
    assert ours[1] == pytest.approx(ref.high, abs=0.01)


def test_too_large_to_bootstrap_uses_a_normal_interval_and_says_so() -> None:
    values = np.random.default_rng(4).random(400)
    ours = bootstrap_mean_ci(values, max_work=1000)
    assert ours is None
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(interval_module, "_MAX_WORK", 1000)
        iv = mean_interval(values)
    assert iv is not None and iv.ci95 is not None and iv.se is not None
    assert iv.note is not None and iv.note.startswith("normal interval (mean ± 1.96 se)")
    assert iv.ci95[1] - iv.ci95[0] == pytest.approx(2 * 1.96 * stats.sem(values), abs=2e-4)


def test_summary_json_carries_se_and_ci95(tmp_path: Path) -> None:
    rows = [{"id": str(i), "answer": "Paris" if i % 3 else "Lyon", "ground_truth": "Paris"}
            for i in range(30)]
    rows.append({"id": "blank", "answer": "Paris", "ground_truth": "the"})  # unscored
    result = assay.evaluate(rows, metrics="exact_match", run=RunOptions(out=tmp_path / "run"))
    written = json.loads((tmp_path / "run" / "summary.json").read_text())
    m = written["metrics"]["exact_match"]
    assert written == result.summary
    assert (m["scored"], m["unscored"]) == (30, 1)
    values = [0.0 if i % 3 == 0 else 1.0 for i in range(30)]
    expected = mean_interval(values)
    assert expected is not None and expected.ci95 is not None
    assert m["mean"] == pytest.approx(20 / 30, abs=1e-4)
    assert m["se"] == expected.se and m["ci95"] == list(expected.ci95)
    assert m["se"] == pytest.approx(stats.sem(values), abs=5e-5)
    assert result.run_summary.metrics["exact_match"].ci95 == expected.ci95
