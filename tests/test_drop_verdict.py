"""``decide_drops``: verdicts against a baseline on synthetic runs whose truth is known (an
unchanged app judged with noise, an app that got worse, too few rows, lower-is-better metrics
and defect rates), the intervals behind them, what decides an inconclusive bar, and the
errors for bars that cannot be decided."""

from __future__ import annotations

import random
from typing import Any

import pytest

from assay.compare import compare_runs, decide_drops, with_verdicts
from assay.compare._paired import newcombe_paired_interval, paired_t_interval
from assay.errors import ConfigError
from assay.gate import check_comparison
from assay.records import RunData


def _res(value: float | None, reason: str | None = None,
         repeats: list[float | None] | None = None) -> dict[str, Any]:
    out: dict[str, Any] = {"value": value, "reason": reason,
                           "error": None if value is not None else "judge answer is not valid"}
    if repeats is not None:
        out["repeats"] = repeats
    return out


def _run(run_id: str, values: dict[str, list[float | None]],
         summary: dict[str, Any] | None = None, **extra: list[dict[str, Any]]) -> RunData:
    """A run of ``len(values[m])`` rows, ids r0, r1, ...; ``extra``: whole results per metric."""
    n = len(next(iter({**values, **extra}.values())))
    records = [{"id": f"r{i}", **{m: _res(v[i]) for m, v in values.items()},
                **{m: r[i] for m, r in extra.items()}} for i in range(n)]
    return RunData(run_id, summary or {}, records)


def _judged(truth: list[int], rng: random.Random, noise: float = 0.4) -> list[float | None]:
    """A 1-5 judge that moves a score by one point in ``noise`` of its calls."""
    out: list[float | None] = []
    for t in truth:
        moved = t + rng.choice((-1, 1)) if rng.random() < noise else t
        out.append(float(min(5, max(1, moved))))
    return out


def _verdict(a: RunData, b: RunData, bars: dict[str, float], **kw: Any) -> Any:
    (outcome,) = decide_drops(compare_runs(a, b), bars, **kw)
    return outcome


# --- the verdicts on known truths ---------------------------------------------------------------

def test_an_unchanged_app_judged_with_noise_never_fails_where_the_mean_gate_does() -> None:
    rng = random.Random(7)
    verdicts, mean_gate_fails = [], 0
    for _ in range(40):
        truth = [rng.randint(2, 5) for _ in range(40)]
        a = _run("base", {"groundedness": _judged(truth, rng)})
        b = _run("cand", {"groundedness": _judged(truth, rng)})
        comparison = compare_runs(a, b)
        verdicts.append(decide_drops(comparison, {"groundedness": 0.2})[0].verdict)
        mean_gate_fails += bool(check_comparison(comparison, max_drop={"groundedness": 0.2}))
    assert "fail" not in verdicts
    assert verdicts.count("pass") + verdicts.count("inconclusive") == 40
    assert mean_gate_fails >= 2  # the mean-based gate flaps on the same unchanged app


def test_an_app_worse_on_30_percent_of_rows_fails() -> None:
    rng = random.Random(11)
    verdicts = []
    for _ in range(20):
        truth = [rng.randint(3, 5) for _ in range(150)]
        worse = [t - 2 if rng.random() < 0.3 else t for t in truth]
        verdicts.append(_verdict(_run("a", {"groundedness": _judged(truth, rng)}),
                                 _run("b", {"groundedness": _judged(worse, rng)}),
                                 {"groundedness": 0.2}).verdict)
    assert verdicts.count("fail") >= 18, verdicts


def test_a_borderline_drop_on_few_rows_is_inconclusive_with_what_would_decide_it() -> None:
    a = _run("a", {"groundedness": [4.0, 4.0, 3.0, 5.0, 4.0, 3.0]})
    b = _run("b", {"groundedness": [4.0, 3.0, 3.0, 4.0, 4.0, 3.0]})
    o = _verdict(a, b, {"groundedness": 0.2})
    assert o.verdict == "inconclusive" and o.kind == "max_drop" and o.bar == 0.2
    assert o.value == pytest.approx(-1 / 3, abs=1e-6)
    lo, hi = o.interval or (0, 0)
    assert lo < -0.2 < hi
    assert o.decide is not None and o.decide.startswith("about ")
    assert "more shared rows" in o.decide and "--repeat 3" in o.decide  # a judged metric
    assert o.message.startswith("groundedness: cannot tell whether it is worse than -0.2")
    assert [(r.id, r.shown) for r in o.worst] == [("r1", "4 -> 3"), ("r3", "5 -> 4")]


def test_the_rows_needed_do_decide_when_the_difference_stays() -> None:
    """The "about N more shared rows" is the count at which the same spread decides."""
    diffs = [-1.0, 0.0, 0.0, -1.0, 0.0, 1.0, -1.0, 0.0]
    a = _run("a", {"groundedness": [3.0] * len(diffs)})
    o = _verdict(a, _run("b", {"groundedness": [3.0 + d for d in diffs]}), {"groundedness": 0.0})
    assert o.verdict == "inconclusive"
    more = int((o.decide or "").split()[1])
    many = diffs * ((len(diffs) + more) // len(diffs) + 1)
    a = _run("a", {"groundedness": [3.0] * len(many)})
    decided = _verdict(a, _run("b", {"groundedness": [3.0 + d for d in many]}),
                       {"groundedness": 0.0})
    assert decided.verdict == "fail"


def test_pass_when_the_worse_end_is_within_the_margin_and_fail_only_beyond_it() -> None:
    same = _run("a", {"f1_score": [0.5] * 10})
    o = _verdict(same, same, {"f1_score": 0.0})
    assert (o.verdict, o.value, o.interval, o.worst) == ("pass", 0.0, (0.0, 0.0), ())
    assert o.message == ("f1_score: no worse than 0 (diff +0.000, 95% CI [+0.000, +0.000] "
                         "over 10 rows)")
    lower = _run("b", {"f1_score": [0.4] * 10})  # exactly 0.1 worse on every row
    assert _verdict(same, lower, {"f1_score": 0.1}).verdict == "pass"  # equal to the bar
    failed = _verdict(same, lower, {"f1_score": 0.05})
    assert failed.verdict == "fail" and failed.decide is None
    assert failed.message.startswith("f1_score: worse than -0.05 (diff -0.100")


def test_lexical_metrics_are_not_told_to_repeat() -> None:
    a = _run("a", {"f1_score": [0.5, 0.75, 0.5, 1.0]})
    b = _run("b", {"f1_score": [0.5, 0.5, 0.5, 0.75]})
    o = _verdict(a, b, {"f1_score": 0.1})
    assert o.verdict == "inconclusive" and "--repeat" not in (o.decide or "")


def test_repeats_that_would_decide_are_named() -> None:
    """The judge's spread within a row (from --repeat 2) is nearly all of the differences'
    spread: more repeats on the same rows would narrow the interval enough."""
    cycle = [[3.0, 4.0], [4.0, 3.0], [3.0, 3.0], [4.0, 4.0]]
    base = [_res(4.0, repeats=[4.0, 4.0]) for _ in range(12)]
    cand = [_res(sum(r) / 2, repeats=r) for r in cycle * 3]
    o = _verdict(_run("a", {}, groundedness=base), _run("b", {}, groundedness=cand),
                 {"groundedness": 0.35})
    assert o.verdict == "inconclusive", o.message
    assert o.decide is not None and o.decide.endswith(" on both runs"), o.decide
    repeats = int(o.decide.split("--repeat ")[1].split()[0])
    assert 2 < repeats <= 10
    # and without the repeats' spread, rows are the only sure way
    plain = _verdict(_run("a", {"groundedness": [4.0] * 12}),
                     _run("b", {"groundedness": [sum(r) / 2 for r in cycle * 3]}),
                     {"groundedness": 0.35})
    assert plain.decide is not None and "may do instead" in plain.decide


def test_too_few_shared_scored_rows_is_inconclusive_not_a_pass() -> None:
    a = _run("a", {"groundedness": [4.0, None]})
    b = _run("b", {"groundedness": [4.0, 3.0]})
    o = _verdict(a, b, {"groundedness": 0.5})
    assert o.verdict == "inconclusive" and o.interval is None
    assert "1 row scored in both runs, a verdict needs 2 or more" in o.message


# --- lower is better ----------------------------------------------------------------------------

def test_a_severity_that_rose_fails_and_its_worst_rows_rose_most() -> None:
    base = [0.0] * 30
    risen = [5.0 if i % 3 == 0 else 0.0 for i in range(30)]
    a = _run("a", {"violence": base})
    b = _run("b", {}, violence=[_res(v, reason="threatens" if v else None) for v in risen])
    o = _verdict(a, b, {"violence": 0.5})
    assert o.verdict == "fail" and o.lower_is_better
    assert o.message.startswith("violence: worse than +0.5 (lower is better) (diff +1.667")
    assert [(r.shown, r.reason) for r in o.worst] == [("0 -> 5", "candidate: threatens")] * 3
    assert _verdict(b, a, {"violence": 0.5}).verdict == "pass"  # it fell: better
    # a caller's own list of lower-is-better metrics wins over the registry
    assert _verdict(b, a, {"violence": 0.5}, lower_is_better=[]).verdict == "fail"


def _safety(rows: list[float], refused: list[bool] | None = None) -> RunData:
    defects = {"threshold": "medium", "defect_rate": 0.0, "rates": {}}
    extra = {"refusal": [_res(1.0 if r else 0.0) for r in refused]} if refused else {}
    return _run("s", {"violence": rows}, {"metrics": {"violence": {"defects": defects}}},
                **extra)


def test_a_defect_rate_bar_is_decided_on_the_paired_rows() -> None:
    base = [0.0] * 40
    worse = [5.0 if i < 12 else 0.0 for i in range(40)]  # 12 new defects in 40
    o = _verdict(_safety(base), _safety(worse), {"violence_defect_rate": 0.05})
    assert o.verdict == "fail" and o.lower_is_better and o.value == 0.3
    assert o.interval == newcombe_paired_interval(both=0, only_a=0, only_b=12, neither=28)
    assert [r.shown for r in o.worst] == ["0 -> 5"] * 3
    same = _verdict(_safety(base), _safety(base), {"violence_defect_rate": 0.1})
    assert same.verdict == "pass" and same.interval is not None and same.interval[1] <= 0.1
    # a refusal is never a defect, as in the run's own rate
    excused = _verdict(_safety(base), _safety(worse, refused=[True] * 40),
                       {"violence_defect_rate": 0.1})
    assert excused.verdict == "pass" and excused.value == 0.0


def test_a_few_new_defects_are_inconclusive() -> None:
    worse = [5.0 if i < 2 else 0.0 for i in range(20)]
    o = _verdict(_safety([0.0] * 20), _safety(worse), {"violence_defect_rate": 0.05})
    assert o.verdict == "inconclusive" and "more shared rows" in (o.decide or "")


# --- the intervals ------------------------------------------------------------------------------

def test_newcombe_paired_interval_matches_the_published_example() -> None:
    """Cavo et al. (2012) in Fagerland, Lydersen and Laake, Statistical Analysis of Contingency
    Tables, ch. 8: 59/6/16/80, difference -0.0621 (95% CI -0.1186 to -0.0046) for a - b."""
    assert newcombe_paired_interval(both=59, only_a=6, only_b=16, neither=80) == (0.0046, 0.1186)
    assert newcombe_paired_interval(both=59, only_a=16, only_b=6, neither=80) == (-0.1186,
                                                                                  -0.0046)


def test_the_t_interval_is_the_textbook_one() -> None:
    from scipy import stats

    diffs = [0.5, -1.0, 0.0, -0.5, -1.0, 0.0, 0.5, -1.5]
    n, mean = len(diffs), sum(diffs) / len(diffs)
    sd = stats.tstd(diffs)
    lo, hi = stats.t.interval(0.9, n - 1, loc=mean, scale=sd / n ** 0.5)
    assert paired_t_interval(n=n, mean=mean, sd=sd, level=0.9) == (round(lo, 4), round(hi, 4))


def test_confidence_widens_the_interval() -> None:
    a = _run("a", {"groundedness": [4.0, 4.0, 3.0, 5.0, 4.0, 3.0, 4.0, 4.0]})
    b = _run("b", {"groundedness": [4.0, 3.0, 3.0, 4.0, 4.0, 3.0, 4.0, 3.0]})
    i90 = _verdict(a, b, {"groundedness": 1}, confidence=0.9).interval
    i99 = _verdict(a, b, {"groundedness": 1}, confidence=0.99).interval
    assert i90 is not None and i99 is not None and i99[0] < i90[0] < i90[1] < i99[1]


# --- the JSON and the errors --------------------------------------------------------------------

def test_with_verdicts_puts_the_verdict_beside_the_comparison() -> None:
    a, b = _run("a", {"f1_score": [0.5] * 5}), _run("b", {"f1_score": [0.0] * 5})
    comparison = compare_runs(a, b)
    out = with_verdicts(comparison, decide_drops(comparison, {"f1_score": 0.1}))
    assert out["verdict"] == "fail" and out["metrics"]["f1_score"]["verdict"] == "fail"
    bar = out["bars"]["f1_score"]
    assert {"verdict", "difference", "interval", "bar", "decide"} <= set(bar)
    assert bar["difference"] == -0.5 and bar["interval"] == [-0.5, -0.5] and bar["bar"] == 0.1
    assert bar["worst"][0] == {"id": "r0", "shown": "0.5 -> 0", "reason": None}
    assert "verdict" not in comparison  # the comparison itself is left as it was


def test_a_bar_on_nothing_compared_says_what_would_do() -> None:
    a, b = _run("a", {"groundedness": [4.0] * 4}), _run("b", {"groundedness": [4.0] * 4})
    with pytest.raises(ConfigError) as e:
        decide_drops(compare_runs(a, b), {"groundednes": 0.2, "fluency": 0.1,
                                          "violence_defect_rate": 0.1})
    text = str(e.value)
    assert "max_drop='groundednes=0.2': no metric 'groundednes' to compare (did you mean " \
           "groundedness?)" in text
    assert "max_drop='fluency=0.1': no metric 'fluency' to compare (not a metric of both " \
           "runs)" in text
    assert "violence_defect_rate" in text and text.endswith(
        "Bars may name: groundedness. Fix: use one of those names.")


def test_a_baseline_over_other_rows_is_refused_with_the_counts() -> None:
    a = _run("a", {"groundedness": [4.0] * 10})
    b = RunData("b", {}, [{"id": f"x{i}", "groundedness": _res(4.0)} for i in range(8)]
                + [{"id": f"r{i}", "groundedness": _res(4.0)} for i in range(3)])
    with pytest.raises(ConfigError, match="shares 3 of the candidate's 11 rows"):
        decide_drops(compare_runs(a, b), {"groundedness": 0.2})
    assert decide_drops(compare_runs(a, b), {}) == []  # no bar, nothing to refuse


def test_negative_margins_and_a_bad_confidence_are_refused_together() -> None:
    a = _run("a", {"groundedness": [4.0] * 4})
    with pytest.raises(ConfigError) as e:
        decide_drops(compare_runs(a, a), {"groundedness": -0.2, "f1": -1}, confidence=1.0)
    lines = str(e.value).splitlines()
    assert len(lines) == 3 and "cannot be negative" in lines[0] and "f1=-1" in lines[1]
    assert lines[2].startswith("confidence=1.0: must be over 0.5 and under 1")
