"""The counters of a judge during a run (:class:`JudgeStats`): requests, cache hits, tokens,
retries, rate limits, failures, and how many requests were in flight.

Example:
    >>> JudgeStats(requests=2, retries=1).as_dict()["retries"]
    1
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

__all__ = ["JudgeStats"]


@dataclass
class JudgeStats:
    """What the judge did during a run (``requests`` counts every call sent, retries included;
    ``shared`` counts identical requests answered by one call already in flight;
    ``peak_concurrency`` / ``final_concurrency``: the most requests the judge was allowed in
    flight, and how many at the end (the same fixed number without adaptive pacing);
    ``peak_in_flight``: the most requests that were in flight at once;
    ``processed_prompt_tokens``: of ``prompt_tokens``, those the backend computed rather than
    took from its prompt (KV) cache, summed over the answers that said so; ``None`` when none
    did, and then left out of :meth:`as_dict`; ``cached_tokens`` / ``reasoning_tokens``: of
    the prompt / completion tokens, those the provider billed as cache reads / reasoning).

    Example:
        >>> stats = JudgeStats(prompt_tokens=900, processed_prompt_tokens=120)
        >>> stats.as_dict()["processed_prompt_tokens"]
        120
        >>> "processed_prompt_tokens" in JudgeStats().as_dict()
        False
    """

    requests: int = 0
    cache_hits: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    processed_prompt_tokens: int | None = None
    cached_tokens: int = 0
    reasoning_tokens: int = 0
    retries: int = 0
    rate_limited: int = 0
    failed: int = 0
    shared: int = 0
    peak_concurrency: int = 0
    final_concurrency: int = 0
    peak_in_flight: int = 0

    def as_dict(self) -> dict[str, int]:
        """The counters by name; a count nobody reported (``None``, and cache-read or reasoning
        tokens no answer had) is left out, so that workers' stats add up key by key."""
        return {k: v for k, v in asdict(self).items()
                if v is not None and (v or k not in _ONLY_WHEN_REPORTED)}


#: Counters :meth:`JudgeStats.as_dict` leaves out while 0 (most judges never report them).
_ONLY_WHEN_REPORTED = frozenset({"cached_tokens", "reasoning_tokens"})
