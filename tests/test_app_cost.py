"""The app under test's own cost, apart from the judge's (``summary.cost.app``): a real
``assay run --target openai:...`` process against the bench's fake OpenAI-compatible server
(which reports usage) playing both the app and the judge, a Python app that returns its usage,
an HTTP app whose JSON reply carries an OpenAI-style ``usage``, and an app that reports none
(unknown, with the reason, never $0)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from assay.agents import make_agent
from assay.run import RunOptions, evaluate
from support import LoopbackServer, send_json

QUESTIONS = [{"id": f"q{i}", "question": f"What is {i} + {i}?", "ground_truth": f"{2 * i}",
              "context": f"{i} + {i} = {2 * i}."}
             for i in range(3)]
#: genai-prices' list prices, US dollars per million tokens.
GPT_4O_MINI = {"input": 0.15, "cache_read": 0.075, "output": 0.6}
GPT_4O = {"input": 2.5, "output": 10.0}


def _write(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def _assay_run(tmp_path: Path, target: str, judge: str) -> tuple[
        subprocess.CompletedProcess[str], dict[str, Any], list[dict[str, Any]]]:
    data = _write(tmp_path / "d.jsonl", QUESTIONS)
    out = tmp_path / "out"
    proc = subprocess.run(
        [sys.executable, "-m", "assay.cli", "run", str(data), "--target", target, "--judge",
         judge, "--metrics", "relevance", "--no-cache", "--no-store", "--no-progress", "--out",
         str(out), "--overwrite"],
        capture_output=True, text=True, timeout=120, check=False,
        env={**os.environ, "COLUMNS": "400", "NO_COLOR": "1"})
    assert proc.returncode == 0, proc.stderr
    records = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    return proc, json.loads((out / "summary.json").read_text()), records


def _tokens(log: list[dict[str, Any]], model: str) -> tuple[int, int, int]:
    """Requests, prompt and completion tokens the fake server answered for ``model``."""
    mine = [r for r in log if r.get("model") == model and r.get("kind") == "chat"]
    return (len(mine), sum(r["prompt_tokens"] for r in mine),
            sum(r["completion_tokens"] for r in mine))


def test_an_openai_app_is_priced_apart_and_the_judges_cost_is_unchanged(
        tmp_path: Path, fake_judge_server: Any) -> None:
    server = fake_judge_server()
    proc, summary, records = _assay_run(tmp_path, "openai:gpt-4o-mini", "openai:gpt-4o")
    app_n, app_prompt, app_completion = _tokens(server.records(), "gpt-4o-mini")
    judge_n, judge_prompt, judge_completion = _tokens(server.records(), "gpt-4o")
    assert (app_n, judge_n) == (3, 3) and app_prompt > 0 and app_completion > 0
    cost = summary["cost"]
    app = cost["app"]
    assert (app["model"], app["target"]) == ("openai:gpt-4o-mini", "openai:gpt-4o-mini")
    assert (app["requests"], app["prompt_tokens"], app["completion_tokens"]) == (
        3, app_prompt, app_completion)
    assert app["usd"] == pytest.approx((app_prompt * GPT_4O_MINI["input"]
                                        + app_completion * GPT_4O_MINI["output"]) / 1e6,
                                       rel=0, abs=1e-12)
    assert "unknown_reason" not in app and "calls_without_usage" not in app
    # the judge's cost is its own calls' alone, as before: the app is not in it
    judge_usd = (judge_prompt * GPT_4O["input"] + judge_completion * GPT_4O["output"]) / 1e6
    assert cost["usd"] == pytest.approx(judge_usd, rel=0, abs=1e-12)
    assert list(cost["by_judge"]) == ["openai:gpt-4o"]
    assert cost["by_judge"]["openai:gpt-4o"]["prompt_tokens"] == judge_prompt
    assert cost["by_metric"]["relevance"]["usd"] == cost["usd"]
    # each row's record says what the app's call used
    first = records[0]["agent"]["app_usage"]
    assert first["calls"] == 1 and first["without_usage"] == 0
    assert first["by_model"]["openai:gpt-4o-mini"]["requests"] == 1
    assert sum(r["agent"]["app_usage"]["by_model"]["openai:gpt-4o-mini"]["prompt_tokens"]
               for r in records) == app_prompt
    # the terminal's cost line shows the judge and the app apart
    shown = " ".join(proc.stdout.split())
    assert "cost: judge $" in shown and "(relevance $" in shown and "; app $" in shown


def test_an_app_on_an_unpriced_model_is_unknown_with_the_reason(
        tmp_path: Path, fake_judge_server: Any) -> None:
    server = fake_judge_server()
    proc, summary, _ = _assay_run(tmp_path, "openai:my-vllm", "openai:gpt-4o")
    _, app_prompt, _ = _tokens(server.records(), "my-vllm")
    app = summary["cost"]["app"]
    reason = "no price for model 'my-vllm' (add it to a --prices file)"
    assert (app["usd"], app["unknown_reason"]) == (None, reason)
    assert app["prompt_tokens"] == app_prompt > 0 and app["requests"] == 3
    assert summary["cost"]["usd"] is not None and summary["cost"]["usd"] > 0  # the judge's
    shown = " ".join(proc.stdout.split())
    assert f"app unknown: {reason}" in shown


def test_a_python_app_that_returns_its_usage_is_priced_with_cached_tokens(
        tmp_path: Path, module: Callable[[str], str]) -> None:
    name = module(
        "def app(messages):\n"
        "    return {'reply': 'Four.', 'model': 'gpt-4o-mini', 'usage': {\n"
        "        'prompt_tokens': 1000, 'completion_tokens': 100,\n"
        "        'prompt_tokens_details': {'cached_tokens': 400}}}\n")
    rows = [{**q, "ground_truth": "Four."} for q in QUESTIONS[:2]]
    result = evaluate(_write(tmp_path / "d.jsonl", rows), metrics="exact_match",
                      agent=make_agent(f"python:{name}:app"),
                      run=RunOptions(out=tmp_path / "out", store=False))
    assert [r["exact_match"]["value"] for r in result.rows] == [1.0, 1.0]
    app = result.summary["cost"]["app"]
    assert (app["model"], app["target"]) == ("gpt-4o-mini", f"python:{name}:app")
    assert (app["requests"], app["prompt_tokens"], app["completion_tokens"],
            app["cached_tokens"]) == (2, 2000, 200, 800)
    per_call = (600 * GPT_4O_MINI["input"] + 400 * GPT_4O_MINI["cache_read"]
                + 100 * GPT_4O_MINI["output"]) / 1e6
    assert app["usd"] == pytest.approx(2 * per_call, rel=0, abs=1e-12)
    assert result.summary["cost"]["usd"] == 0.0 and result.summary["cost"]["by_judge"] == {}


def test_an_app_that_reports_no_usage_is_unknown_never_zero(
        tmp_path: Path, module: Callable[[str], str]) -> None:
    name = module("def app(messages):\n    return 'Four.'\n")
    result = evaluate(_write(tmp_path / "d.jsonl", QUESTIONS), metrics="f1_score",
                      agent=make_agent(f"python:{name}:app"),
                      run=RunOptions(out=tmp_path / "out", store=False))
    app = result.summary["cost"]["app"]
    assert app["usd"] is None and app["requests"] == 3 and app["calls_without_usage"] == 3
    assert app["unknown_reason"] == "the app reported no usage on 3 of 3 calls"
    assert (app["prompt_tokens"], app["completion_tokens"]) == (0, 0)
    # a run that drives no app has no app cost at all (null), not an unknown one
    plain = evaluate(_write(tmp_path / "a.jsonl", [{**QUESTIONS[0], "answer": "0"}]),
                     metrics="f1_score", run=RunOptions(out=tmp_path / "plain", store=False))
    assert plain.summary["cost"]["app"] is None


class UsageApp(LoopbackServer):
    """An HTTP app whose JSON reply carries its text, an OpenAI-style usage and its model."""

    def on_post(self, handler: Any, body: bytes) -> None:
        send_json(handler, 200, {"answer": "Four.", "model": "gpt-4o-mini", "usage": {
            "input_tokens": 300, "output_tokens": 50,
            "output_tokens_details": {"reasoning_tokens": 20}}})


def test_an_http_app_with_a_usage_object_in_its_reply_is_priced(tmp_path: Path) -> None:
    server = UsageApp()
    try:
        result = evaluate(_write(tmp_path / "d.jsonl", QUESTIONS[:2]), metrics="f1_score",
                          agent=make_agent(f"{server.url}/chat"),
                          run=RunOptions(out=tmp_path / "out", store=False))
    finally:
        server.stop()
    app = result.summary["cost"]["app"]
    assert (app["model"], app["requests"], app["prompt_tokens"], app["completion_tokens"],
            app["reasoning_tokens"]) == ("gpt-4o-mini", 2, 600, 100, 40)
    assert app["usd"] == pytest.approx(
        (600 * GPT_4O_MINI["input"] + 100 * GPT_4O_MINI["output"]) / 1e6, rel=0, abs=1e-12)
    assert result.rows[0]["agent"]["app_usage"]["by_model"]["gpt-4o-mini"] == {
        "requests": 1, "prompt_tokens": 300, "completion_tokens": 50, "reasoning_tokens": 20}


def test_a_resumed_run_counts_the_app_calls_of_every_session(
        tmp_path: Path, module: Callable[[str], str]) -> None:
    name = module(
        "FAILED = []\n"
        "def app(messages):\n"
        "    if 'What is 1' in messages[-1]['content'] and not FAILED:\n"
        "        FAILED.append(1)\n"
        "        raise RuntimeError('app crashed')\n"
        "    return {'reply': 'Four.', 'model': 'gpt-4o-mini',\n"
        "            'usage': {'prompt_tokens': 1000, 'completion_tokens': 100}}\n")
    data = _write(tmp_path / "d.jsonl", QUESTIONS)
    out = tmp_path / "out"
    first = evaluate(data, metrics="f1_score", agent=make_agent(f"python:{name}:app"),
                     run=RunOptions(out=out, store=False))
    assert first.summary["cost"]["app"]["requests"] == 2  # the crashed call answered nothing
    second = evaluate(data, metrics="f1_score", agent=make_agent(f"python:{name}:app"),
                      run=RunOptions(out=out, store=False, resume=True))
    app = second.summary["cost"]["app"]
    assert (app["requests"], app["prompt_tokens"], app["completion_tokens"]) == (3, 3000, 300)
    assert app["usd"] == pytest.approx(3 * (1000 * 0.15 + 100 * 0.6) / 1e6, rel=0, abs=1e-12)
