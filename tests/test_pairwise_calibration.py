"""Pairwise position calibration: the two orders' token probabilities averaged, the fallback
to agreement without them, the tie margin, and what ``assay calibrate`` prints."""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from pathlib import Path

import pytest
from typer.testing import CliRunner

import assay
from assay import JudgeOptions
from assay.cli.main import app
from assay.errors import ConfigError
from assay.judges import FakeJudge, JudgeCapabilities, JudgeRequest, JudgeResponse, TokenLogprob
from assay.judges._fake import Truncated
from assay.metrics.custom import PairwiseMetric, load_metric_file

TEMPLATE = "Q: {{ question }}\nFIRST: {{ response_a }}\nSECOND: {{ response_b }}"
ROWS = [{"id": "1", "question": "Capital of France?", "answer": "Paris.",
         "baseline_model_response": "Lyon."},
        {"id": "2", "question": "2+2?", "answer": "5.", "baseline_model_response": "4."}]

#: What a judge says in one order: P(A), P(B), P(TIE) at the choice token.
Probs = tuple[float, float, float]


def answer(probs: Probs | None, reason: str = "scripted") -> JudgeResponse:
    """A JSON answer whose choice is the argmax of ``probs``, with logprobs at the choice
    token as llama.cpp and OpenAI report them (the choice's first token, alternatives in
    ``top``); no logprobs when ``probs`` is None."""
    if probs is None:
        return JudgeResponse(text=json.dumps({"choice": "A", "reason": reason}))
    p_a, p_b, p_t = probs
    choice = max((p_a, "A"), (p_b, "B"), (p_t, "TIE"))[1]
    text = json.dumps({"choice": choice, "reason": reason})
    top = {"A": math.log(p_a), "B": math.log(p_b), "T": math.log(p_t)}
    head, tail = text.split(choice, 1)
    first = choice[0]
    tokens = [TokenLogprob(token=head, logprob=0.0),
              TokenLogprob(token=first, logprob=top[first], top=top)]
    if choice == "TIE":
        tokens.append(TokenLogprob(token="IE", logprob=0.0))
    tokens.append(TokenLogprob(token=tail, logprob=0.0))
    return JudgeResponse(text=text, logprobs=tokens)


def by_order(candidate_first: Probs | None, baseline_first: Probs | None
             ) -> Callable[[JudgeRequest], JudgeResponse]:
    """A judge that answers ``candidate_first`` when the candidate (Paris / 5) is shown first."""
    def script(req: JudgeRequest) -> JudgeResponse:
        user = req.messages[-1]["content"]
        first = user.split("FIRST: ")[1].split("\n")[0]
        return answer(candidate_first if first in ("Paris.", "5.") else baseline_first)
    return script


def score(metric: PairwiseMetric, script: Callable[[JudgeRequest], JudgeResponse],
          rows: list[dict] | None = None) -> assay.EvalResult:
    return assay.evaluate(rows or ROWS[:1], metrics=[metric], judge=FakeJudge(script),
                          judging=JudgeOptions(cache=None))


def test_the_two_orders_probabilities_are_averaged() -> None:
    # candidate first: A (the candidate) 0.6; baseline first: A (the baseline) 0.5. The
    # generated choices flip (both name A), yet on average the candidate is more probable.
    result = score(PairwiseMetric("pref", TEMPLATE), by_order((0.6, 0.3, 0.1), (0.5, 0.4, 0.1)))
    cell = result.rows[0]["pref"]
    details = cell["details"]
    assert details["decided_by"] == "probabilities"
    assert details["probabilities"] == {"candidate": 0.5, "baseline": 0.4, "tie": 0.1}
    assert [o["probabilities"] for o in details["orders"]] == [
        {"candidate": 0.6, "baseline": 0.3, "tie": 0.1},
        {"candidate": 0.4, "baseline": 0.5, "tie": 0.1}]
    assert details["position_consistent"] is False  # the orders' own choices disagree
    assert details["choice"] == "CANDIDATE" and cell["value"] == 1.0
    agg = result.summary["metrics"]["pref"]
    assert agg["flips"] == 1 and agg["position_consistency"] == 0.0
    assert agg["first_shown_share"] == 1.0
    assert agg["decided_by"] == {"probabilities": 1, "agreement": 0}


def test_a_judge_that_always_names_the_first_shown_gives_a_tie_not_a_win() -> None:
    biased = (0.6, 0.3, 0.1)  # "A" with p=0.6 whatever is shown first
    result = score(PairwiseMetric("pref", TEMPLATE), by_order(biased, biased), ROWS)
    for row in result.rows:
        details = row["pref"]["details"]
        assert details["probabilities"]["candidate"] == details["probabilities"]["baseline"]
        assert details["choice"] == "TIE" and row["pref"]["value"] == 0.5
    agg = result.summary["metrics"]["pref"]
    assert agg["mean"] == 0.5 and agg["candidate_win_rate"] == 0.0
    assert agg["first_shown_share"] == 1.0 and agg["flips"] == 2


def test_a_real_preference_survives_a_position_lean() -> None:
    # leans to B (second shown) in both orders, but less so when B is the baseline
    result = score(PairwiseMetric("pref", TEMPLATE), by_order((0.3, 0.5, 0.2), (0.2, 0.7, 0.1)))
    details = result.rows[0]["pref"]["details"]
    assert details["probabilities"] == {"candidate": 0.5, "baseline": 0.35, "tie": 0.15}
    assert details["choice"] == "CANDIDATE"
    assert result.summary["metrics"]["pref"]["first_shown_share"] == 0.0


def test_without_logprobs_a_flip_is_a_tie_as_before() -> None:
    result = score(PairwiseMetric("pref", TEMPLATE), by_order(None, None))
    details = result.rows[0]["pref"]["details"]
    assert details["decided_by"] == "agreement" and details["probabilities"] is None
    assert details["choice"] == "TIE" and details["position_consistent"] is False
    # one order without logprobs: no average of one order, the agreement rule decides
    mixed = score(PairwiseMetric("pref", TEMPLATE), by_order((0.7, 0.2, 0.1), None))
    details = mixed.rows[0]["pref"]["details"]
    assert details["decided_by"] == "agreement" and details["choice"] == "TIE"
    assert details["orders"][1]["probabilities"] is None


def test_tie_margin(tmp_path: Path) -> None:
    script = by_order((0.45, 0.35, 0.2), (0.4, 0.4, 0.2))  # candidate 0.425, baseline 0.375
    assert score(PairwiseMetric("pref", TEMPLATE), script).rows[0]["pref"]["details"][
        "choice"] == "CANDIDATE"
    wide = score(PairwiseMetric("pref", TEMPLATE, tie_margin=0.1), script).rows[0]["pref"]
    assert wide["details"]["choice"] == "TIE" and wide["details"]["tie_margin"] == 0.1
    path = tmp_path / "p.md"
    path.write_text(f"---\nname: pref\nkind: pairwise\ntie_margin: 0.1\n---\n{TEMPLATE}\n")
    assert load_metric_file(path).tie_margin == 0.1
    assert load_metric_file(path, tie_margin=0.0).tie_margin == 0.0
    with pytest.raises(ConfigError, match="tie_margin=2"):
        PairwiseMetric("pref", TEMPLATE, tie_margin=2)
    path.write_text(f"---\nname: pref\nkind: pairwise\ntie_margin: wide\n---\n{TEMPLATE}\n")
    with pytest.raises(ConfigError, match=str(path).replace("\\", "\\\\")):
        load_metric_file(path)


def test_no_swap_reads_one_orders_probabilities() -> None:
    once = PairwiseMetric("pref", TEMPLATE, swap=False)
    result = score(once, by_order((0.3, 0.6, 0.1), (0.9, 0.05, 0.05)))
    details = result.rows[0]["pref"]["details"]
    assert len(details["orders"]) == 1 and details["position_consistent"] is None
    assert details["choice"] == "BASELINE" and details["decided_by"] == "probabilities"
    assert result.summary["metrics"]["pref"]["flips"] == 0


def _pairs(tmp_path: Path) -> tuple[Path, Path]:
    metric = tmp_path / "pref.md"
    metric.write_text(f"---\nname: pref\nkind: pairwise\n---\n{TEMPLATE}\n")
    data = tmp_path / "pairs.jsonl"
    labels = ["CANDIDATE", "BASELINE"]
    data.write_text("\n".join(json.dumps({**r, "pref/human_pairwise_choice": h})
                              for r, h in zip(ROWS, labels)) + "\n")
    return metric, data


def test_calibrate_reports_accuracy_and_position_figures(tmp_path: Path) -> None:
    metric, data = _pairs(tmp_path)
    # right on row 1 (Paris) through the probabilities; a pure position lean on row 2
    def script(req: JudgeRequest) -> JudgeResponse:
        user = req.messages[-1]["content"]
        if "Paris" in user:
            first_is_candidate = "FIRST: Paris." in user
            return answer((0.6, 0.3, 0.1) if first_is_candidate else (0.3, 0.6, 0.1))
        return answer((0.2, 0.7, 0.1))
    got = assay.calibrate(data, metric=load_metric_file(metric), judges=[FakeJudge(
        script, id="j")], out=tmp_path / "o", cache=None)
    report = got.reports["j"]
    assert report["exact_agreement"] == 0.5  # row 2 is a TIE, people said BASELINE
    assert report["position_consistency"] == 0.5 and report["flips"] == 1
    assert report["first_shown_share"] == 0.25
    assert report["decided_by"] == {"probabilities": 2, "agreement": 0}
    saved = json.loads((tmp_path / "o" / "calibration.json").read_text())
    assert saved["reports"]["j"]["first_shown_share"] == 0.25


def test_cli_calibrate_prints_the_pairwise_lines(tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    metric, data = _pairs(tmp_path)
    judge = FakeJudge(by_order((0.6, 0.3, 0.1), (0.6, 0.3, 0.1)), id="biased")
    monkeypatch.setattr("assay.judges._fake.FakeJudge", lambda: judge)
    for extra, requests in (([], 4), (["--no-swap"], 2)):
        judge.requests.clear()
        result = CliRunner().invoke(app, ["calibrate", str(data), "--metric-file", str(metric),
                                          "--judge", "fake", "--no-cache", "--no-store",
                                          "--out", str(tmp_path / "o"), *extra],
                                    env={"COLUMNS": "160"})
        assert result.exit_code == 0, result.output
        lines = {line.split("│")[1].strip(): line.split("│")[2].strip()
                 for line in result.output.splitlines() if line.count("│") == 3}
        assert len(judge.requests) == requests
        assert lines["answers naming the first-shown output"] == "1.000"
        if extra:  # asked once: the lean decides, nothing to compare
            assert lines["accuracy (exact agreement)"] == "0.500"
            assert lines["position consistency"] == "-"
        else:  # both orders: the lean cancels into ties, right on neither row
            assert lines["accuracy (exact agreement)"] == "0.000"
            assert lines["position consistency"] == "0.000"
            assert lines["flips (orders disagree)"] == "2"
            assert lines["decided by probabilities / agreement"] == "2 / 0"


def test_on_a_local_judge_the_choice_comes_alone_and_losing_rows_get_a_reason() -> None:
    seen: list[JudgeRequest] = []

    def script(req: JudgeRequest) -> JudgeResponse:
        seen.append(req)
        user = req.messages[-1]["content"]
        good_first = "FIRST: Paris." in user or "FIRST: 4." in user
        resp = answer((0.7, 0.2, 0.1) if good_first else (0.2, 0.7, 0.1))
        if req.schema_name == "pairwise_choice":  # the grammar ends the answer after the choice
            resp.text = resp.text.split(",")[0] + "}"
        return resp

    local = FakeJudge(script, capabilities=JudgeCapabilities(local=True))
    result = assay.evaluate(ROWS, metrics=[PairwiseMetric("pref", TEMPLATE)], judge=local,
                            judging=JudgeOptions(cache=None))
    won, lost = (row["pref"] for row in result.rows)
    assert (won["details"]["choice"], lost["details"]["choice"]) == ("CANDIDATE", "BASELINE")
    assert [r.schema_name for r in seen].count("pairwise_choice") == 4
    explained = [r for r in seen if r.schema_name == "pairwise"]
    assert len(explained) == 1 and "FIRST: 4." in explained[0].messages[-1]["content"]
    assert lost["reason"] == "scripted" and "no_reason" not in lost["details"]
    assert won["reason"] is None and "no reason asked" in won["details"]["no_reason"]


def test_a_choice_alone_cut_after_its_object_is_read_and_one_cut_inside_is_not() -> None:
    """The embedded judge may write whitespace after the object until max_tokens."""
    def judge(cut_text: str) -> FakeJudge:
        def script(req: JudgeRequest) -> Truncated | JudgeResponse:
            if req.schema_name == "pairwise_choice":
                assert req.cut_ok and req.max_tokens <= 12
                return Truncated(cut_text)
            return answer(None)
        return FakeJudge(script, capabilities=JudgeCapabilities(local=True))

    metric = PairwiseMetric("pref", TEMPLATE)
    whole = assay.evaluate(ROWS[:1], metrics=[metric], judge=judge('{"choice": "A"}  '),
                           judging=JudgeOptions(cache=None)).rows[0]["pref"]
    assert whole["value"] is not None and whole["details"]["choice"] == "TIE"  # A in both orders
    half = assay.evaluate(ROWS[:1], metrics=[metric], judge=judge('{"choice": "TI'),
                          judging=JudgeOptions(cache=None)).rows[0]["pref"]
    assert half["value"] is None and "not A, B or TIE" in half["error"]
