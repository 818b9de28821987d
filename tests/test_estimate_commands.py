"""``--estimate`` of ``assay generate``, ``assay simulate`` and ``assay jailbreak``: the
requests planned and counted per role, none sent."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from assay.agents import AgentRunner
from assay.calls import prompt_tokens, token_counter
from assay.cli._estimate_generate import estimate_generate
from assay.cli._estimate_simulate import estimate_scenarios
from assay.cli._estimate_talk import APP_REPLY, USER_MESSAGE
from assay.cli.main import app
from assay.judges import FakeJudge
from assay.redteam import FunctionTarget
from assay.scenarios import simulate_users
from support import LoopbackServer, send_json

DOC = ("# Returns\n\nRefunds are paid within 14 days of the return. Shipping is free on orders "
       "over 50 euros. The store opens at nine in the morning on weekdays.\n\n## Care\n\n"
       "Tents should be dried before they are packed away. Seams can be sealed again with the "
       "kit that comes with every tent.\n")
SCENARIOS = [{"id": "s1", "goal": "Find out where order A1005 is.", "max_turns": 3},
             {"id": "s2", "goal": "Get a refund for a broken tent.", "facts": ["order A1006"]}]
FIGURES = ("requests", "prompt_tokens", "completion_tokens")


class _CountingEndpoint(LoopbackServer):
    """An OpenAI-style endpoint that counts every request: an estimate must send none."""

    def __init__(self) -> None:
        self.posts: list[str] = []
        super().__init__()

    def on_post(self, handler: Any, body: bytes) -> None:
        self.posts.append(handler.path)
        send_json(handler, 500, {"error": {"message": "an estimate must not send anything"}})


@pytest.fixture
def endpoint(monkeypatch: pytest.MonkeyPatch) -> Any:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-a-secret")
    server = _CountingEndpoint()
    yield server
    server.stop()


def _inputs(tmp_path: Path) -> dict[str, Path]:
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "faq.md").write_text(DOC, encoding="utf-8")
    scenarios = tmp_path / "scenarios.jsonl"
    scenarios.write_text("".join(json.dumps(s) + "\n" for s in SCENARIOS), encoding="utf-8")
    prices = tmp_path / "prices.toml"  # a self-hosted endpoint is priced by the user's file
    prices.write_text('[models.gpt-4o-mini]\ninput = 0.15\noutput = 0.6\n', encoding="utf-8")
    return {"docs": tmp_path / "docs", "scenarios": scenarios, "prices": prices}


def _commands(model: str, files: dict[str, Path], out: Path) -> dict[str, list[str]]:
    return {
        "generate": ["generate", str(files["docs"]), "--out", str(out / "qa.jsonl"), "--n", "3",
                     "--judge", model, "--no-store"],
        "simulate": ["simulate", "--scenarios", str(files["scenarios"]), "--target", model,
                     "--judge", model, "--out", str(out / "sim.jsonl"), "--no-store"],
        "simulate-seeds": ["simulate", "--target", model, "--n", "3", "--turns", "2",
                           "--out", str(out / "seeds.jsonl"), "--no-store"],
        "jailbreak": ["jailbreak", "--target", model, "--judge", model, "--n", "2",
                      "--out", str(out / "jb"), "--no-store"],
        "crescendo": ["jailbreak", "--target", model, "--judge", model, "--n", "2",
                      "--strategy", "crescendo", "--turns", "2", "--out", str(out / "cr"),
                      "--no-store"],
    }


ROLES = {"generate": {"judge"}, "simulate": {"simulated_user", "app"},
         "simulate-seeds": {"app"}, "jailbreak": {"judge", "app"},
         "crescendo": {"judge", "attacker", "app"}}


def _json_of(output: str) -> dict[str, Any]:
    return json.loads(output[output.index("{"):output.rindex("}") + 1])  # type: ignore[no-any-return]


@pytest.mark.parametrize("command", list(ROLES))
def test_estimate_sends_nothing_and_prints_each_role(tmp_path: Path, endpoint: Any,
                                                     command: str) -> None:
    files = _inputs(tmp_path)
    args = _commands(f"openai:gpt-4o-mini@{endpoint.base_url}", files, tmp_path / "out")[command]
    result = CliRunner().invoke(app, [*args, "--prices", str(files["prices"]), "--tpm", "60000",
                                      "--estimate", "--json", "-"]
                                if command != "simulate-seeds" else
                                [*args, "--prices", str(files["prices"]), "--estimate",
                                 "--json", "-"])
    assert result.exit_code == 0, result.output
    assert endpoint.posts == []  # nothing sent
    assert not (tmp_path / "out").exists()  # no run started: nothing written
    estimate = _json_of(result.stdout)
    assert set(estimate["by_role"]) == ROLES[command]
    for key in (*FIGURES, "usd"):
        span = estimate[key]
        assert span["low"] <= span["expected"] <= span["high"], (key, span)
    assert estimate["requests"]["expected"] > 0 and estimate["usd"]["expected"] > 0
    for role in estimate["by_role"].values():
        assert role["model"].startswith("openai:gpt-4o-mini@")
        assert role["price_source"] == f"price file {files['prices']}"
    total = sum(r["requests"]["expected"] for r in estimate["by_role"].values())
    assert total == estimate["requests"]["expected"]
    for label in ("requests", "prompt tokens", "completion tokens", "cost (USD)"):
        assert label in result.output
    assert "nothing sent (low / expected / high)" in result.output
    assert "sk-test-not-a-secret" not in result.output


@pytest.mark.parametrize("command", ["generate", "simulate", "jailbreak"])
def test_an_unknown_price_is_unknown_never_zero(tmp_path: Path, endpoint: Any,
                                                command: str) -> None:
    files = _inputs(tmp_path)  # no --prices: a model at a URL of its own has no known price
    args = _commands(f"openai:gpt-4o-mini@{endpoint.base_url}", files, tmp_path / "out")[command]
    result = CliRunner().invoke(app, [*args, "--estimate", "--json", "-"])
    assert result.exit_code == 0, result.output
    assert endpoint.posts == []
    estimate = _json_of(result.stdout)
    assert estimate["usd"] is None
    assert "no price for model" in estimate["unknown_reason"]
    assert "cost (USD)        unknown: no price for model" in result.output
    assert "$0.0000" not in result.output


def test_an_app_assay_does_not_see_is_unknown_not_free(tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["simulate", "--target", "python:examples.apps:toy_app",
                                      "--n", "2", "--estimate"])
    assert result.exit_code == 0, result.output
    assert "unknown: the app's own model calls (python:examples.apps:toy_app)" in result.output
    assert "$0.0000" not in result.output


@pytest.mark.parametrize(("command", "missing"), [
    (["generate", "{tmp}/no-such-docs", "--out", "{tmp}/qa.jsonl"], "no-such-docs"),
    (["simulate", "--scenarios", "{tmp}/no-such.jsonl", "--target", "{model}",
      "--judge", "{model}"], "no-such.jsonl"),
    (["jailbreak", "--target", "{model}", "--judge", "{model}", "--seeds",
      "{tmp}/no-such-seeds.jsonl"], "no-such-seeds.jsonl"),
])
def test_a_missing_file_exits_2_with_nothing_sent(tmp_path: Path, endpoint: Any,
                                                  command: list[str], missing: str) -> None:
    model = f"openai:gpt-4o-mini@{endpoint.base_url}"
    args = [a.format(tmp=tmp_path, model=model) for a in command]
    result = CliRunner().invoke(app, [*args, "--estimate"])
    assert result.exit_code == 2, result.output
    assert missing in result.output
    assert "Traceback" not in result.output
    assert endpoint.posts == []


@pytest.mark.parametrize("command", ["generate", "simulate", "jailbreak"])
def test_json_without_estimate_is_a_usage_error(tmp_path: Path, endpoint: Any,
                                                command: str) -> None:
    files = _inputs(tmp_path)
    args = _commands(f"openai:gpt-4o-mini@{endpoint.base_url}", files, tmp_path / "out")[command]
    result = CliRunner().invoke(app, [*args, "--json", "-"])
    assert result.exit_code == 2, result.output
    assert "give --estimate too" in result.output
    assert endpoint.posts == []


def test_generate_expected_follows_an_earlier_runs_outcomes(tmp_path: Path) -> None:
    files = _inputs(tmp_path)
    out = tmp_path / "qa.jsonl"
    first = asyncio.run(estimate_generate([files["docs"]], out=out, n=2, kinds="single",
                                          judge="openai:gpt-4o-mini"))
    # a single row's chain: write it, is it standalone, is it supported: 3 requests
    assert first.total.requests.as_dict() == {"low": 6, "expected": 6, "high": 18}
    (tmp_path / "qa.summary.json").write_text(json.dumps({
        "generated": 4, "kept": 2,
        "rejected_by_reason": {"evidence not found in the source": 2}}), encoding="utf-8")
    again = asyncio.run(estimate_generate([files["docs"]], out=out, n=2, kinds="single",
                                          judge="openai:gpt-4o-mini"))
    # half kept: 4 candidates; half of them stop after the draft (1 request), half ask all 3
    assert again.total.requests.as_dict() == {"low": 6, "expected": 8, "high": 18}


def test_simulation_expected_matches_a_scripted_run(tmp_path: Path) -> None:
    """The expected pass is the run itself when the user and the app answer as the
    stand-ins do: the same requests, the same prompts."""
    def user(request: Any) -> str:
        if request.schema_name == "simulated_user_first":
            return json.dumps({"message": USER_MESSAGE})
        from assay.calls._placeholder import REASON
        return json.dumps({"reason": REASON, "action": "reply", "message": USER_MESSAGE})

    async def reply(messages: list[dict[str, str]]) -> str:
        return APP_REPLY

    judge = FakeJudge(user)
    simulate_users(SCENARIOS, target=AgentRunner(FunctionTarget(reply)), user_model=judge,
                   out=tmp_path / "sim.jsonl", cache=False, max_turns=4)
    estimate = asyncio.run(estimate_scenarios(SCENARIOS, target="python:app:reply",
                                              user_model="openai:gpt-4o-mini", max_turns=4))
    counter = token_counter("gpt-4o-mini")
    sent = sum(prompt_tokens(r, counter) for r in judge.requests)
    user_share = estimate.by_role["simulated_user"].tally
    assert user_share.requests.expected == len(judge.requests) == (1 + 3) + (1 + 4)
    assert user_share.prompt_tokens.expected == sent
    assert user_share.requests.low == 2 * 2  # the first message, then the goal is met


def test_simulation_expected_follows_an_earlier_simulation(tmp_path: Path) -> None:
    """After a simulation, its file in --out gives the expected pass the turns each
    conversation took and the lengths of what was said."""
    def user(request: Any) -> str:
        if request.schema_name == "simulated_user_first":
            return json.dumps({"message": "Where is it?"})
        return json.dumps({"reason": "Told.", "action": "goal_met", "message": ""})

    async def reply(messages: list[dict[str, str]]) -> str:
        return "It ships on Monday."

    judge = FakeJudge(user)
    out = tmp_path / "sim.jsonl"
    simulate_users(SCENARIOS, target=AgentRunner(FunctionTarget(reply)), user_model=judge,
                   out=out, cache=False, max_turns=4)
    before = asyncio.run(estimate_scenarios(SCENARIOS, target="python:app:reply",
                                            user_model="openai:gpt-4o-mini", max_turns=4))
    after = asyncio.run(estimate_scenarios(SCENARIOS, target="python:app:reply",
                                           user_model="openai:gpt-4o-mini", max_turns=4,
                                           out=out))
    counter = token_counter("gpt-4o-mini")
    sent = sum(prompt_tokens(r, counter) for r in judge.requests)
    assert before.by_role["simulated_user"].tally.requests.expected == 9  # every turn
    measured = after.by_role["simulated_user"].tally
    assert measured.requests.expected == len(judge.requests) == 4  # one turn each
    assert abs(measured.prompt_tokens.expected - sent) <= 0.02 * sent
