"""What a run's judge calls cost, end to end: a real ``assay run`` process against the bench's
fake OpenAI-compatible judge (which reports usage), and the cache-read and reasoning tokens of
an answer read over a real socket."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from assay.calls import ManagedJudge, metered
from assay.costs import PriceBook, Usage
from assay.errors import ConfigError
from assay.judges import JudgeRequest, OpenAIJudge
from support import LoopbackServer, completion_body, send_json

ROWS = [{"question": f"q{i}", "answer": f"a{i}", "context": f"c{i}"} for i in range(3)]


def _assay_run(tmp_path: Path, judge: str, *args: str) -> tuple[subprocess.CompletedProcess[str],
                                                              dict[str, Any] | None]:
    data = tmp_path / "d.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in ROWS))
    out = tmp_path / "out"
    proc = subprocess.run(
        [sys.executable, "-m", "assay.cli", "run", str(data), "--judge", judge, "--metrics",
         "fluency,relevance", "--no-cache", "--no-store", "--no-progress", "--out", str(out),
         "--overwrite", *args],
        capture_output=True, text=True, timeout=120, check=False,
        env={**os.environ, "COLUMNS": "400", "NO_COLOR": "1"})
    summary = out / "summary.json"
    return proc, json.loads(summary.read_text()) if summary.exists() else None


def test_a_run_prices_its_judge_calls_per_metric_and_in_total(
        tmp_path: Path, fake_judge_server: Any) -> None:
    server = fake_judge_server()
    proc, summary = _assay_run(tmp_path, "openai:gpt-4o-mini")
    assert proc.returncode == 0, proc.stderr
    assert summary is not None
    cost, judge = summary["cost"], summary["judge"]
    book = PriceBook.load()
    expected = book.cost("gpt-4o-mini", Usage(judge["prompt_tokens"], judge["completion_tokens"]))
    assert judge["requests"] == len(server.records()) == 6
    assert cost["usd"] == pytest.approx(expected.usd) and cost["usd"] > 0
    assert cost["source"] == expected.source and cost["unknown_reason"] is None
    by_metric = cost["by_metric"]
    assert set(by_metric) == {"fluency", "relevance"}
    assert sum(m["usd"] for m in by_metric.values()) == pytest.approx(cost["usd"])
    assert sum(m["prompt_tokens"] for m in by_metric.values()) == judge["prompt_tokens"]
    assert [m["requests"] for m in by_metric.values()] == [3, 3]
    assert cost["by_judge"]["openai:gpt-4o-mini"]["requests"] == 6
    # the terminal summary: one cost line, per metric too
    assert f"cost: ${cost['usd']:.6f}".rstrip("0") in proc.stdout.replace("\n", " ")
    assert "fluency $" in proc.stdout and "relevance $" in proc.stdout
    # each row's result says what its judge calls used
    first = json.loads((tmp_path / "out" / "results.jsonl").read_text().splitlines()[0])
    assert first["fluency"]["details"]["usage"]["openai:gpt-4o-mini"]["requests"] == 1


def test_an_unpriced_model_is_unknown_with_the_reason_never_zero(
        tmp_path: Path, fake_judge_server: Any) -> None:
    fake_judge_server()
    proc, summary = _assay_run(tmp_path, "openai:my-vllm")
    assert proc.returncode == 0, proc.stderr
    assert summary is not None
    reason = "no price for model 'my-vllm' (add it to a --prices file)"
    assert (summary["cost"]["usd"], summary["cost"]["unknown_reason"]) == (None, reason)
    assert all(m["usd"] is None for m in summary["cost"]["by_metric"].values())
    shown = " ".join(proc.stdout.split())
    assert f"cost: unknown: {reason} (fluency unknown, relevance unknown)" in shown
    assert "$0" not in shown


def test_the_price_file_prices_a_self_hosted_model(tmp_path: Path,
                                                   fake_judge_server: Any) -> None:
    fake_judge_server()
    prices = tmp_path / "prices.toml"
    prices.write_text("[models.my-vllm]\ninput = 0.5\noutput = 1.5\n")
    proc, summary = _assay_run(tmp_path, "openai:my-vllm", "--prices", str(prices))
    assert proc.returncode == 0, proc.stderr
    assert summary is not None
    judge = summary["judge"]
    assert summary["cost"]["usd"] == pytest.approx(
        (judge["prompt_tokens"] * 0.5 + judge["completion_tokens"] * 1.5) / 1e6)
    assert summary["cost"]["source"] == f"price file {prices}"


def test_a_bad_price_file_exits_2_naming_file_and_key_and_sends_nothing(
        tmp_path: Path, fake_judge_server: Any) -> None:
    server = fake_judge_server()
    prices = tmp_path / "prices.toml"
    prices.write_text("[models.my-vllm]\ninput = -0.5\noutput = 1.5\n")
    proc, summary = _assay_run(tmp_path, "openai:my-vllm", "--prices", str(prices))
    assert proc.returncode == 2
    message = " ".join(proc.stderr.split())
    assert str(prices) in message and "models.my-vllm.input: -0.5 is negative" in message
    assert "Traceback" not in proc.stderr
    assert summary is None and server.records() == []


class CachingProvider(LoopbackServer):
    """An OpenAI-style endpoint whose usage reports cache-read and reasoning tokens."""

    def on_post(self, handler: Any, body: bytes) -> None:
        answer = completion_body('{"score": 4}', model="o3-mini")
        answer["usage"] = {"prompt_tokens": 1000, "completion_tokens": 300,
                           "prompt_tokens_details": {"cached_tokens": 800},
                           "completion_tokens_details": {"reasoning_tokens": 250}}
        send_json(handler, 200, answer)


def test_cached_and_reasoning_tokens_are_read_counted_and_priced() -> None:
    server = CachingProvider()
    try:
        backend = OpenAIJudge("o3-mini", base_url=server.base_url, api_key="sk-test")
        judge = ManagedJudge(backend, concurrency=1)
        ask = JudgeRequest(messages=[{"role": "user", "content": "rate"}], schema_name="r")

        async def twice() -> None:
            await judge.complete(ask)
            await judge.complete(ask.model_copy(update={"max_tokens": 9}))
            await backend.aclose()

        _, meter = asyncio.run(metered(twice))
    finally:
        server.stop()
    stats = judge.stats.as_dict()
    assert (stats["cached_tokens"], stats["reasoning_tokens"]) == (1600, 500)
    used = meter.usage["openai:o3-mini"]
    assert used == Usage(prompt_tokens=2000, completion_tokens=600, cached_tokens=1600,
                         reasoning_tokens=500)
    book = PriceBook.load()
    price = book.price("o3-mini")
    assert price is not None and price.cache_read is not None
    # the cached prompt tokens at the cache-read price, reasoning tokens as output
    assert book.cost(judge.id, used).usd == pytest.approx(
        (400 * price.input + 1600 * price.cache_read + 600 * price.output) / 1e6)


def test_compare_puts_the_cost_difference_beside_the_quality_difference(
        tmp_path: Path, fake_judge_server: Any) -> None:
    fake_judge_server()
    outs = []
    for model in ("gpt-4o-mini", "gpt-4o"):
        folder = tmp_path / model
        folder.mkdir()
        proc, summary = _assay_run(folder, f"openai:{model}")
        assert proc.returncode == 0, proc.stderr
        outs.append((folder / "out", summary))
    (a, summary_a), (b, summary_b) = outs
    assert summary_a is not None and summary_b is not None
    proc = subprocess.run(
        [sys.executable, "-m", "assay.cli", "compare", str(a), str(b), "--json",
         str(tmp_path / "c.json")], capture_output=True, text=True, timeout=120, check=False,
        env={**os.environ, "COLUMNS": "200", "NO_COLOR": "1"})
    assert proc.returncode == 0, proc.stderr
    cost = json.loads((tmp_path / "c.json").read_text())["cost"]
    assert (cost["usd_a"], cost["usd_b"]) == pytest.approx(
        (summary_a["cost"]["usd"], summary_b["cost"]["usd"]))
    assert cost["diff"] == pytest.approx(cost["usd_b"] - cost["usd_a"]) and cost["diff"] > 0
    assert set(cost["by_metric"]) == {"fluency", "relevance"}
    assert "cost diff" in proc.stdout and "cost: A $" in proc.stdout
    # a price file prices both runs alike: here gpt-4o as cheap as gpt-4o-mini's list price
    prices = tmp_path / "p.json"
    prices.write_text('{"models": {"gpt-4o": {"input": 0.15, "output": 0.6}}}')
    proc = subprocess.run(
        [sys.executable, "-m", "assay.cli", "compare", str(a), str(b), "--prices", str(prices),
         "--json", "-"], capture_output=True, text=True, timeout=120, check=False,
        env={**os.environ, "COLUMNS": "200", "NO_COLOR": "1"})
    assert proc.returncode == 0, proc.stderr
    repriced = json.loads(proc.stdout)["cost"]
    assert repriced["usd_a"] == pytest.approx(cost["usd_a"])
    assert repriced["usd_b"] < cost["usd_b"]


def test_generate_prices_its_calls_over_every_run_on_the_file(tmp_path: Path) -> None:
    from assay.generate import generate
    from generation_judge import generation_judge

    docs = Path(__file__).resolve().parents[1] / "examples" / "docs"
    options: dict[str, Any] = {"n": 4, "seed": 3, "cache": False, "embeddings": None}
    judge = generation_judge()
    unpriced = generate([docs], out=tmp_path / "a.jsonl", judge=judge, **options)
    cost = unpriced.summary["cost"]
    assert cost["usd"] is None and f"no price for model {judge.id!r}" in cost["unknown_reason"]
    prices = tmp_path / "p.toml"
    prices.write_text(f'[models."{judge.id}"]\ninput = 1.0\noutput = 2.0\n')
    priced = generate([docs], out=tmp_path / "b.jsonl", judge=generation_judge(),
                      prices=prices, **options)
    spent = priced.summary["all_runs"]
    assert priced.summary["cost"]["usd"] == pytest.approx(
        (spent["prompt_tokens"] * 1.0 + spent["completion_tokens"] * 2.0) / 1e6)
    assert priced.summary["cost"]["by_judge"][judge.id]["requests"] == spent["requests"] > 0


def test_simulate_keeps_the_simulated_users_cost_apart(tmp_path: Path) -> None:
    from assay.scenarios import simulate_users
    from simulated_user_judge import scripted_user

    order = {"id": "order", "goal": "Find out whether my tent order has shipped.",
             "facts": ["I ordered a tent ten days ago.", "My order number is A1005."]}
    user = scripted_user()
    prices = tmp_path / "p.toml"
    prices.write_text(f'[models."{user.id}"]\ninput = 3.0\noutput = 6.0\n')
    result = simulate_users([order], out=tmp_path / "sim.jsonl", user_model=user,
                            target="python:examples.agent_app:agent",
                            tools="python:examples.agent_app:TOOLS", cache=False,
                            prices=prices)
    cost, used = result.summary["cost"], result.summary["user_model"]
    assert cost["simulated_user"]["model"] == user.id
    assert cost["simulated_user"]["requests"] == used["requests"] > 0
    assert cost["usd"] == cost["simulated_user"]["usd"] == pytest.approx(
        (used["prompt_tokens"] * 3.0 + used["completion_tokens"] * 6.0) / 1e6)
    assert cost["by_judge"] == {}
    # the app was driven but reports no usage: unknown, with the reason, never $0
    assert cost["app"]["usd"] is None and cost["app"]["calls_without_usage"] == 3
    assert cost["app"]["unknown_reason"] == "the app reported no usage on 3 of 3 calls"
    with pytest.raises(ConfigError, match="cannot read the price file"):  # before any call
        simulate_users([order], out=tmp_path / "bad.jsonl", user_model=scripted_user(),
                       target="python:examples.agent_app:agent", prices=tmp_path / "no.toml")
