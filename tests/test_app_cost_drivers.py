"""Every command that drives the app keeps the app's own cost apart from its models' (the
judge, the simulated user): ``assay jailbreak``, ``assay simulate`` (harmful seeds and
simulated users) and ``assay robustness``, each with a Python app that returns its usage; and
``assay compare`` puts the app's cost difference beside the judge's."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

import assay.redteam._jailbreak as jb
from assay.cli.main import app
from assay.compare._cost_diff import cost_comparison
from assay.costs import PriceBook, cost_diff_line
from assay.judges import FakeJudge, JudgeRequest
from assay.metrics.safety import CATEGORIES
from assay.records import RunData

#: A chat app that answers every turn with gpt-4o-mini's usage of 200 prompt (50 of them read
#: from the cache) and 40 completion tokens.
APP = ("def app(messages):\n"
       "    return {'reply': 'I cannot help with that.', 'model': 'gpt-4o-mini', 'usage': {\n"
       "        'prompt_tokens': 200, 'completion_tokens': 40,\n"
       "        'prompt_tokens_details': {'cached_tokens': 50}}}\n")
#: genai-prices' gpt-4o-mini prices: input, cache read, output, dollars per million tokens.
PER_CALL = (150 * 0.15 + 50 * 0.075 + 40 * 0.6) / 1e6


def _invoke(*args: str | Path) -> Any:
    result = CliRunner().invoke(app, list(map(str, args)))
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result


def _assert_app_cost(app_cost: dict[str, Any], calls: int, target: str) -> None:
    assert (app_cost["model"], app_cost["target"]) == ("gpt-4o-mini", target)
    assert (app_cost["requests"], app_cost["prompt_tokens"], app_cost["completion_tokens"],
            app_cost["cached_tokens"]) == (calls, 200 * calls, 40 * calls, 50 * calls)
    assert app_cost["usd"] == pytest.approx(calls * PER_CALL, rel=0, abs=1e-12)


def _safety_judge(request: JudgeRequest) -> str:
    if request.schema_name == "verdict":
        return "Yes. It declines."
    return json.dumps({c: {"severity": 0, "reason": "scripted"} for c in CATEGORIES})


def test_jailbreak_prices_the_apps_calls_on_both_sides_apart_from_the_judge(
        tmp_path: Path, module: Callable[[str], str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(jb, "make_judge", lambda spec, **kw: FakeJudge(_safety_judge))
    name = module(APP)
    out = tmp_path / "jb"
    result = _invoke("jailbreak", "--target", f"python:{name}:app", "--n", "3", "--judge",
                     "fake", "--out", out)
    assert result.exit_code == 0, result.output
    report = json.loads((out / "jailbreak.json").read_text())
    _assert_app_cost(report["cost"]["app"], 6, f"python:{name}:app")  # 3 seeds, 2 sides
    # the judge's total is its two sides' ratings alone, as before
    assert report["cost"]["by_side"]["plain"]["usd"] == report["cost"]["by_side"]["plain"][
        "by_judge"]["fake"]["usd"]
    rows = [json.loads(line) for line in (out / "plain.jsonl").read_text().splitlines()]
    assert rows[0]["app_usage"]["by_model"]["gpt-4o-mini"]["requests"] == 1
    assert "; app $" in " ".join(result.output.split())


def test_simulate_with_harmful_seeds_writes_the_apps_cost_in_its_summary(
        tmp_path: Path, module: Callable[[str], str]) -> None:
    name = module(APP)
    out = tmp_path / "sim.jsonl"
    result = _invoke("simulate", "--target", f"python:{name}:app", "--n", "2", "--turns", "2",
                     "--out", out, "--no-store")
    assert result.exit_code == 0, result.output
    summary = json.loads((tmp_path / "sim.summary.json").read_text())
    _assert_app_cost(summary["cost"]["app"], 4, f"python:{name}:app")  # 2 seeds, 2 turns
    assert summary["cost"]["usd"] == 0.0 and summary["cost"]["by_judge"] == {}


def test_simulated_users_keep_the_apps_cost_apart_from_the_simulated_users(
        tmp_path: Path, module: Callable[[str], str]) -> None:
    from assay.scenarios import simulate_users
    from simulated_user_judge import scripted_user

    name = module(
        "def agent(messages, tools):\n"
        "    return {'reply': [{'role': 'assistant', 'content': 'Order A1005 has shipped.'}],\n"
        "            'model': 'gpt-4o-mini', 'usage': {'prompt_tokens': 200,\n"
        "            'completion_tokens': 40, 'prompt_tokens_details': {'cached_tokens': 50}}}\n")
    order = {"id": "order", "goal": "Find out whether my tent order has shipped.",
             "facts": ["My order number is A1005."]}
    result = simulate_users([order], out=tmp_path / "sim.jsonl", user_model=scripted_user(),
                            target=f"python:{name}:agent", cache=False)
    turns = result.rows[0]["simulation"]["app_usage"]["calls"]
    assert turns >= 1
    _assert_app_cost(result.summary["cost"]["app"], turns, f"python:{name}:agent")
    assert result.summary["cost"]["simulated_user"]["model"] == "fake:user"


def test_robustness_writes_each_answers_usage_and_the_apps_cost(
        tmp_path: Path, module: Callable[[str], str]) -> None:
    name = module(
        "def app(question, passages):\n"
        "    return {'reply': passages[0], 'model': 'gpt-4o-mini', 'usage': {\n"
        "        'prompt_tokens': 200, 'completion_tokens': 40,\n"
        "        'prompt_tokens_details': {'cached_tokens': 50}}}\n")
    data = Path(__file__).resolve().parents[2] / "shared" / "data" / "rgb" / "en_fact.json"
    if not data.exists():
        pytest.skip(f"{data} not found (../shared must sit beside the checkout)")
    out = tmp_path / "rob"
    result = _invoke("robustness", data, "--target", f"python:{name}:app", "--suite", "noise",
                     "--noise-ratios", "0", "--limit", "2", "--out", out, "--no-store")
    assert result.exit_code in (0, 3), result.output
    summary = json.loads((out / "summary.json").read_text())
    records = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    _assert_app_cost(summary["cost"]["app"], len(records), f"python:{name}:app")


def test_compare_puts_the_apps_cost_difference_beside_the_judges() -> None:
    def run(run_id: str, app_tokens: int) -> RunData:
        record = {"id": "1", "agent": {"target": "openai:gpt-4o-mini", "app_usage": {
            "target": "openai:gpt-4o-mini", "calls": 1, "without_usage": 0, "by_model": {
                "openai:gpt-4o-mini": {"requests": 1, "prompt_tokens": app_tokens}}}},
            "fluency": {"value": 4.0, "details": {"usage": {
                "openai:gpt-4o": {"requests": 1, "prompt_tokens": 1_000_000}}}}}
        return RunData(run_id, {"cost": {}}, [record])

    cost = cost_comparison(run("a", 1_000_000), run("b", 2_000_000), PriceBook.load())
    assert (cost["usd_a"], cost["usd_b"], cost["diff"]) == (2.5, 2.5, 0.0)  # the judge's
    assert cost["app"] == {"usd_a": 0.15, "usd_b": 0.3, "diff": 0.15, "unknown_reason": None}
    assert cost_diff_line(cost).endswith("; app A $0.150, B $0.300, diff +$0.150")
    assert cost_diff_line(cost).startswith("cost: judge A $2.50, B $2.50, diff $0")


def test_a_multi_turn_attack_prices_the_apps_calls_apart_from_attacker_and_scorer(
        tmp_path: Path) -> None:
    import asyncio

    from assay.redteam import attack
    from assay.targets import PythonTarget

    def app_fn(messages: list[dict[str, str]]) -> dict[str, Any]:
        return {"reply": "I'm sorry, I can't help with that.", "model": "gpt-4o-mini",
                "usage": {"prompt_tokens": 200, "completion_tokens": 40,
                          "prompt_tokens_details": {"cached_tokens": 50}}}

    def judge(request: JudgeRequest) -> str:
        if request.schema_name == "attack_pair":
            return '{"improvement": "reword", "prompt": "Please, as a story."}'
        return _safety_judge(request)

    target = PythonTarget(app_fn)
    out = tmp_path / "attack"
    report = asyncio.run(attack(target, strategy="pair", turns=2, n=2, judge=FakeJudge(judge),
                                out=out, cache=False))
    rows = [json.loads(line) for side in ("plain", "pair")
            for line in (out / f"{side}.jsonl").read_text().splitlines()]
    calls = sum(len(r["exchanges"]) for r in rows)
    assert calls == 6  # 2 seeds asked plain once, then 2 attempts each
    _assert_app_cost(report["cost"]["app"], calls, target.id)
    assert report["cost"]["attacker"]["model"] == "fake" and "fake" in report["cost"]["by_judge"]
    assert all(r["app_usage"]["calls"] == len(r["exchanges"]) for r in rows)
