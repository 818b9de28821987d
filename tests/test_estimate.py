"""``assay run --estimate``: a run's judge requests planned and counted, none sent."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import types
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from assay.calls import placeholder_answer, prompt_tokens, token_counter
from assay.calls._placeholder import STATEMENT
from assay.cli._estimate_plan import estimate_async
from assay.cli.main import app
from assay.judges import FakeJudge, JudgeCapabilities, JudgeRequest
from assay.run import JudgeOptions, RunOptions, evaluate
from support import LoopbackServer, send_json

ROWS = [
    {"id": "a", "question": "How heavy is the SkyView 2?", "answer": "It weighs 1.3 kg.",
     "context": "SkyView 2 Tent: 2-person ultralight tent; packed weight 1.3 kg."},
    {"id": "b", "question": "Is the X4 a winter tent?", "answer": "No, it is a 3-season tent.",
     "context": "TrailMaster X4: 3-season dome tent, not rated for heavy snow loads."},
    {"id": "c", "question": "Which tent is lightest?", "answer": "The SkyView 2, at 1.3 kg.",
     "context": "SkyView 2: 1.3 kg. TrailMaster X4: 4.1 kg. Alpine Explorer: 3.6 kg."},
]
METRICS = "fluency,groundedness,faithfulness,hate_unfairness,violence"


def _write(tmp_path: Path, rows: list[dict[str, Any]] = ROWS) -> Path:
    data = tmp_path / "rows.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return data


class _RefusingJudge(LoopbackServer):
    """An OpenAI-style endpoint that counts every request: an estimate must send none."""

    def __init__(self) -> None:
        self.posts: list[str] = []
        super().__init__()

    def on_post(self, handler: Any, body: bytes) -> None:
        self.posts.append(handler.path)
        send_json(handler, 500, {"error": {"message": "an estimate must not call the judge"}})


def _assay(*args: str | Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    src = str(Path(__file__).resolve().parents[1] / "src")
    env = {**os.environ, "PYTHONPATH": src, "OPENAI_API_KEY": "sk-test-not-a-secret"}
    return subprocess.run([sys.executable, "-m", "assay", *map(str, args)], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=120, check=False)


def test_estimate_sends_nothing_prints_the_figures_and_exits_0(tmp_path: Path) -> None:
    prices = tmp_path / "prices.toml"  # a self-hosted endpoint is priced by the user's file
    prices.write_text('[models.gpt-4o-mini]\ninput = 0.15\noutput = 0.6\n', encoding="utf-8")
    server = _RefusingJudge()
    try:
        got = _assay("run", _write(tmp_path), "--metrics", METRICS, "--judge",
                     f"openai:gpt-4o-mini@{server.base_url}", "--no-store", "--tpm", "60000",
                     "--prices", prices, "--estimate", "--json", "-", cwd=tmp_path)
    finally:
        server.stop()
    assert got.returncode == 0, got.stderr
    assert server.posts == []  # nothing sent
    assert not (tmp_path / "assay-out").exists()  # no run started: no folder claimed
    estimate = json.loads(got.stdout)
    for key in ("requests", "prompt_tokens", "completion_tokens", "usd", "seconds_at_limits"):
        assert set(estimate[key]) == {"low", "expected", "high"}, key
        assert estimate[key]["low"] <= estimate[key]["expected"] <= estimate[key]["high"], key
    assert estimate["rows"] == 3 and estimate["unknown_reason"] is None
    assert estimate["usd"]["expected"] > 0
    (judge,) = estimate["by_judge"].values()
    assert judge["price_source"] == f"price file {prices}"
    assert "sk-test-not-a-secret" not in got.stdout + got.stderr
    assert "estimate for 3 row(s), nothing sent" in got.stderr
    assert "approximate: ceil(chars / 4)" in got.stderr  # says how it counted
    assert "time at limits" in got.stderr and "60,000 tokens a minute" in got.stderr


def _scripted(request: JudgeRequest) -> str:
    """A judge that answers like a real one, one statement per decomposition."""
    return placeholder_answer(request.json_schema, items=1).replace(STATEMENT, "It is so.")


def test_expected_figures_match_a_scripted_run(tmp_path: Path) -> None:
    judge = FakeJudge(_scripted)  # a first run: its cache starts empty
    evaluate(ROWS, metrics=METRICS, judge=judge, judging=JudgeOptions(cache=tmp_path / "c"),
             run=RunOptions(store=None))
    counter = token_counter("fake")
    sent_prompt = sum(prompt_tokens(r, counter) for r in judge.requests)
    estimate = asyncio.run(estimate_async(ROWS, metrics=METRICS, judge=FakeJudge(),
                                          cache=tmp_path / "fresh"))
    assert estimate.total.requests.expected == len(judge.requests) == 15
    assert abs(estimate.total.prompt_tokens.expected - sent_prompt) <= 0.02 * sent_prompt
    assert estimate.by_kind["rating"].requests.as_dict() == {"low": 6, "expected": 6,
                                                             "high": 6}  # fluency, groundedness
    # without a cache, identical requests share a call only while in flight: this judge
    # answers at once, so the four severities' combined request is sent for each metric
    uncached = FakeJudge(_scripted)
    evaluate(ROWS, metrics=METRICS, judge=uncached, judging=JudgeOptions(cache=None),
             run=RunOptions(store=None))
    estimate = asyncio.run(estimate_async(ROWS, metrics=METRICS, judge=FakeJudge(), cache=None))
    assert estimate.total.requests.expected <= len(uncached.requests) == 18
    assert estimate.total.requests.high == 18


def test_unknown_price_is_unknown_with_the_reason_never_zero(tmp_path: Path) -> None:
    result = CliRunner().invoke(app, [
        "run", str(_write(tmp_path)), "--metrics", "fluency", "--judge",
        "openai:my-vllm@http://127.0.0.1:9/v1", "--estimate", "--json", "-"])
    assert result.exit_code == 0, result.output
    out = result.stdout
    estimate = json.loads(out[out.index("{"):out.rindex("}") + 1])
    assert estimate["usd"] is None
    assert "no price for model 'my-vllm'" in estimate["unknown_reason"]
    assert "cost (USD)        unknown: no price for model 'my-vllm'" in result.output
    assert "$0.0000" not in result.output


def test_the_embedded_judge_is_free_and_says_so() -> None:
    estimate = asyncio.run(estimate_async(ROWS[:1], metrics="fluency", judge="local",
                                          cache=None))
    (judge,) = estimate.as_dict()["by_judge"].values()
    assert judge["usd"] == {"low": 0.0, "expected": 0.0, "high": 0.0}
    assert judge["price_source"] == "embedded judge: free"


def test_answers_in_the_judge_cache_are_free_and_measured(tmp_path: Path) -> None:
    cache = tmp_path / "cache.sqlite"
    evaluate(ROWS, metrics=METRICS, judge=FakeJudge(_scripted), judging=JudgeOptions(cache=cache),
             run=RunOptions(store=None))
    estimate = asyncio.run(estimate_async(ROWS, metrics=METRICS, judge=FakeJudge(),
                                          cache=cache))
    assert estimate.total.requests.expected == 0  # every request, follow-ups too, is cached
    assert estimate.total.cached > 0


def test_a_sample_is_scaled_to_the_dataset() -> None:
    rows = [dict(ROWS[0], id=str(i)) for i in range(4)]
    whole = asyncio.run(estimate_async(rows, metrics="fluency", judge=FakeJudge(), cache=None))
    sampled = asyncio.run(estimate_async(rows, metrics="fluency", judge=FakeJudge(), cache=None,
                                         sample=1))
    assert sampled.rows == 4
    assert sampled.total.prompt_tokens.expected == whole.total.prompt_tokens.expected
    assert sampled.notes[0] == "from the first 1 of 4 rows, scaled"


@pytest.mark.parametrize("value", ["-1", "many"])
def test_a_bad_estimate_over_is_a_usage_error(tmp_path: Path, value: str) -> None:
    result = CliRunner().invoke(app, ["run", str(_write(tmp_path)), "--estimate-over", value])
    assert result.exit_code == 2
    assert "--estimate-over" in result.output
    assert "Traceback" not in result.output


def test_json_without_estimate_is_a_usage_error(tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["run", str(_write(tmp_path)), "--metrics", "fluency",
                                      "--judge", "fake", "--json", "-", "--no-store"])
    assert result.exit_code == 2
    assert "give --estimate too" in result.output


def test_a_run_over_the_size_prints_the_estimate_first_unless_told_not_to(
        tmp_path: Path, judge_calls: list[object]) -> None:
    data = _write(tmp_path)
    args = ["run", str(data), "--metrics", "fluency", "--judge", "fake", "--no-store", "-q",
            "--estimate-over", "2"]
    first = CliRunner().invoke(app, [*args, "--out", str(tmp_path / "a")])
    assert first.exit_code == 0, first.output
    assert "estimate for 3 row(s)" in first.output and "the run starts now" in first.output
    assert len(judge_calls) == 3  # then the run itself
    skipped = CliRunner().invoke(app, [*args, "--no-estimate", "--out", str(tmp_path / "b")])
    assert skipped.exit_code == 0 and "estimate for" not in skipped.output
    small = CliRunner().invoke(app, [*args[:-1], "3", "--out", str(tmp_path / "c")])
    assert small.exit_code == 0 and "estimate for" not in small.output


def test_an_offline_encoding_counts_exactly(monkeypatch: pytest.MonkeyPatch) -> None:
    fake = types.ModuleType("bpe_openai")
    fake.get_encoding = lambda name: types.SimpleNamespace(  # type: ignore[attr-defined]
        encode=lambda text: text.split())
    monkeypatch.setitem(sys.modules, "bpe_openai", fake)
    counter = token_counter("gpt-4o-mini")
    assert counter.exact and counter.count("three small words") == 3
    assert "o200k_base" in counter.note
    assert not token_counter("my-vllm").exact


def test_placeholder_answers_follow_the_schema() -> None:
    caps = JudgeCapabilities()
    assert caps.local is False
    schema = {"type": "object", "properties": {
        "verdicts": {"type": "array", "items": {"type": "object", "properties": {
            "verdict": {"type": "string", "enum": ["supported", "unsupported"]},
            "reason": {"type": "string"}}}}}}
    answer = json.loads(placeholder_answer(schema, items=3))
    assert [v["verdict"] for v in answer["verdicts"]] == ["supported"] * 3


def test_with_an_app_under_test_rows_without_answers_are_estimated() -> None:
    rows = [{"id": "q", "question": "How heavy is it?", "ground_truth": "1.3 kg.",
             "context": "It weighs 1.3 kg."}]
    estimate = asyncio.run(estimate_async(rows, metrics="fluency,groundedness",
                                          judge=FakeJudge(), cache=None, app=True))
    assert estimate.total.requests.expected == 2  # judged as the app will answer


def test_a_panel_is_estimated_per_judge_and_a_repeat_multiplies() -> None:
    estimate = asyncio.run(estimate_async(ROWS, metrics="fluency", judge=["fake:a", "fake:b"],
                                          cache=None, repeat=3))
    figures = estimate.as_dict()
    assert sorted(figures["by_judge"]) == ["fake:a", "fake:b"]
    assert figures["requests"]["expected"] == 2 * 3 * 3  # judges x rows x repeats
    assert figures["usd"] is None and "fake" in figures["unknown_reason"]


def test_bad_data_is_told_with_its_line_and_nothing_is_estimated(tmp_path: Path) -> None:
    data = tmp_path / "bad.jsonl"
    data.write_text('{"question": "Q?", "answer": "A."}\n{"question": \n', encoding="utf-8")
    result = CliRunner().invoke(app, ["run", str(data), "--judge", "fake", "--estimate"])
    assert result.exit_code == 2
    assert "line 2" in result.output and "Traceback" not in result.output
