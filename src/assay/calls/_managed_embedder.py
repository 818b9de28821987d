"""The embedder as metrics see it during a run: cached, batched across rows, retried, each
call within its deadline.

Texts from concurrent rows are gathered for a few milliseconds and sent together (up to the
backend's ``max_batch``); each vector is cached in SQLite under sha256(embedder id + text).

Example:
    >>> import asyncio
    >>> class Toy:
    ...     id, max_batch, calls = "toy", 8, 0
    ...     async def embed(self, texts):
    ...         Toy.calls += 1
    ...         return [[float(len(t)), 1.0] for t in texts]
    >>> managed = ManagedEmbedder(Toy())
    >>> async def two_rows():
    ...     return await asyncio.gather(managed.embed(["ab", "c"]), managed.embed(["ab"]))
    >>> asyncio.run(two_rows()), Toy.calls
    ([[[2.0, 1.0], [1.0, 1.0]], [[2.0, 1.0]]], 1)
"""

from __future__ import annotations

import asyncio
from dataclasses import asdict, dataclass

from ..embeddings import Embedder, EmbeddingCache
from ..errors import JudgeError, RetryableJudgeError
from ..judges import cache_scope
from ._deadline import DEFAULT_TIMEOUT, within
from ._managed import RetryPolicy

__all__ = ["EmbeddingStats", "ManagedEmbedder"]


@dataclass
class EmbeddingStats:
    """What the embedder did during a run."""

    requests: int = 0
    texts: int = 0
    cache_hits: int = 0
    retries: int = 0
    rate_limited: int = 0

    def as_dict(self) -> dict[str, int]:
        return asdict(self)


class ManagedEmbedder:
    """Wraps an embedder backend with the cache, cross-row batching and bounded retries;
    ``timeout``: seconds one backend call may take in all (``None``: no deadline)."""

    def __init__(self, backend: Embedder, *, cache: EmbeddingCache | None = None,
                 retry: RetryPolicy | None = None, linger_s: float = 0.005,
                 timeout: float | None = DEFAULT_TIMEOUT) -> None:
        self.backend = backend
        self.timeout = timeout
        self.id = backend.id
        self.cache = cache
        self._cache_scope = cache_scope(backend)  # the id and the endpoint
        self.retry = retry or RetryPolicy()
        self.stats = EmbeddingStats()
        self._linger = linger_s
        self._pending: dict[str, list[asyncio.Future[list[float]]]] = {}
        self._inflight: dict[str, list[asyncio.Future[list[float]]]] = {}
        self._timer: asyncio.TimerHandle | None = None
        self._tasks: set[asyncio.Task[None]] = set()

    @property
    def max_batch(self) -> int:
        """The backend's batch size (the wrapper batches texts across rows up to it)."""
        return self.backend.max_batch

    async def aclose(self) -> None:
        """Nothing: the wrapper does not own the backend (its owner closes it)."""

    async def embed(self, texts: list[str]) -> list[list[float]]:
        """Vectors for ``texts``, in order (from the cache where possible).

        Raises:
            JudgeError: the backend failed for good (after retries).
        """
        loop = asyncio.get_running_loop()
        futures: list[asyncio.Future[list[float]]] = []
        for text in texts:
            fut: asyncio.Future[list[float]] = loop.create_future()
            hit = self.cache.get(EmbeddingCache.key(self._cache_scope, text)) if self.cache else None
            if hit is not None:
                self.stats.cache_hits += 1
                fut.set_result(hit)
            elif text in self._inflight:  # already being embedded for another row
                self._inflight[text].append(fut)
            else:
                self._pending.setdefault(text, []).append(fut)
            futures.append(fut)
        if len(self._pending) >= self.backend.max_batch:
            self._flush()
        elif self._pending and self._timer is None:
            self._timer = loop.call_later(self._linger, self._flush)
        return list(await asyncio.gather(*futures))

    def _flush(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        while self._pending:
            batch = dict(list(self._pending.items())[:self.backend.max_batch])
            for text in batch:
                del self._pending[text]
            self._inflight.update(batch)
            task = asyncio.get_running_loop().create_task(self._send(batch))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

    async def _send(self, batch: dict[str, list[asyncio.Future[list[float]]]]) -> None:
        texts = list(batch)
        try:
            vectors = await self._call(texts)
        except Exception as e:  # noqa: BLE001 - every waiting row gets the error
            for text in texts:
                for f in self._inflight.pop(text, []):
                    if not f.done():
                        f.set_exception(e)
            return
        if self.cache is not None:
            self.cache.put_many(self.id, [(EmbeddingCache.key(self._cache_scope, t), v)
                                          for t, v in zip(texts, vectors)])
        for text, vec in zip(texts, vectors):
            for f in self._inflight.pop(text, []):
                if not f.done():
                    f.set_result(vec)

    async def _call(self, texts: list[str]) -> list[list[float]]:
        async def attempt() -> list[list[float]]:
            self.stats.requests += 1
            return await within(self.timeout, self.backend.embed(texts))

        vectors = await self.retry.call(attempt, on_error=self._count_error)
        if len(vectors) != len(texts):
            raise JudgeError(f"embedder returned {len(vectors)} vectors for {len(texts)} texts")
        self.stats.texts += len(texts)
        return vectors

    def _count_error(self, error: RetryableJudgeError, final: bool) -> None:
        if error.rate_limited:
            self.stats.rate_limited += 1
        if not final:
            self.stats.retries += 1
