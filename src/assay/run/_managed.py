"""The judge as metrics see it during a run: cache, then budget, then retries, then the backend.

Counts what happened (requests, cache hits, tokens, retries, 429s) for the summary.

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
import random
from collections.abc import Awaitable, Callable
from dataclasses import asdict, dataclass
from typing import TypeVar

from ..errors import (
    JudgeError,
    JudgeStoppedError,
    JudgeUnavailableError,
    RetryableJudgeError,
    option,
)
from ..judges import Accept, Judge, JudgeCache, JudgeCapabilities, JudgeRequest, JudgeResponse
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
    """Bounded retries with exponential backoff and jitter; a server's Retry-After wins.

    - ``max_attempts`` bounds the tries of a call that fails in a way worth retrying (5xx,
      timeouts, resets, a body that is not JSON).
    - Rate limiting (429) does not use up tries: the time spent waiting on 429s for one call
      is bounded by ``max_wait`` seconds instead (``--max-wait``), so a busy provider slows a
      run down rather than failing its rows.
    - A refused connection or failed DNS lookup gets ``connect_attempts`` quick tries, then
      fails as the :class:`~assay.errors.JudgeUnavailableError` it carries.

    Example:
        >>> policy = RetryPolicy(base_delay=0.0)
        >>> calls = []
        >>> async def flaky():
        ...     calls.append(1)
        ...     if len(calls) < 8:  # seven 429s: more than max_attempts, all within max_wait
        ...         raise RetryableJudgeError("429", rate_limited=True, retry_after=0.0)
        ...     return "ok"
        >>> import asyncio
        >>> asyncio.run(policy.call(flaky)), len(calls)
        ('ok', 8)
    """

    max_attempts: int = 6
    base_delay: float = 1.0
    max_delay: float = 60.0
    max_wait: float = 600.0
    connect_attempts: int = 3

    def delay(self, attempt: int, retry_after: float | None) -> float:
        if retry_after is not None:
            return min(max(retry_after, 0.0), self.max_delay) + random.uniform(0.0, 0.25)
        return min(self.base_delay * 2 ** (attempt - 1), self.max_delay) * random.uniform(0.5, 1.0)

    async def call(self, attempt: Callable[[], Awaitable[T]], *,
                   on_error: Callable[[RetryableJudgeError, bool], None] | None = None) -> T:
        """Await ``attempt()`` until it succeeds, retrying ``RetryableJudgeError`` with backoff
        (outside the attempt, so no slot is held while waiting). ``on_error(error, final)`` sees
        every retryable failure; after the last one a ``JudgeError`` says how many tries it took
        (or how long it waited on rate limits). Other errors pass straight through.
        """
        tries = 0  # failures that use up max_attempts
        limited = 0  # 429s, bounded by max_wait
        waited = 0.0
        while True:
            try:
                return await attempt()
            except RetryableJudgeError as e:
                if e.rate_limited:
                    limited += 1
                    pause = self.delay(limited, e.retry_after)
                    final = waited + pause > self.max_wait
                    if on_error is not None:
                        on_error(e, final)
                    if final:
                        raise JudgeError(f"{e} (still rate limited after waiting {waited:.0f} s "
                                         f"on {limited} 429s; {option('max_wait')} is "
                                         f"{self.max_wait:g} s)") from e
                    waited += max(pause, 0.05)  # a zero wait still counts: no endless spin
                    await asyncio.sleep(pause)
                    continue
                tries += 1
                limit = self.connect_attempts if e.unreachable else self.max_attempts
                final = tries >= min(limit, self.max_attempts)
                if on_error is not None:
                    on_error(e, final)
                if final and e.unreachable is not None:
                    raise e.unreachable from e
                if final:
                    raise JudgeError(f"{e} (gave up after {tries} attempts)") from e
                await asyncio.sleep(self.delay(tries, e.retry_after))


class ManagedJudge:
    """Wraps a backend with the cache, the TPM/RPM budget, a concurrency cap and retries."""

    #: Identical hard failures in a row (no success between) that stop the run.
    STOP_AFTER = 3

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
        self._hard: tuple[tuple[str, int | None], int] | None = None  # (kind, status), count
        self.stopped: JudgeStoppedError | None = None

    @property
    def max_concurrency(self) -> int | None:
        """The backend's cap (this wrapper applies it, with the run's own)."""
        return self.backend.max_concurrency

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
                    accept: Accept | None) -> JudgeResponse:
        async def attempt() -> JudgeResponse:
            async with self._sem:
                if self.stopped is not None:  # stopped while this call waited for a slot
                    raise self.stopped
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

        try:
            resp = await self.retry.call(attempt, on_error=self._count_error)
        except JudgeUnavailableError as e:
            self._note_hard_failure(e)
            raise
        self._hard = None
        self.stats.prompt_tokens += resp.prompt_tokens
        self.stats.completion_tokens += resp.completion_tokens
        if resp.completion_tokens:
            self._completion_seen.append(resp.completion_tokens)
        if self.cache is not None and (accept is None or accept(resp)):
            self.cache.put(key, self.id, resp)
        return resp

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
