"""The client-side TPM / RPM budget: no 429s from a provider that enforces the same window;
and the run's spending limit (--max-cost / --max-tokens): no request past it, exit 6, --resume."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import time
from collections import deque
from pathlib import Path

import pytest

from assay.calls import Budget, BudgetReachedError, JudgeCallOptions, ManagedJudge, open_judge
from assay.errors import ConfigError, RetryableJudgeError
from assay.judges import FakeJudge, JudgeCapabilities, JudgeRequest, JudgeResponse
from assay.records import work_each
from conftest import QA50


class WindowLimitedProvider:
    """Refuses (429) a request whose tokens would push the last ``window`` seconds over ``tpm``."""

    def __init__(self, tpm: int, window: float) -> None:
        self.tpm, self.window = tpm, window
        self.events: deque[tuple[float, int]] = deque()
        self.refused = 0
        self.admitted: list[float] = []

    def __call__(self, req: JudgeRequest):
        now = time.monotonic()
        while self.events and self.events[0][0] <= now - self.window:
            self.events.popleft()
        tokens = req.estimate_prompt_tokens() + 10
        if sum(t for _, t in self.events) + tokens > self.tpm:
            self.refused += 1
            return RetryableJudgeError("429", rate_limited=True, retry_after=self.window)
        self.events.append((now, tokens))
        self.admitted.append(now)
        return JudgeResponse(text='{"score": 5, "reason": "ok"}', completion_tokens=10,
                             prompt_tokens=tokens - 10)


def _request(i: int) -> JudgeRequest:
    return JudgeRequest(messages=[{"role": "user", "content": f"row {i} " + "x" * 390}],
                        schema_name="rating", max_tokens=20)


def test_budget_keeps_a_burst_under_the_provider_limit() -> None:
    per_request = _request(0).estimate_prompt_tokens() + 10  # ~117 tokens
    provider = WindowLimitedProvider(tpm=per_request * 4, window=1.0)
    judge = ManagedJudge(FakeJudge(provider), concurrency=16,
                         budget=Budget(tpm=per_request * 4, window=1.0, slack=0.05, headroom=0.0))
    judge._completion_seen.append(10)  # the provider's completion size, as if seen before

    async def burst() -> list:
        return await asyncio.gather(*(judge.complete(_request(i)) for i in range(12)))

    answers = asyncio.run(burst())
    assert len(answers) == 12 and provider.refused == 0
    assert judge.stats.rate_limited == 0
    # 4 requests fit a window: the budget admitted them in three groups of four, each group
    # a full window after the one before (a slow machine can only widen the gaps, so this
    # does not depend on how fast the test runs).
    times = provider.admitted
    assert len(times) == 12
    for i in range(4, 12):
        assert times[i] - times[i - 4] >= 1.0 * (1 - 0.05) - 0.01, (i, times)


def test_budget_settles_with_reported_usage() -> None:
    budget = Budget(tpm=1000, window=60.0, headroom=0.0)
    grant = asyncio.run(budget.acquire(900))
    budget.settle(grant, 100)
    assert budget.in_window() == 100
    assert budget._wait_needed(800, time.monotonic()) == 0.0
    assert budget._wait_needed(950, time.monotonic()) > 0.0


def test_rpm_limit() -> None:
    budget = Budget(rpm=2, window=60.0)
    asyncio.run(budget.acquire(1))
    asyncio.run(budget.acquire(1))
    assert budget._wait_needed(1, time.monotonic()) > 50


# ---------------------------------------------------------------------------------------
# The run's spending limit (--max-cost / --max-tokens, issue 47 part 4)

#: gpt-4o-mini's list price, US dollars per token (genai-prices; the fake judge's price file).
PRICE_IN, PRICE_OUT = 0.15e-6, 0.6e-6


def _price_file(tmp: Path) -> Path:
    path = tmp / "prices.json"
    path.write_text(json.dumps({"models": {"fake": {"input": 0.15, "output": 0.6}}}))
    return path


def _priced(prompt: int, completion: int) -> float:
    return prompt * PRICE_IN + completion * PRICE_OUT


def test_no_request_passes_the_cost_limit_and_those_in_flight_finish(tmp_path: Path) -> None:
    judge = FakeJudge(latency_s=0.05)
    one = _priced(_request(0).estimate_prompt_tokens(), 20)  # what a request may cost

    async def go() -> tuple[list[object], ManagedJudge]:
        options = JudgeCallOptions(concurrency=8, cache=None, max_cost=one * 10.5,
                                   prices=_price_file(tmp_path))
        async with open_judge(judge, options) as managed:
            outcomes = await asyncio.gather(*(managed.complete(_request(i)) for i in range(30)),
                                            return_exceptions=True)
            return outcomes, managed

    outcomes, managed = asyncio.run(go())
    answered = [o for o in outcomes if isinstance(o, JudgeResponse)]
    refused = [o for o in outcomes if isinstance(o, BudgetReachedError)]
    assert len(answered) + len(refused) == 30  # nothing else (no cancelled request)
    assert len(judge.requests) == len(answered) == managed.stats.requests  # every sent finished
    spend = managed.spend
    assert spend is not None and spend.reached
    assert spend.spent_usd <= spend.max_cost  # reserved at max_tokens: never past it
    assert spend.spent_usd > spend.max_cost - one  # and close to it: requests waited for room
    assert "of --max-cost" in str(refused[0])


def test_a_token_limit_stops_the_same_way() -> None:
    judge = FakeJudge(capabilities=JudgeCapabilities())  # no price: tokens need none

    async def go() -> int:
        options = JudgeCallOptions(cache=None, max_tokens=1000)
        async with open_judge(judge, options) as managed:
            for i in range(100):
                try:
                    await managed.complete(_request(i))
                except BudgetReachedError:
                    break
            assert managed.spend is not None
            return managed.spend.spent_tokens

    assert asyncio.run(go()) <= 1000
    assert 0 < len(judge.requests) < 100


def test_an_unknown_price_with_max_cost_is_refused_before_anything_is_sent() -> None:
    judge = FakeJudge(id="openai:my-vllm")  # nobody prices it
    with pytest.raises(ConfigError, match="no price for openai:my-vllm; add it with prices="):
        open_judge(judge, JudgeCallOptions(cache=None, max_cost=1.0))
    assert judge.requests == []


@pytest.mark.parametrize("field,value", [("max_cost", 0), ("max_cost", -1.0),
                                         ("max_cost", float("nan")), ("max_cost", "5"),
                                         ("max_tokens", 0), ("max_tokens", 2.5)])
def test_bad_limits_are_config_errors(field: str, value: object) -> None:
    with pytest.raises(ConfigError, match=f"Got {field}="):
        JudgeCallOptions(**{field: value})


def test_the_item_loop_lets_items_in_flight_finish_on_a_budget_stop() -> None:
    finished: list[int] = []

    async def work(n: int) -> int:
        if n == 2:
            raise BudgetReachedError("spent $1 of --max-cost $1")
        await asyncio.sleep(0.05)  # in flight when item 2 stops the loop
        return n

    with pytest.raises(BudgetReachedError):
        asyncio.run(work_each(range(10), work, lambda n, _r: finished.append(n), parallel=3))
    assert sorted(finished) == [0, 1]  # finished, not cancelled; nothing started after


# -- the command line, end to end against the bench's fake judge (real HTTP, a subprocess)

ASSAY = [sys.executable, "-m", "assay.cli"]


def _dataset(path: Path, n: int) -> Path:
    lines = [line for line in QA50.read_text(encoding="utf-8").split("\n") if line.strip()][:n]
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return path


def _run(tmp: Path, server, data: Path, out: str, *extra: str,
         judge: str = "openai:gpt-4o-mini", timeout: float = 120
         ) -> subprocess.CompletedProcess[str]:
    """``assay run`` (fluency, coherence) on ``data`` against ``server`` in a subprocess with
    its own caches; no traceback on stderr."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "ASSAY_"))}
    env.update(OPENAI_BASE_URL=server.base_url, OPENAI_API_KEY="sk-test-not-a-secret",
               NO_COLOR="1", COLUMNS="200", XDG_CACHE_HOME=str(tmp / "xdg-cache"),
               XDG_DATA_HOME=str(tmp / "xdg-data"))
    proc = subprocess.run([*ASSAY, "run", str(data), "--metrics", "fluency,coherence",
                           "--judge", judge, "--out", str(tmp / out), "--no-store", "-q",
                           *extra], check=False, env=env, capture_output=True, text=True,
                          timeout=timeout, stdin=subprocess.DEVNULL)
    assert "Traceback" not in proc.stderr, proc.stderr
    return proc


def _log(server) -> list[dict]:
    if not server.log.exists():
        return []
    return [json.loads(line) for line in server.log.read_text().splitlines() if line.strip()]


def test_max_cost_stops_with_exit_6_and_resume_finishes_at_the_uninterrupted_total(
        tmp_path: Path, fake_judge_server) -> None:
    data = _dataset(tmp_path / "qa.jsonl", 20)
    whole = fake_judge_server("--latency-ms", "20")
    assert _run(tmp_path, whole, data, "whole", "--cache", str(tmp_path / "a.sqlite")
                ).returncode == 0
    uninterrupted = _log(whole)
    cost = sum(_priced(r["prompt_tokens"], r["completion_tokens"]) for r in uninterrupted)
    most = max(_priced(r["prompt_tokens"], r["completion_tokens"]) for r in uninterrupted)

    server = fake_judge_server("--latency-ms", "20")
    cache = ("--cache", str(tmp_path / "b.sqlite"))
    stopped = _run(tmp_path, server, data, "half", *cache, "--max-cost", str(cost / 2))
    assert stopped.returncode == 6, stopped.stderr
    said = " ".join(stopped.stderr.split())
    assert "budget reached: spent $" in said and f"of --max-cost ${cost / 2:.4g}" in said
    assert "--resume" in said
    first = _log(server)
    spent = sum(_priced(r["prompt_tokens"], r["completion_tokens"]) for r in first)
    assert 0 < len(first) < len(uninterrupted)
    assert spent <= cost / 2 + most  # the budget (and at most what was in flight)
    summary = json.loads((tmp_path / "half" / "summary.json").read_text())
    assert summary["complete"] is False
    kept = (tmp_path / "half" / "results.jsonl").read_text().splitlines()
    assert all(json.loads(line)["fluency"]["value"] is not None for line in kept)  # no invented

    resumed = _run(tmp_path, server, data, "half", *cache, "--resume")
    assert resumed.returncode == 0, resumed.stderr
    assert abs(len(_log(server)) - len(uninterrupted)) <= 1
    summary = json.loads((tmp_path / "half" / "summary.json").read_text())
    assert summary["complete"] is True and summary["metrics"]["fluency"]["scored"] == 20


@pytest.mark.parametrize("flags,said", [
    (("--max-cost", "0"), "Got --max-cost 0.0"), (("--max-cost", "-1"), "Got --max-cost -1.0"),
    (("--max-cost", "abc"), "Got 'abc'. Must be a number of US dollars above 0"),
    (("--max-tokens", "1.5"), "Got '1.5'. Must be a whole number of tokens above 0"),
    (("--max-cost", "nan"), "Got --max-cost nan"),
    (("--max-tokens", "0"), "Got --max-tokens 0"),
    (("--max-cost", "1", "--judge", "openai:my-vllm"), "no price for openai:my-vllm"),
])
def test_bad_budgets_exit_2_and_send_nothing(tmp_path: Path, fake_judge_server,
                                             flags: tuple[str, ...], said: str) -> None:
    server = fake_judge_server()
    data = _dataset(tmp_path / "qa.jsonl", 3)
    proc = _run(tmp_path, server, data, "out", "--no-cache", *flags)
    assert proc.returncode == 2, proc.stderr
    assert said in " ".join(proc.stderr.split())
    assert _log(server) == []


def test_max_tokens_stops_with_exit_6(tmp_path: Path, fake_judge_server) -> None:
    server = fake_judge_server()
    data = _dataset(tmp_path / "qa.jsonl", 10)
    proc = _run(tmp_path, server, data, "out", "--no-cache", "--max-tokens", "3000")
    assert proc.returncode == 6, proc.stderr
    assert "of --max-tokens 3,000 tokens" in " ".join(proc.stderr.split())
    used = sum(r["prompt_tokens"] + r["completion_tokens"] for r in _log(server))
    assert 0 < used <= 3000


def test_generate_stops_at_its_budget_too(tmp_path: Path, fake_judge_server) -> None:
    server = fake_judge_server()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "ASSAY_"))}
    env.update(OPENAI_BASE_URL=server.base_url, OPENAI_API_KEY="sk-test-not-a-secret",
               NO_COLOR="1", COLUMNS="200", XDG_DATA_HOME=str(tmp_path / "xdg-data"))
    docs = Path(__file__).resolve().parents[1] / "examples" / "docs"
    proc = subprocess.run([*ASSAY, "generate", str(docs), "--out", str(tmp_path / "qa.jsonl"),
                           "--n", "6", "--judge", "openai:gpt-4o-mini", "--embeddings", "none",
                           "--no-cache", "--no-store", "--max-cost", "0.0008"],
                          check=False, env=env, capture_output=True, text=True, timeout=120,
                          stdin=subprocess.DEVNULL)
    assert proc.returncode == 6, proc.stderr
    assert "of --max-cost $0.0008" in " ".join(proc.stderr.split())
    sent = _log(server)
    assert 0 < len(sent) and sum(_priced(r["prompt_tokens"], r["completion_tokens"])
                                 for r in sent) <= 0.0008


def test_a_budget_too_small_for_one_request_says_so_and_sends_nothing(tmp_path: Path) -> None:
    judge = FakeJudge()

    async def go() -> BudgetReachedError:
        options = JudgeCallOptions(cache=None, max_cost=1e-7, prices=_price_file(tmp_path))
        async with open_judge(judge, options) as managed:
            with pytest.raises(BudgetReachedError) as stopped:
                await managed.complete(_request(0))
            return stopped.value

    said = str(asyncio.run(go()))
    assert "spent $0 of --max-cost $1e-07, the first request alone could use $" in said
    assert "raise the budget" in said and judge.requests == []


@pytest.mark.parametrize("command", [
    ["simulate", "--scenarios", "examples/scenarios.jsonl", "--target",
     "python:examples.apps:faq_app", "--user-model", "openai:gpt-4o-mini"],
    ["generate", "examples/docs", "--judge", "openai:gpt-4o-mini", "--embeddings", "none"],
    ["jailbreak", "--target", "python:examples.apps:faq_app", "--judge", "openai:gpt-4o-mini"],
])
def test_every_command_with_a_budget_refuses_a_bad_one_with_exit_2(
        tmp_path: Path, fake_judge_server, command: list[str]) -> None:
    server = fake_judge_server()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "ASSAY_"))}
    env.update(OPENAI_BASE_URL=server.base_url, OPENAI_API_KEY="sk-test-not-a-secret",
               NO_COLOR="1", COLUMNS="200", XDG_DATA_HOME=str(tmp_path / "xdg-data"))
    root = Path(__file__).resolve().parents[1]
    proc = subprocess.run([*ASSAY, *command, "--out", str(tmp_path / "out.jsonl"), "--no-cache",
                           "--no-store", "--max-cost", "-2"], check=False, env=env, cwd=root,
                          capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL)
    assert proc.returncode == 2, proc.stderr
    assert "Got --max-cost -2.0. Must be a number of US dollars above 0" in proc.stderr
    assert "Traceback" not in proc.stderr and _log(server) == []
