"""Adaptive judge concurrency: the AIMD controller, the resizable gate, and a run against a
scripted judge that refuses (429) whatever is above its own concurrency limit.

No wall-clock assertions: the scripted judges count what is in flight, not seconds."""

from __future__ import annotations

import asyncio

import httpx
import pytest

import assay
from assay import JudgeOptions
from assay.calls import ManagedJudge
from assay.calls._pace import ADAPTIVE_CEILING, ADAPTIVE_START, AdaptiveLimit, Gate
from assay.errors import JudgeError, RetryableJudgeError
from assay.judges import FakeJudge, JudgeCapabilities, JudgeRequest, JudgeResponse, OpenAIJudge
from support import chat_completion, mock_openai_judge

ANSWER = '{"score": 4, "reason": "ok"}'


# ---------------------------------------------------------------- the controller


def test_slow_start_doubles_per_round_trip_while_latency_is_flat() -> None:
    pace = AdaptiveLimit(initial=8, ceiling=64)
    for _ in range(8):
        pace.on_success(0.3)
    assert pace.limit == 16
    for _ in range(16):
        pace.on_success(0.3)
    assert pace.limit == pace.peak == 32


def test_throttle_halves_once_per_congestion_and_growth_turns_additive() -> None:
    pace = AdaptiveLimit(initial=16)
    epoch = pace.epoch
    assert pace.on_throttle(epoch) and pace.limit == 8
    # the other requests of the same burst, sent before the back-off: no second halving
    assert not pace.on_throttle(epoch) and pace.limit == 8
    for _ in range(8):
        pace.on_success(0.3)
    assert pace.limit == 9  # +1 per window of `limit` answers, no longer +1 per answer
    assert pace.on_throttle(pace.epoch) and pace.limit == 4


def test_floor_and_ceiling_bound_the_limit() -> None:
    pace = AdaptiveLimit(initial=2, ceiling=5)
    for _ in range(4):
        pace.on_throttle(pace.epoch)
    assert pace.limit == 1
    for _ in range(200):
        pace.on_success(0.3)
    assert pace.limit == pace.peak == 5
    with pytest.raises(ValueError):
        AdaptiveLimit(floor=4, ceiling=2)


def test_rising_latency_holds_growth() -> None:
    pace = AdaptiveLimit(initial=8)
    for _ in range(8):
        pace.on_success(0.3)
    for _ in range(8):  # the endpoint slows down to 3x: once the recent median shows it ...
        pace.on_success(0.9)
    assert not pace.latency_flat
    grown = pace.limit
    for _ in range(20):  # ... growth holds
        pace.on_success(0.9)
    assert pace.limit == grown
    for _ in range(40):  # back to normal: growth resumes (additively: +1 per `limit`)
        pace.on_success(0.3)
    assert pace.latency_flat and pace.limit > grown


def test_idle_answers_do_not_raise_the_limit() -> None:
    pace = AdaptiveLimit(initial=8)
    for _ in range(50):
        pace.on_success(0.3, busy=False)
    assert pace.limit == 8


@pytest.mark.parametrize("left", [
    {"remaining_requests": 10, "limit_requests": 10_000},  # fewer than two rounds of 8
    {"remaining_requests": 400, "limit_requests": 10_000},  # under 10% of the window
    {"remaining_tokens": 5_000, "limit_tokens": 200_000},
    {"remaining_tokens": 6_000, "tokens_per_request": 500},  # < 2 x 8 requests of 500
])
def test_low_rate_limit_headroom_stops_growth(left: dict[str, float]) -> None:
    pace = AdaptiveLimit(initial=8)
    pace.on_headroom(**left)
    for _ in range(20):
        pace.on_success(0.3)
    assert pace.limit == 8
    pace.on_headroom(remaining_requests=9_000, limit_requests=10_000)
    for _ in range(8):
        pace.on_success(0.3)
    assert pace.limit == 9


# ---------------------------------------------------------------- the gate


def test_gate_shrinks_without_evicting_and_grows_at_once() -> None:
    async def go() -> list[int]:
        gate = Gate(3)
        for _ in range(3):
            await gate.acquire()
        gate.size = 1
        waiter = asyncio.create_task(gate.acquire())
        await asyncio.sleep(0)
        seen = [gate.in_flight, gate.waiting]  # 3 holders stay, the newcomer waits
        gate.release()
        gate.release()
        await asyncio.sleep(0)
        seen.append(int(waiter.done()))  # 1 holder left = size: still waiting
        gate.size = 2
        await asyncio.sleep(0)
        seen += [int(waiter.done()), gate.in_flight, gate.peak]
        return seen

    assert asyncio.run(go()) == [3, 1, 0, 1, 2, 3]


def test_a_cancelled_waiter_gives_its_place_back() -> None:
    async def go() -> tuple[int, int]:
        gate = Gate(1)
        await gate.acquire()
        waiter = asyncio.create_task(gate.acquire())
        await asyncio.sleep(0)
        gate.release()  # hands the place to the waiter ...
        waiter.cancel()  # ... which is cancelled before it runs
        await asyncio.gather(waiter, return_exceptions=True)
        return gate.in_flight, gate.waiting

    assert asyncio.run(go()) == (0, 0)


# ---------------------------------------------------------------- the managed judge


def _request(i: int) -> JudgeRequest:
    return JudgeRequest(messages=[{"role": "user", "content": f"row {i}"}], schema_name="rating",
                        max_tokens=20)


def test_explicit_concurrency_and_local_judges_keep_fixed_slots() -> None:
    fixed = ManagedJudge(FakeJudge(), concurrency=5)
    assert fixed.pace is None and fixed.max_in_flight == 5
    assert fixed.stats.peak_concurrency == fixed.stats.final_concurrency == 5
    local = ManagedJudge(FakeJudge(capabilities=JudgeCapabilities(local=True), max_concurrency=1))
    assert local.pace is None and local.max_in_flight == 1
    capped = ManagedJudge(FakeJudge(max_concurrency=24))
    assert capped.pace is not None and capped.pace.ceiling == capped.max_in_flight == 24
    assert ManagedJudge(FakeJudge()).max_in_flight == ADAPTIVE_CEILING


class ConcurrencyLimitedJudge(FakeJudge):
    """Answers after a yield to the loop; refuses with a 429 (or ``status``) while more than
    ``limit`` requests are in flight at once."""

    def __init__(self, limit: int, status: int = 429) -> None:
        super().__init__(ANSWER)
        self.limit, self.status = limit, status
        self.in_flight = self.most_answered = self.refused = 0

    async def complete(self, request: JudgeRequest, *, accept=None) -> JudgeResponse:
        self.in_flight += 1
        try:
            for _ in range(3):  # let every request admitted with this one arrive
                await asyncio.sleep(0)
            if self.in_flight > self.limit:
                self.refused += 1
                raise RetryableJudgeError(f"HTTP {self.status}", status=self.status,
                                          rate_limited=self.status == 429, retry_after=0.0)
            self.most_answered = max(self.most_answered, self.in_flight)
            return await super().complete(request)
        finally:
            self.in_flight -= 1


@pytest.mark.parametrize("status", [429, 503])
def test_throttles_back_off_and_lose_no_request(status: int) -> None:
    backend = ConcurrencyLimitedJudge(limit=6, status=status)
    judge = ManagedJudge(backend)

    async def go() -> list[JudgeResponse]:
        return await asyncio.gather(*(judge.complete(_request(i)) for i in range(60)))

    answers = asyncio.run(go())
    assert len(answers) == 60 and all(a.text == ANSWER for a in answers)
    assert backend.refused >= 1 and judge.stats.retries == backend.refused
    assert judge.stats.peak_concurrency == ADAPTIVE_START
    assert judge.stats.final_concurrency < ADAPTIVE_START


def test_a_timeout_is_retried_without_backing_off() -> None:
    calls: list[int] = []

    def script(request: JudgeRequest) -> str | Exception:
        calls.append(1)
        return RetryableJudgeError("timed out", retry_after=0.0) if len(calls) == 1 else ANSWER

    judge = ManagedJudge(FakeJudge(script))
    asyncio.run(judge.complete(_request(0)))
    assert judge.pace is not None and judge.pace.limit == ADAPTIVE_START


def test_a_run_against_a_throttling_judge_scores_every_row() -> None:
    rows = [{"id": str(i), "question": f"q{i}?", "answer": f"a{i}.", "context": f"c{i}."}
            for i in range(100)]  # enough round trips to halve from the start down to 10
    backend = ConcurrencyLimitedJudge(limit=10)
    res = assay.evaluate(rows, metrics="groundedness,relevance", judge=backend,
                         judging=JudgeOptions(cache=None))
    stats = res.summary["judge"]
    assert res.summary["metrics"]["groundedness"]["scored"] == 100
    assert res.summary["metrics"]["relevance"]["scored"] == 100
    assert stats["rate_limited"] == backend.refused >= 1 and stats["failed"] == 0
    assert stats["peak_concurrency"] == ADAPTIVE_START
    # Additive increase probes one above the endpoint's 10; a run can end on that probe.
    assert stats["final_concurrency"] <= 11 and backend.most_answered <= 10
    assert stats["peak_in_flight"] >= backend.most_answered


def test_an_explicit_concurrency_wins() -> None:
    rows = [{"id": str(i), "question": f"q{i}?", "answer": f"a{i}.", "context": f"c{i}."}
            for i in range(30)]
    backend = ConcurrencyLimitedJudge(limit=10)
    res = assay.evaluate(rows, metrics="groundedness", judge=backend,
                         judging=JudgeOptions(cache=None, concurrency=4))
    stats = res.summary["judge"]
    assert backend.refused == 0 and backend.most_answered <= 4
    assert stats["peak_concurrency"] == stats["final_concurrency"] == 4
    assert stats["peak_in_flight"] <= 4


# ---------------------------------------------------------------- the provider's headers


def _header_judge(remaining_requests: int, status: int = 200, path: str = "http") -> OpenAIJudge:
    async def handler(request: httpx.Request) -> httpx.Response:
        await asyncio.sleep(0)  # a network call yields to the loop: requests overlap
        headers = {"x-ratelimit-remaining-requests": str(remaining_requests),
                   "x-ratelimit-limit-requests": "10000",
                   "x-ratelimit-remaining-tokens": "1990000",
                   "x-ratelimit-limit-tokens": "2000000"}
        if status != 200:
            return httpx.Response(status, headers={**headers, "retry-after": "0"},
                                  json={"error": {"message": "slow down", "type": "error"}})
        return chat_completion(ANSWER, headers=headers)

    return mock_openai_judge(handler, path=path)


@pytest.mark.parametrize("path", ["http", "sdk"])
def test_the_openai_judge_reads_the_rate_limit_headers(path: str) -> None:
    judge = _header_judge(remaining_requests=123, path=path)
    asyncio.run(judge.complete(_request(0)))
    assert judge.rate_limits == {"remaining_requests": 123.0, "limit_requests": 10_000.0,
                                 "remaining_tokens": 1_990_000.0, "limit_tokens": 2_000_000.0}
    refused = _header_judge(remaining_requests=0, status=429, path=path)
    with pytest.raises(JudgeError):
        asyncio.run(refused.complete(_request(0)))
    assert refused.rate_limits["remaining_requests"] == 0.0


@pytest.mark.parametrize(("remaining", "grows"), [(9_000, True), (20, False)])
def test_growth_follows_the_headers(remaining: int, grows: bool) -> None:
    judge = ManagedJudge(_header_judge(remaining_requests=remaining))

    async def go() -> None:
        # more requests than the start, so that the limit is in use and can grow
        await asyncio.gather(*(judge.complete(_request(i)) for i in range(ADAPTIVE_START + 40)))

    asyncio.run(go())
    assert (judge.stats.peak_concurrency > ADAPTIVE_START) is grows
