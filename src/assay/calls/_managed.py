"""The judge as metrics see it during a run: cache, then budget, then retries, then the backend.

Counts what happened (requests, cache hits, tokens, retries, 429s, concurrency) for the
summary. A remote judge without an explicit ``concurrency`` runs at the endpoint's pace
(:class:`~assay.calls._pace.AdaptiveLimit`); a local one, or an explicit number, has fixed slots.

Example:
    >>> import asyncio
    >>> from assay.judges import FakeJudge, JudgeRequest
    >>> judge = ManagedJudge(FakeJudge('{"score": 3, "reason": "ok"}'))
    >>> req = JudgeRequest(messages=[{"role": "user", "content": "x"}], schema_name="rating")
    >>> asyncio.run(judge.complete(req)).text, judge.stats.requests
    ('{"score": 3, "reason": "ok"}', 1)
    >>> judge.capabilities == judge.backend.capabilities  # what the backend declares
    True
"""

from __future__ import annotations

import asyncio
import time
from collections import deque

from ..costs import Usage
from ..errors import (
    JudgeError,
    JudgeStoppedError,
    JudgeUnavailableError,
    RetryableJudgeError,
)
from ..judges import (
    Accept,
    Judge,
    JudgeCache,
    JudgeCapabilities,
    JudgeRequest,
    JudgeResponse,
    cache_scope,
)
from ._budget import Budget
from ._deadline import DEFAULT_TIMEOUT, within
from ._judge_stats import JudgeStats
from ._metering import meter_call
from ._pace import ADAPTIVE_CEILING, ADAPTIVE_START, FIXED_DEFAULT, AdaptiveLimit, Gate, headroom
from ._repeat import JUDGE_REPEAT, repeat_scope
from ._retry import RetryPolicy
from ._row_time import add_judge_seconds
from ._spend import Price, Reservation, SpendLimit

__all__ = ["ManagedJudge", "RetryPolicy"]


class ManagedJudge:
    """Wraps a backend with the cache, the TPM/RPM budget, a concurrency cap, a deadline and
    retries.

    ``concurrency``: requests in flight, fixed; ``None`` (default): adaptive for a remote
    judge (start at ``ADAPTIVE_START``, grow while latency stays flat, halve on a 429 or 5xx,
    up to ``ADAPTIVE_CEILING`` or the backend's ``max_concurrency``), ``FIXED_DEFAULT`` for a
    local one. The budget and the backend's ``max_concurrency`` cap both. ``timeout``: seconds
    one backend call may take in all (connecting, waiting, reading the answer; ``None``: no
    deadline); a call past it is retried (see :class:`RetryPolicy`), then fails with
    "timed out after N s". Waiting for a slot or for the budget is not part of it. A local
    backend (``capabilities.local``, the embedded judge) has none: it computes in this process,
    cannot hang on a network, and a call cut short would go on computing in its thread and
    hold up the calls after it. ``spend``: the run's spending limit (``--max-cost`` /
    ``--max-tokens``, shared by its judges), with ``price`` what a request costs this judge;
    a request that would pass it is not sent (:class:`~assay.calls._spend.BudgetReachedError`).

    Example:
        >>> from assay.judges import FakeJudge
        >>> ManagedJudge(FakeJudge()).pace is not None, ManagedJudge(FakeJudge(), concurrency=4).pace
        (True, None)
    """

    #: Identical hard failures in a row (no success between) that stop the run.
    STOP_AFTER = 3

    def __init__(self, backend: Judge, *, cache: JudgeCache | None = None,
                 budget: Budget | None = None, concurrency: int | None = None,
                 retry: RetryPolicy | None = None,
                 timeout: float | None = DEFAULT_TIMEOUT, spend: SpendLimit | None = None,
                 price: Price | None = None) -> None:
        self.backend = backend
        self.spend = spend if spend is not None and spend.active else None
        self.price = price
        self.timeout = None if backend.capabilities.local else timeout
        self.id = backend.id
        self.cache = cache
        self._cache_scope = cache_scope(backend)  # the id and the endpoint
        self.budget = budget or Budget()
        cap = backend.max_concurrency
        self.pace: AdaptiveLimit | None = None
        if concurrency is None and not backend.capabilities.local:
            self.pace = AdaptiveLimit(ADAPTIVE_START, ceiling=min(cap or ADAPTIVE_CEILING,
                                                                  ADAPTIVE_CEILING))
            size = self.pace.limit
        else:
            fixed = concurrency or FIXED_DEFAULT
            size = min(fixed, cap) if cap else fixed
        self._gate = Gate(size)
        self._sending = 0  # requests inside backend.complete()
        self._budget_waiting = 0  # requests holding a slot while the budget makes them wait
        self.retry = retry or RetryPolicy()
        self.stats = JudgeStats(peak_concurrency=size, final_concurrency=size)
        self._completion_seen: list[int] = []
        self._completion_by_kind: dict[str, deque[int]] = {}  # schema -> recent completions
        self._inflight: dict[str, asyncio.Future[JudgeResponse]] = {}
        self._hard: tuple[tuple[str, int | None], int] | None = None  # (kind, status), count
        self.stopped: JudgeStoppedError | None = None

    @property
    def max_concurrency(self) -> int | None:
        """The backend's cap (this wrapper applies it, with the run's own)."""
        return self.backend.max_concurrency

    @property
    def max_in_flight(self) -> int:
        """The most requests this judge will ever have in flight (the adaptive ceiling)."""
        return self.pace.ceiling if self.pace is not None else self._gate.size

    @property
    def capabilities(self) -> JudgeCapabilities:
        """The backend's capabilities: the wrapper adds caching and retries, not abilities."""
        return self.backend.capabilities

    async def aclose(self) -> None:
        """Nothing: the wrapper does not own the backend (its owner, e.g. the Scorer that
        made it from a spec, closes it)."""

    def _estimate(self, request: JudgeRequest) -> int:
        seen = self._completion_seen[-50:]
        completion = (max(seen) if seen else request.max_tokens // 2)
        return request.estimate_prompt_tokens() + completion

    def _count_error(self, error: RetryableJudgeError, final: bool) -> None:
        if error.rate_limited:
            self.stats.rate_limited += 1
        if final:
            self.stats.failed += 1
        else:
            self.stats.retries += 1

    async def complete(self, request: JudgeRequest, *,
                       accept: Accept | None = None) -> JudgeResponse:
        """Answer from the cache, or call the backend within budget, retrying what may pass.

        Raises:
            JudgeError: the call failed for good; the message says why and after how many tries.
            JudgeStoppedError: the judge failed the same hard way :attr:`STOP_AFTER` times in a
                row (wrong URL, key or model): this call and every later one, at once.
        """
        if self.stopped is not None:
            raise self.stopped
        if self.spend is not None and self.spend.reached:
            raise self.spend.stop()
        # a repeat of a judge metric (--repeat) is cached apart from the others
        key = request.cache_key(repeat_scope(self._cache_scope, JUDGE_REPEAT.get()))
        if self.cache is not None:
            hit = self.cache.get(key)
            if hit is not None:
                self.stats.cache_hits += 1
                return hit.model_copy(update={"cached": True})
        began = time.monotonic()  # the row's judge time: what it waits for an answer (part 5)
        if key in self._inflight:  # the same request for another metric: share its answer
            self.stats.shared += 1
            try:
                shared = await asyncio.shield(self._inflight[key])
            finally:
                add_judge_seconds(time.monotonic() - began)
            return shared.model_copy(update={"cached": True})
        future: asyncio.Future[JudgeResponse] = asyncio.get_running_loop().create_future()
        self._inflight[key] = future
        try:
            resp = await self._send(request, key, accept)
        except BaseException as e:
            if not future.done():
                future.set_exception(e if isinstance(e, Exception) else JudgeError("cancelled"))
                future.exception()  # mark retrieved: nobody may be waiting
            raise
        else:
            future.set_result(resp)
            return resp
        finally:
            del self._inflight[key]
            add_judge_seconds(time.monotonic() - began)

    async def _send(self, request: JudgeRequest, key: str,
                    accept: Accept | None) -> JudgeResponse:
        async def attempt() -> JudgeResponse:
            async with self._gate:
                if self.stopped is not None:  # stopped while this call waited for a slot
                    raise self.stopped
                estimate = self._estimate(request)
                self._budget_waiting += 1
                try:
                    held = await self._reserve(request)
                    try:
                        grant = await self.budget.acquire(estimate)
                    except BaseException:
                        self._settle(held, None)
                        raise
                finally:
                    self._budget_waiting -= 1
                self.stats.requests += 1
                epoch = self.pace.epoch if self.pace is not None else 0
                self._sending += 1
                self.stats.peak_in_flight = max(self.stats.peak_in_flight, self._sending)
                start = time.monotonic()
                try:
                    resp = await within(self.timeout, self.backend.complete(request))
                except RetryableJudgeError as e:
                    self._settle(held, None)
                    self.budget.settle(grant, 0 if e.rate_limited else grant.tokens)
                    throttled = e.rate_limited or (e.status or 0) >= 500
                    self._pace(estimate, throttled_in=epoch if throttled else None)
                    raise
                except BaseException as e:
                    self._settle(held, None)
                    if not isinstance(e, JudgeError):
                        raise
                    self.stats.failed += 1
                    self._pace(estimate)
                    raise
                finally:
                    self._sending -= 1
                self._settle(held, resp)
                self.budget.settle(grant, resp.prompt_tokens + resp.completion_tokens)
                self._pace(estimate, latency=time.monotonic() - start)
                return resp

        try:
            resp = await self.retry.call(attempt, on_error=self._count_error)
        except JudgeUnavailableError as e:
            self._note_hard_failure(e)
            raise
        self._hard = None
        self.stats.prompt_tokens += resp.prompt_tokens
        self.stats.completion_tokens += resp.completion_tokens
        self.stats.cached_tokens += resp.cached_tokens
        self.stats.reasoning_tokens += resp.reasoning_tokens
        meter_call(self.id, Usage(prompt_tokens=resp.prompt_tokens,
                                  completion_tokens=resp.completion_tokens,
                                  cached_tokens=resp.cached_tokens,
                                  reasoning_tokens=resp.reasoning_tokens))
        if resp.processed_prompt_tokens is not None:
            self.stats.processed_prompt_tokens = ((self.stats.processed_prompt_tokens or 0)
                                                  + resp.processed_prompt_tokens)
        if resp.completion_tokens:
            self._completion_seen.append(resp.completion_tokens)
            self._completion_by_kind.setdefault(request.schema_name, deque(maxlen=50)).append(
                resp.completion_tokens)
        if self.cache is not None and (accept is None or accept(resp)):
            self.cache.put(key, self.id, resp)
        return resp

    async def _reserve(self, request: JudgeRequest) -> Reservation | None:
        """Hold this request's expected cost in the spending limit (its prompt, and its
        completion at the largest of the recent answers of its kind (its schema), or its
        ``max_tokens`` before any);
        raise :class:`BudgetReachedError` when it would pass the limit."""
        spend = self.spend
        if spend is None:
            return None
        seen = self._completion_by_kind.get(request.schema_name)  # answers of the same kind
        prompt, completion = request.estimate_prompt_tokens(), (max(seen) if seen
                                                               else request.max_tokens)
        usd = (self.price(Usage(prompt_tokens=prompt, completion_tokens=completion))
               if self.price is not None else None) or 0.0
        held = await spend.reserve(tokens=prompt + completion, usd=usd)
        if held is None:
            raise spend.stop()
        return held

    def _settle(self, held: Reservation | None, resp: JudgeResponse | None) -> None:
        """Replace the reservation with what the request cost (nothing when it failed)."""
        if held is None or self.spend is None:
            return
        tokens = resp.prompt_tokens + resp.completion_tokens if resp is not None else 0
        usd = (self.price(Usage(prompt_tokens=resp.prompt_tokens,
                                completion_tokens=resp.completion_tokens,
                                cached_tokens=resp.cached_tokens,
                                reasoning_tokens=resp.reasoning_tokens))
               if resp is not None and self.price is not None else None)
        self.spend.settle(held, tokens=tokens, usd=usd or 0.0)

    def _pace(self, tokens: int, *, latency: float | None = None,
              throttled_in: int | None = None) -> None:
        """Tell the adaptive limit how a request went (its latency, or a throttle of a request
        sent in epoch ``throttled_in``) and what the provider's headers say is left; resize."""
        pace = self.pace
        if pace is not None:
            left = headroom(getattr(self.backend, "rate_limits", None))
            if left:
                pace.on_headroom(**left, tokens_per_request=tokens)
            if throttled_in is not None:
                pace.on_throttle(throttled_in)
            elif latency is not None:  # more was asked than the limit let through (and not
                # because the budget held requests back): the limit was what bound
                gate = self._gate
                busy = (gate.waiting > 0 or gate.in_flight >= gate.size) and not self._budget_waiting
                pace.on_success(latency, busy=busy)
            self._gate.size = pace.limit
        stats = self.stats
        stats.final_concurrency = self._gate.size
        stats.peak_concurrency = max(stats.peak_concurrency, self._gate.size)

    def _note_hard_failure(self, error: JudgeUnavailableError) -> None:
        """Count identical hard failures in a row; at :attr:`STOP_AFTER`, stop the judge."""
        if self.stopped is not None:
            raise self.stopped
        key = (error.kind, error.status)
        count = self._hard[1] + 1 if self._hard is not None and self._hard[0] == key else 1
        self._hard = (key, count)
        if count >= self.STOP_AFTER:
            self.stopped = JudgeStoppedError(error, count)
            raise self.stopped from error
