"""A panel of judges (``evaluate(judge=[...])``, ``assay run --judge A --judge B --judge C``):
each judge metric asked of every judge and combined per row (the mean of numbers, the
majority label), each judge's answer kept, its failures counted, its agreement with the panel
(Krippendorff's alpha) and its usage in the summary; resume; the CLI. Offline: scripted
FakeJudges that answer each row as the test says."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import krippendorff
import pytest
from typer.testing import CliRunner

from assay import FakeJudge, JudgeOptions, RunOptions, evaluate
from assay.cli.main import app
from assay.errors import ConfigError, JudgeError
from assay.judges import JudgeCapabilities, JudgeRequest, JudgeResponse
from assay.metrics.custom import PairwiseMetric, PointwiseMetric

#: An answer of a scripted judge: a score or label, or an error to raise.
Answer = int | str | Exception


def _row_of(request: JudgeRequest) -> str:
    """Which row a request is about: the ``rowmarkN`` in its texts."""
    found = re.search(r"rowmark(\d)", " ".join(m["content"] for m in request.messages))
    assert found, request.messages
    return found.group(1)


def _answer(judge: str, answer: Answer) -> str | Exception:
    if isinstance(answer, Exception):
        return answer
    if isinstance(answer, str) and answer.startswith("model_"):
        return json.dumps({"choice": answer, "reason": f"{judge} chose {answer}"})
    return json.dumps({"score": answer, "reason": f"{judge} gave {answer}"})


def scripted(name: str, by_row: Mapping[str, Answer], **kwargs: Any) -> FakeJudge:
    """A FakeJudge called ``name`` that answers row N with ``by_row[N]``."""
    return FakeJudge(lambda req: _answer(name, by_row[_row_of(req)]), id=name, **kwargs)


def qa_rows(n: int) -> list[dict[str, str]]:
    return [{"id": str(i), "question": f"What is rowmark{i}?", "answer": f"It is rowmark{i}.",
             "ground_truth": f"It is rowmark{i}."} for i in range(1, n + 1)]


def run_panel(rows: list[dict[str, Any]], metrics: Any, judges: list[Any],
              **run: Any) -> Any:
    return evaluate(rows, metrics=metrics, judge=judges,
                    judging=JudgeOptions(cache=None, concurrency=2),
                    run=RunOptions(store=False, **run))


def by_id(result: Any) -> dict[str, dict[str, Any]]:
    return {r["id"]: r for r in result.rows}


# ----------------------------------------------------------------- combining per row


def test_numeric_scores_are_the_mean_of_the_judges_and_deterministic_metrics_run_once() -> None:
    judges = [scripted("a", {"1": 5, "2": 2, "3": 4}), scripted("b", {"1": 4, "2": 2, "3": 1}),
              scripted("c", {"1": 3, "2": 5, "3": 1})]
    result = run_panel(qa_rows(3), "f1_score,fluency", judges)
    rows = by_id(result)
    assert [rows[i]["fluency"]["value"] for i in "123"] == [4.0, 3.0, 2.0]
    one = rows["1"]["fluency"]
    assert one["details"]["panel"] == {
        "a": {"value": 5.0, "reason": "a gave 5"}, "b": {"value": 4.0, "reason": "b gave 4"},
        "c": {"value": 3.0, "reason": "c gave 3"}}
    assert one["details"]["panel_rule"] == "mean" and one["details"]["panel_answered"] == 3
    assert one["reason"] == "mean of 3 of 3 judges (a 5, b 4, c 3)"
    assert "prompt_sha256" in one["details"]  # the same for every judge: kept
    # f1_score asks no judge: scored once, no panel; each judge was asked once per row
    assert rows["1"]["f1_score"]["value"] == 1.0 and not rows["1"]["f1_score"]["details"]
    assert [len(j.requests) for j in judges] == [3, 3, 3]
    assert result.summary["metrics"]["fluency"]["mean"] == 3.0
    assert result.summary["judge"]["id"] == "panel(a, b, c)"
    assert result.summary["judge"]["requests"] == 9
    typed = result.run_summary.panel  # summary.json's panel, through its typed model
    assert typed is not None and typed.agreement["fluency"].judges["a"].scored == 3



def test_the_report_and_web_ui_table_of_a_panel() -> None:
    """The families' tables (what the HTML report and ``assay serve`` show) hold the panel's:
    each judge's alpha with the panel, its requests, and the alpha across the judges."""
    from assay.metrics import summary_tables

    judges = [scripted("a", {"1": 5, "2": 2, "3": 4}), scripted("b", {"1": 4, "2": 2, "3": 1})]
    result = run_panel(qa_rows(3), "fluency", judges)
    [table] = [t for t in summary_tables(result.summary) if t.key == "panel"]
    assert table.columns == ("judge", "fluency", "failed rows", "requests", "tokens", "cost $")
    cells = {row[0].value: [c.value for c in row[1:]] for row in table.rows}
    agreement = result.summary["panel"]["agreement"]["fluency"]
    assert cells["a"][:3] == [agreement["judges"]["a"]["alpha"], 0, 3]
    assert cells["across the judges"][0] == agreement["alpha"]
    assert not [t for t in summary_tables(run_panel(qa_rows(1), "fluency", judges[:1]).summary)
                if t.key == "panel"]  # one judge: no panel table

def _tone() -> PointwiseMetric:
    return PointwiseMetric("tone", "<a>{{ response }}</a>", scale=["rude", "neutral", "polite"])


def test_labels_take_the_majority_and_a_tie_is_unscored_never_a_made_up_label() -> None:
    judges = [scripted("a", {"1": "polite", "2": "rude", "3": "polite"}),
              scripted("b", {"1": "polite", "2": "neutral", "3": "rude"}),
              scripted("c", {"1": "rude", "2": "polite", "3": "polite"})]
    rows = by_id(run_panel(qa_rows(3), [_tone()], judges))
    first = rows["1"]["tone"]
    assert first["details"]["label"] == "polite" and first["details"]["panel_rule"] == "majority"
    assert first["value"] == _tone().scale.value("polite")
    assert first["reason"] == "polite from 2 of 3 judges (a: a gave polite)"
    assert first["details"]["panel"]["c"] == {"value": _tone().scale.value("rude"),
                                              "reason": "c gave rude", "label": "rude"}
    split = rows["2"]["tone"]  # one vote each
    assert split["value"] is None and "label" not in split["details"]
    assert split["error"] == ("the judges of the panel split with no majority: neutral 1, "
                              "polite 1, rude 1")
    assert rows["3"]["tone"]["details"]["label"] == "polite"


def test_pairwise_choices_take_the_majority() -> None:
    metric = PairwiseMetric("preference", "Q: {{ question }}\nA: {{ response_a }}\n"
                                          "B: {{ response_b }}", swap=False)
    rows = [{"id": "1", "question": "rowmark1?", "answer": "x", "baseline_model_response": "y"},
            {"id": "2", "question": "rowmark2?", "answer": "x", "baseline_model_response": "y"}]
    judges = [scripted("a", {"1": "model_A", "2": "model_B"}),
              scripted("b", {"1": "model_B", "2": "model_B"}),
              scripted("c", {"1": "model_A", "2": "model_A"})]
    result = run_panel(rows, [metric], judges)
    got = by_id(result)
    assert got["1"]["preference"]["details"]["choice"] == "CANDIDATE"
    assert got["1"]["preference"]["value"] == 1.0
    assert got["2"]["preference"]["details"]["choice"] == "BASELINE"
    assert result.summary["metrics"]["preference"]["choices"]["CANDIDATE"] == 1
    assert result.summary["panel"]["agreement"]["preference"]["level"] == "nominal"


def test_a_judge_failing_on_a_row_is_recorded_and_the_row_rests_on_the_others() -> None:
    boom = JudgeError("HTTP 400: refused")
    judges = [scripted("a", {"1": 5, "2": 4, "3": 4}), scripted("b", {"1": 3, "2": 2, "3": 2}),
              scripted("c", {"1": 1, "2": boom, "3": 3})]
    result = run_panel(qa_rows(3), "fluency", judges)
    second = by_id(result)["2"]["fluency"]
    assert second["value"] == 3.0 and second["details"]["panel_answered"] == 2
    assert second["reason"] == "mean of 2 of 3 judges (a 4, b 2)"
    assert second["details"]["panel"]["c"] == {
        "value": None, "reason": None, "error": "judge call failed: HTTP 400: refused"}
    failures = result.summary["failures"]
    assert failures["by_metric"]["fluency (c)"] == {"failed": 1, "unreadable": 0,
                                                    "applicable": 3, "share": 0.3333}
    assert failures["by_metric"]["fluency (a)"]["failed"] == 0
    assert failures["causes"] == {"judge call failed: HTTP 400": 1}
    agreement = result.summary["panel"]["agreement"]["fluency"]
    assert agreement["judges"]["c"]["failed"] == 1 and agreement["judges"]["c"]["scored"] == 2
    assert result.summary["panel"]["usage"]["c"]["failed"] == 1


def test_a_row_no_judge_answered_is_unscored_with_the_failed_call() -> None:
    down = JudgeError("HTTP 400: refused")
    judges = [scripted("a", {"1": down}), scripted("b", {"1": down})]
    rec = by_id(run_panel(qa_rows(1), "fluency", judges))["1"]["fluency"]
    assert rec["value"] is None and rec["error"] == "judge call failed: HTTP 400: refused"
    assert rec["details"]["panel_answered"] == 0
    assert rec["reason"] == "none of the 2 judges of the panel gave a score"


# ------------------------------------------------------------------ agreement (alpha)


def test_alpha_across_the_judges_and_of_each_judge_with_the_panel_interval() -> None:
    judges = [scripted("x", {"1": 1, "2": 2, "3": 3}), scripted("y", {"1": 1, "2": 2, "3": 4})]
    agreement = run_panel(qa_rows(3), "fluency", judges).summary["panel"]["agreement"]["fluency"]
    assert agreement["level"] == "interval" and agreement["rows"] == 3
    # by hand: values 1,1,2,2,3,4; D_o = 2/6, D_e = 82/30, alpha = 1 - (1/3)/(41/15) = 36/41
    assert agreement["alpha"] == round(36 / 41, 4) == 0.878
    panel = [1.0, 2.0, 3.5]  # the panel's means
    for judge, values in (("x", [1, 2, 3]), ("y", [1, 2, 4])):
        expected = krippendorff.alpha(reliability_data=[values, panel],
                                      level_of_measurement="interval")
        assert agreement["judges"][judge]["alpha"] == round(expected, 4)


def test_alpha_of_labels_is_nominal_and_counts_a_failed_answer_as_missing() -> None:
    labels = {"a": {"1": "rude", "2": "rude", "3": "polite", "4": "polite"},
              "b": {"1": "rude", "2": "polite", "3": "polite", "4": "polite"},
              "c": {"1": "rude", "2": "rude", "3": "polite", "4": JudgeError("HTTP 400: no")}}
    judges = [scripted(name, answers) for name, answers in labels.items()]
    agreement = run_panel(qa_rows(4), [_tone()], judges).summary["panel"]["agreement"]["tone"]
    assert agreement["level"] == "nominal"
    code = {"rude": 1.0, "polite": 3.0, None: float("nan")}
    matrix = [[code[v if isinstance(v, str) else None] for v in answers.values()]
              for answers in labels.values()]
    assert agreement["alpha"] == round(krippendorff.alpha(
        reliability_data=matrix, level_of_measurement="nominal"), 4)
    panel = [1.0, 1.0, 3.0, 3.0]  # majorities: rude, rude (2 of 3), polite, polite (2 of 2)
    for name, values in zip(labels, matrix, strict=True):
        assert agreement["judges"][name]["alpha"] == round(krippendorff.alpha(
            reliability_data=[values, panel], level_of_measurement="nominal"), 4)
    # by hand for b: values rude,polite,polite,polite vs rude,rude,polite,polite: n = 8,
    # rude 3, polite 5; D_o = 2/8; D_e = 2*3*5/(8*7); alpha = 1 - (1/4)/(30/56) = 8/15
    assert agreement["judges"]["b"]["alpha"] == round(8 / 15, 4)


def test_alpha_is_null_with_a_note_when_every_value_is_the_same() -> None:
    judges = [scripted("a", {"1": 4, "2": 4}), scripted("b", {"1": 4, "2": 4})]
    agreement = run_panel(qa_rows(2), "fluency", judges).summary["panel"]["agreement"]["fluency"]
    assert agreement["alpha"] is None
    assert agreement["alpha_note"] == "undefined: every rating is the same value"


# ------------------------------------------------------------------------- usage


def test_requests_tokens_and_cost_per_judge() -> None:
    priced = JudgeCapabilities(input_price=1e-6, output_price=4e-6)
    judges = [scripted("a", {"1": 5, "2": 4}, capabilities=priced),
              scripted("b", {"1": 3, "2": 3})]
    usage = run_panel(qa_rows(2), "fluency,coherence", judges).summary["panel"]["usage"]
    assert list(usage) == ["a", "b"]
    assert usage["a"]["requests"] == len(judges[0].requests) == 4
    assert usage["b"]["requests"] == len(judges[1].requests) == 4
    assert usage["a"]["cost_usd"] == priced.cost(usage["a"]["prompt_tokens"],
                                                 usage["a"]["completion_tokens"]) > 0
    assert usage["b"]["cost_usd"] is None  # no price declared: unknown, not 0
    assert usage["b"]["cost_unknown_reason"] == (
        "no price for model 'b' (add it to a --prices file)")


def test_each_panel_judge_is_priced_apart_with_the_price_file(tmp_path: Path) -> None:
    prices = tmp_path / "prices.toml"
    prices.write_text("[models.a]\ninput = 1.0\noutput = 4.0\n\n"
                      "[models.b]\ninput = 2.0\noutput = 2.0\n")
    judges = [scripted("a", {"1": 5, "2": 4}), scripted("b", {"1": 3, "2": 3})]
    summary = evaluate(qa_rows(2), metrics="fluency,coherence", judge=judges,
                       judging=JudgeOptions(cache=None, concurrency=2, prices=prices),
                       run=RunOptions(store=False)).summary
    usage, cost = summary["panel"]["usage"], summary["cost"]
    for judge, (price_in, price_out) in {"a": (1.0, 4.0), "b": (2.0, 2.0)}.items():
        used = usage[judge]
        expected = (used["prompt_tokens"] * price_in + used["completion_tokens"] * price_out) / 1e6
        assert expected > 0 and used["cost_usd"] == pytest.approx(expected)
        assert cost["by_judge"][judge]["usd"] == pytest.approx(expected)
        assert cost["by_judge"][judge]["requests"] == used["requests"] == 4
    assert cost["usd"] == pytest.approx(usage["a"]["cost_usd"] + usage["b"]["cost_usd"])
    assert cost["by_metric"]["fluency"]["requests"] == 4  # 2 rows x 2 judges


# ------------------------------------------------------------------------ refusals


def test_one_judge_in_a_list_is_a_plain_run_without_panel() -> None:
    result = run_panel(qa_rows(1), "fluency", [scripted("a", {"1": 4})])
    assert "panel" not in result.summary and result.summary["judge"]["id"] == "a"
    assert "panel" not in result.rows[0]["fluency"]["details"]


def test_a_panel_needs_distinct_judge_ids_and_at_least_one_judge() -> None:
    with pytest.raises(ConfigError, match="distinct ids: got fake more than once"):
        run_panel(qa_rows(1), "fluency", ["fake", "fake"])
    with pytest.raises(ConfigError, match="Give a judge, or several for a panel"):
        run_panel(qa_rows(1), "fluency", [])


# ----------------------------------------------------------------------------- CLI

#: What each ``--judge fake:NAME`` answers per row in the CLI tests (changed by a test).
CLI_SCRIPT: dict[str, dict[str, Answer]] = {}


@pytest.fixture
def cli_judges(monkeypatch: pytest.MonkeyPatch) -> dict[str, list[str]]:
    """``--judge fake:NAME`` answers from :data:`CLI_SCRIPT`; returns the rows each judge was
    asked about, by name."""
    asked: dict[str, list[str]] = {}

    async def complete(self: FakeJudge, request: JudgeRequest, *,
                       accept: Any = None) -> JudgeResponse:
        name = self.id.removeprefix("fake:")
        row = _row_of(request)
        asked.setdefault(name, []).append(row)
        out = _answer(name, CLI_SCRIPT[name][row])
        if isinstance(out, Exception):
            raise out
        return JudgeResponse(text=out, prompt_tokens=100, completion_tokens=10)

    monkeypatch.setattr(FakeJudge, "complete", complete)
    monkeypatch.setenv("COLUMNS", "200")
    monkeypatch.setenv("NO_COLOR", "1")
    CLI_SCRIPT.clear()
    return asked


def _write_rows(tmp_path: Path, n: int) -> Path:
    data = tmp_path / "qa.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in qa_rows(n)))
    return data


def _cli(data: Path, out: Path, *extra: str) -> Any:
    return CliRunner().invoke(app, [
        "run", str(data), "--metrics", "f1_score,fluency", "--judge", "fake:a", "--judge",
        "fake:b", "--judge", "fake:c", "--no-store", "--no-progress", "--out", str(out),
        *extra])


def test_cli_with_three_judges_writes_the_panel_and_prints_its_table(
        tmp_path: Path, cli_judges: dict[str, list[str]]) -> None:
    CLI_SCRIPT.update(a={"1": 5, "2": 4}, b={"1": 4, "2": 4}, c={"1": 3, "2": 1})
    out = tmp_path / "out"
    res = _cli(_write_rows(tmp_path, 2), out, "--no-cache")
    assert res.exit_code == 0, res.output
    records = [json.loads(x) for x in (out / "results.jsonl").read_text().splitlines()]
    assert [r["fluency"]["value"] for r in records] == [4.0, 3.0]
    assert list(records[0]["fluency"]["details"]["panel"]) == ["fake:a", "fake:b", "fake:c"]
    summary = json.loads((out / "summary.json").read_text())
    assert summary["judge"]["id"] == "panel(fake:a, fake:b, fake:c)"
    assert summary["panel"]["usage"]["fake:b"]["requests"] == 2
    assert summary["panel"]["usage"]["fake:b"]["prompt_tokens"] == 200
    assert set(summary["panel"]["agreement"]["fluency"]["judges"]) == {"fake:a", "fake:b",
                                                                       "fake:c"}
    assert "panel of 3 judges: Krippendorff's alpha with the panel" in res.output
    alpha = summary["panel"]["agreement"]["fluency"]["alpha"]
    assert re.search(r"across the judges\s+" + re.escape(f"{alpha:.3f}"), res.output)
    assert sorted(cli_judges) == ["a", "b", "c"]


def test_cli_a_judge_failing_fails_the_run_and_resume_asks_only_it_again(
        tmp_path: Path, cli_judges: dict[str, list[str]]) -> None:
    CLI_SCRIPT.update(a={"1": 5, "2": 4, "3": 2}, b={"1": 5, "2": 2, "3": 2},
                      c={"1": 5, "2": JudgeError("HTTP 400: refused"), "3": 2})
    data, out = _write_rows(tmp_path, 3), tmp_path / "out"
    cache = ["--cache", str(tmp_path / "cache.sqlite")]
    first = _cli(data, out, *cache)
    assert first.exit_code == 3, first.output
    assert "fluency (fake:c) lost more than 5.0%" in " ".join(first.output.split())
    row2 = json.loads((out / "results.jsonl").read_text().splitlines()[1])["fluency"]
    assert row2["value"] == 3.0 and row2["details"]["panel_answered"] == 2

    cli_judges.clear()
    CLI_SCRIPT["c"]["2"] = 3
    again = _cli(data, out, *cache, "--resume")
    assert again.exit_code == 0, again.output
    assert cli_judges == {"c": ["2"]}  # a and b answer row 2 from the cache; rows 1, 3 kept
    records = [json.loads(x) for x in (out / "results.jsonl").read_text().splitlines()]
    assert [r["id"] for r in records] == ["1", "2", "3"]
    assert records[1]["fluency"]["value"] == 3.0
    assert records[1]["fluency"]["details"]["panel_answered"] == 3
    summary = json.loads((out / "summary.json").read_text())
    assert summary["panel"]["usage"]["fake:a"]["cache_hits"] == 1
    assert summary["panel"]["usage"]["fake:c"]["requests"] == 1
    assert summary["panel"]["agreement"]["fluency"]["rows"] == 3
    assert summary["failures"]["by_metric"]["fluency (fake:c)"]["failed"] == 0


def test_a_row_every_judge_leaves_unscored_for_the_same_reason_keeps_that_reason() -> None:
    from assay.metrics import MetricResult
    from assay.run._panel import combine_panel

    same = combine_panel({"a": MetricResult.unscored("conversation has no assistant turn"),
                          "b": MetricResult.unscored("conversation has no assistant turn")})
    assert same.error == "conversation has no assistant turn"
    mixed = combine_panel({"a": MetricResult.unscored("judge answer is not a valid rating"),
                           "b": MetricResult.unscored("judge call failed: HTTP 503: down")})
    assert mixed.error == "judge call failed: HTTP 503: down"  # resume asks again
    assert mixed.details["panel"]["a"]["error"] == "judge answer is not a valid rating"


def test_cli_panel_table_on_an_80_column_terminal_wraps_instead_of_cutting(
        tmp_path: Path, cli_judges: dict[str, list[str]], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "80")
    CLI_SCRIPT.update(a={"1": 5, "2": 4}, b={"1": 4, "2": 4}, c={"1": 3, "2": 1})
    res = CliRunner().invoke(app, [
        "run", str(_write_rows(tmp_path, 2)), "--metrics", "fluency,coherence",
        "--judge", "fake:a", "--judge", "fake:b", "--judge", "fake:c", "--no-store",
        "--no-progress", "--no-cache", "--out", str(tmp_path / "out")])
    assert res.exit_code == 0, res.output
    panel = res.output[res.output.index("panel of 3 judges"):]
    assert "…" not in panel
    assert all(re.search(rf"^fake:{name}\b", panel, re.MULTILINE) for name in "abc")
