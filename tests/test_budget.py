"""The client-side TPM / RPM budget: no 429s from a provider that enforces the same window."""

from __future__ import annotations

import asyncio
import time
from collections import deque

from assay.calls import Budget, ManagedJudge
from assay.errors import RetryableJudgeError
from assay.judges import FakeJudge, JudgeRequest, JudgeResponse


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
