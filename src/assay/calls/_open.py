"""The one place a model call stack is assembled: a judge (or a panel of judges, or an
embedder) made from a spec or taken as given, wrapped with the cache, the TPM / RPM budget, the
pace, retries and the deadline of :class:`JudgeCallOptions`, and closed once.

A backend made here from a spec is closed at exit; an instance the caller passed in stays open
(its owner closes it). The cache is opened here and closed at exit. Each opener is an async
context manager; a caller whose owner is not one (a scorer built in ``__init__``) keeps the
returned object and calls :meth:`OpenedJudges.aclose` itself.

Example:
    >>> import asyncio
    >>> from assay.judges import FakeJudge, JudgeRequest
    >>> request = JudgeRequest(messages=[{"role": "user", "content": "hi"}], schema_name="x")
    >>> async def ask():
    ...     async with open_judge(FakeJudge("ok"), JudgeCallOptions(concurrency=2)) as judge:
    ...         return (await judge.complete(request)).text, judge.stats.requests
    >>> asyncio.run(ask())
    ('ok', 1)
"""

from __future__ import annotations

from collections.abc import Sequence
from types import TracebackType

from .._sqlite_cache import SqliteCache
from ..costs import PriceBook
from ..embeddings import Embedder, EmbeddingCache, make_embedder
from ..judges import Judge, JudgeCache, make_judge
from ._budget import Budget
from ._managed import ManagedJudge
from ._managed_embedder import ManagedEmbedder
from ._options import JudgeCallOptions
from ._retry import RetryPolicy
from ._spend import SpendLimit, judge_price

__all__ = ["OpenedEmbedder", "OpenedJudge", "OpenedJudges", "open_embedder", "open_judge", "open_judges"]


def retry_policy(options: JudgeCallOptions) -> RetryPolicy:
    """The retry policy of ``options`` (its tries and its wait on rate limits).

    Example:
        >>> retry_policy(JudgeCallOptions(attempts=2)).max_attempts
        2
    """
    return RetryPolicy(max_attempts=options.attempts, max_wait=options.max_wait)


class _Opened:
    """What an opener made here and closes once: the cache, and the backends it made from
    specs (an instance given by the caller stays open: its owner's)."""

    def __init__(self) -> None:
        self.cache: SqliteCache | None = None
        self._owned: list[Judge | Embedder] = []

    def close_cache(self) -> None:
        """Close the cache now (what a caller does when it fails before using the models)."""
        if self.cache is not None:
            self.cache.close()
            self.cache = None

    async def aclose(self) -> None:
        """Close the cache and the backends made here from specs (once)."""
        self.close_cache()
        owned, self._owned = self._owned, []
        for backend in owned:
            await backend.aclose()


class OpenedJudges(_Opened):
    """Managed judges made by :func:`open_judges` / :func:`open_judge`, sharing one cache and
    one budget; ``judges`` in the order of the specs. Used as ``async with``, it yields the
    list (:func:`open_judge`: the one judge); :meth:`aclose` closes what was opened here."""

    def __init__(self, specs: Sequence[str | Judge], options: JudgeCallOptions, *,
                 budget: Budget | None, single: bool, spend: SpendLimit | None = None) -> None:
        super().__init__()
        self._single = single
        try:
            made: dict[object, Judge] = {}  # the same spec twice: one backend
            for spec in specs:
                key = spec if isinstance(spec, str) else id(spec)
                if key not in made:
                    made[key] = make_judge(spec, timeout=options.timeout)
                    if isinstance(spec, str):  # made here: closed here
                        self._owned.append(made[key])
            backends = [made[spec if isinstance(spec, str) else id(spec)] for spec in specs]
            judge_cache = JudgeCache(options.cache) if backends and options.cache else None
            self.cache = judge_cache
            #: The run's spending limit (--max-cost / --max-tokens), shared by these judges.
            self.spend = spend if spend is not None else SpendLimit(
                max_cost=options.max_cost, max_tokens=options.max_tokens)
            book = (PriceBook.load(options.prices) if self.spend.max_cost is not None
                    else None)  # an unknown price with --max-cost: refused now
            prices = [judge_price(b.id, book) if book is not None else None for b in backends]
        except BaseException:
            self.close_cache()
            raise
        shared = budget if budget is not None else Budget(tpm=options.tpm, rpm=options.rpm)
        retry = retry_policy(options)
        #: The managed judges (each with its own pace and counters).
        self.judges = [ManagedJudge(b, cache=judge_cache, budget=shared,
                                    concurrency=options.concurrency, retry=retry,
                                    timeout=options.timeout, spend=self.spend, price=price)
                       for b, price in zip(backends, prices, strict=True)]

    @property
    def judge(self) -> ManagedJudge:
        """The first (for :func:`open_judge`, the only) judge."""
        return self.judges[0]

    async def __aenter__(self) -> ManagedJudge | list[ManagedJudge]:
        return self.judge if self._single else self.judges

    async def __aexit__(self, kind: type[BaseException] | None, error: BaseException | None,
                        tb: TracebackType | None) -> None:
        await self.aclose()


class OpenedJudge(OpenedJudges):
    """:class:`OpenedJudges` of one judge: ``async with`` yields the judge itself."""

    async def __aenter__(self) -> ManagedJudge:
        return self.judge


def open_judge(spec_or_judge: str | Judge, options: JudgeCallOptions | None = None, *,
               budget: Budget | None = None) -> OpenedJudge:
    """One managed judge (see :func:`open_judges`): ``async with open_judge(spec, options) as
    judge: ...``; ``.judge`` and ``await .aclose()`` for a caller that cannot use ``async with``.

    Raises:
        ConfigError: a bad judge spec.
    """
    return OpenedJudge([spec_or_judge], options or JudgeCallOptions(), budget=budget,
                       single=True)


def open_judges(specs: Sequence[str | Judge], options: JudgeCallOptions | None = None, *,
                budget: Budget | None = None, spend: SpendLimit | None = None) -> OpenedJudges:
    """Managed judges for ``specs`` (a panel; or two roles, e.g. an attacker and a scorer),
    sharing one cache and one budget: ``budget`` when given (e.g. one shared by the workers of
    a Ray run), else one made from ``options.tpm`` / ``options.rpm``; and one spending limit:
    ``spend`` when given (a Ray run's, shared the same way), else one made from
    ``options.max_cost`` / ``options.max_tokens``. The same spec (or
    instance) twice is one backend with two managed judges (each with its own counters).

    Example:
        >>> import asyncio
        >>> from assay.judges import FakeJudge
        >>> async def ids():
        ...     async with open_judges([FakeJudge(), FakeJudge()]) as judges:
        ...         return len(judges), judges[0].budget is judges[1].budget
        >>> asyncio.run(ids())
        (2, True)

    Raises:
        ConfigError: a bad judge spec (nothing is left open).
    """
    return OpenedJudges(list(specs), options or JudgeCallOptions(), budget=budget,
                        single=False, spend=spend)


class OpenedEmbedder(_Opened):
    """A managed embedder made by :func:`open_embedder`; ``async with`` yields it."""

    def __init__(self, spec: str | Embedder, options: JudgeCallOptions) -> None:
        super().__init__()
        backend = make_embedder(spec, timeout=options.timeout)
        if isinstance(spec, str):  # made here: closed here
            self._owned.append(backend)
        cache = EmbeddingCache(options.cache) if options.cache else None
        self.cache = cache
        #: The managed embedder.
        self.embedder = ManagedEmbedder(backend, cache=cache, retry=retry_policy(options),
                                        timeout=options.timeout)

    async def __aenter__(self) -> ManagedEmbedder:
        return self.embedder

    async def __aexit__(self, kind: type[BaseException] | None, error: BaseException | None,
                        tb: TracebackType | None) -> None:
        await self.aclose()


def open_embedder(spec_or_embedder: str | Embedder, options: JudgeCallOptions | None = None
                  ) -> OpenedEmbedder:
    """A managed embedder with the cache, retries and deadline of ``options``: ``async with
    open_embedder(spec, options) as embedder: ...`` (or ``.embedder`` and ``await
    .aclose()``). A backend made from a spec is closed at exit; an instance stays open.

    Raises:
        ConfigError: a bad embedder spec.
    """
    return OpenedEmbedder(spec_or_embedder, options or JudgeCallOptions())
