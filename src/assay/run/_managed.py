"""The judge as metrics see it during a run: cache, then budget, then retries, then the backend.

Counts what happened (requests, cache hits, tokens, retries, 429s) for the summary.

Example:
    >>> import asyncio
    >>> from assay.judges import FakeJudge, JudgeRequest
    >>> judge = ManagedJudge(FakeJudge('{"score": 3, "reason": "ok"}'))
    >>> req = JudgeRequest(messages=[{"role": "user", "content": "x"}], schema_name="rating")
    >>> asyncio.run(judge.complete(req)).text, judge.stats.requests
    ('{"score": 3, "reason": "ok"}', 1)
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Awaitable, Callable
from dataclasses import asdict, dataclass
from typing import TypeVar

from ..errors import JudgeError, RetryableJudgeError
from ..judges import Judge, JudgeCache, JudgeRequest, JudgeResponse
from ._budget import Budget

__all__ = ["JudgeStats", "ManagedJudge", "RetryPolicy"]

T = TypeVar("T")


@dataclass
class JudgeStats:
    """What the judge did during a run (``requests`` counts every call sent, retries included;
    ``shared`` counts identical requests answered by one call already in flight)."""

    requests: int = 0
    cache_hits: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    retries: int = 0
    rate_limited: int = 0
    failed: int = 0
    shared: int = 0

    def as_dict(self) -> dict[str, int]:
        return asdict(self)


@dataclass
class RetryPolicy:
    """Bounded retries with exponential backoff and jitter; a server's Retry-After wins."""

    max_attempts: int = 6
    base_delay: float = 1.0
    max_delay: float = 60.0

    def delay(self, attempt: int, retry_after: float | None) -> float:
        if retry_after is not None:
            return min(max(retry_after, 0.0), self.max_delay) + random.uniform(0.0, 0.25)
        return min(self.base_delay * 2 ** (attempt - 1), self.max_delay) * random.uniform(0.5, 1.0)

    async def call(self, attempt: Callable[[], Awaitable[T]], *,
                   on_error: Callable[[RetryableJudgeError, bool], None] | None = None) -> T:
        """Await ``attempt()`` until it succeeds, retrying ``RetryableJudgeError`` with backoff
        (outside the attempt, so no slot is held while waiting). ``on_error(error, final)`` sees
        every retryable failure; after the last one a ``JudgeError`` says how many tries it took.
        Other errors pass straight through.
        """
        n = 0
        while True:
            n += 1
            try:
                return await attempt()
            except RetryableJudgeError as e:
                final = n >= self.max_attempts
                if on_error is not None:
                    on_error(e, final)
                if final:
                    raise JudgeError(f"{e} (gave up after {n} attempts)") from e
                await asyncio.sleep(self.delay(n, e.retry_after))


class ManagedJudge:
    """Wraps a backend with the cache, the TPM/RPM budget, a concurrency cap and retries."""

    def __init__(self, backend: Judge, *, cache: JudgeCache | None = None,
                 budget: Budget | None = None, concurrency: int = 8,
                 retry: RetryPolicy | None = None) -> None:
        self.backend = backend
        self.id = backend.id
        self.cache = cache
        self.budget = budget or Budget()
        cap = backend.max_concurrency
        self._sem = asyncio.Semaphore(min(concurrency, cap) if cap else concurrency)
        self.retry = retry or RetryPolicy()
        self.stats = JudgeStats()
        self._completion_seen: list[int] = []
        self._inflight: dict[str, asyncio.Future[JudgeResponse]] = {}

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
                       accept: Callable[[JudgeResponse], bool] | None = None) -> JudgeResponse:
        """Answer from the cache, or call the backend within budget, retrying what may pass.

        Raises:
            JudgeError: the call failed for good; the message says why and after how many tries.
        """
        key = request.cache_key(self.id)
        if self.cache is not None:
            hit = self.cache.get(key)
            if hit is not None:
                self.stats.cache_hits += 1
                return hit.model_copy(update={"cached": True})
        if key in self._inflight:  # the same request for another metric: share its answer
            self.stats.shared += 1
            return (await asyncio.shield(self._inflight[key])).model_copy(update={"cached": True})
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

    async def _send(self, request: JudgeRequest, key: str,
                    accept: Callable[[JudgeResponse], bool] | None) -> JudgeResponse:
        async def attempt() -> JudgeResponse:
            async with self._sem:
                grant = await self.budget.acquire(self._estimate(request))
                self.stats.requests += 1
                try:
                    resp = await self.backend.complete(request)
                except RetryableJudgeError as e:
                    self.budget.settle(grant, 0 if e.rate_limited else grant.tokens)
                    raise
                except JudgeError:
                    self.stats.failed += 1
                    raise
                self.budget.settle(grant, resp.prompt_tokens + resp.completion_tokens)
                return resp

        resp = await self.retry.call(attempt, on_error=self._count_error)
        self.stats.prompt_tokens += resp.prompt_tokens
        self.stats.completion_tokens += resp.completion_tokens
        if resp.completion_tokens:
            self._completion_seen.append(resp.completion_tokens)
        if self.cache is not None and (accept is None or accept(resp)):
            self.cache.put(key, self.id, resp)
        return resp
