"""Token usage and what it cost: the two records every part of assay adds up.

A cost is a number of US dollars or *unknown*, never ``0`` for unknown: adding an unknown cost
to anything gives an unknown total that keeps the first reason.

Example:
    >>> u = Usage(prompt_tokens=1000, completion_tokens=50) + Usage(prompt_tokens=10, cached_tokens=5)
    >>> u.prompt_tokens, u.completion_tokens, u.cached_tokens
    (1010, 50, 5)
    >>> total = Cost(0.25, source="genai-prices 0.2.5").add(Cost(0.5, source="genai-prices 0.2.5"))
    >>> total.usd, total.source
    (0.75, 'genai-prices 0.2.5')
    >>> unknown = total.add(Cost.unknown("no price for model 'my-vllm'"))
    >>> unknown.usd is None, unknown.reason
    (True, "no price for model 'my-vllm'")
"""

from __future__ import annotations

from dataclasses import dataclass, fields

__all__ = ["Cost", "Usage"]


@dataclass(frozen=True)
class Usage:
    """Tokens one or more model calls used, as the provider reported them.

    Attributes:
        prompt_tokens: all prompt (input) tokens, cache reads and writes included.
        completion_tokens: all completion (output) tokens, reasoning tokens included.
        cached_tokens: the prompt tokens read from the provider's prompt cache.
        cache_write_tokens: the prompt tokens written to the provider's prompt cache.
        reasoning_tokens: the completion tokens spent on hidden reasoning.

    Example:
        >>> Usage(prompt_tokens=3) + Usage(completion_tokens=2, reasoning_tokens=1)
        Usage(prompt_tokens=3, completion_tokens=2, cached_tokens=0, cache_write_tokens=0, reasoning_tokens=1)
        >>> Usage().is_empty(), Usage(prompt_tokens=1).is_empty()
        (True, False)
    """

    prompt_tokens: int = 0
    completion_tokens: int = 0
    cached_tokens: int = 0
    cache_write_tokens: int = 0
    reasoning_tokens: int = 0

    def __add__(self, other: Usage) -> Usage:
        if not isinstance(other, Usage):
            return NotImplemented
        return Usage(**{f.name: getattr(self, f.name) + getattr(other, f.name)
                        for f in fields(self)})

    def is_empty(self) -> bool:
        """No tokens at all: nothing was sent (or everything came from assay's own cache)."""
        return not (self.prompt_tokens or self.completion_tokens)


@dataclass(frozen=True)
class Cost:
    """What calls cost in US dollars, or why that is unknown.

    Attributes:
        usd: the dollars, ``None`` when a price is unknown (never ``0`` for unknown).
        reason: why ``usd`` is unknown; ``None`` when it is known.
        source: where the prices came from (``"genai-prices 0.2.5"``, ``"price file PATH"``,
            ``"embedded judge: free"``); several joined with ``"; "``.

    Example:
        >>> Cost(0.1, source="a").add(Cost(0.2, source="b"))
        Cost(usd=0.3, reason=None, source='a; b')
        >>> Cost.unknown("no price").add(Cost(1.0)).usd is None
        True
    """

    usd: float | None
    reason: str | None = None
    source: str = ""

    @classmethod
    def unknown(cls, reason: str, source: str = "") -> Cost:
        """An unknown cost and why."""
        return cls(None, reason, source)

    @classmethod
    def zero(cls) -> Cost:
        """Nothing spent: the start of a sum."""
        return cls(0.0)

    @property
    def known(self) -> bool:
        """Whether the dollars are known."""
        return self.usd is not None

    def add(self, other: Cost) -> Cost:
        """The sum: unknown when either is unknown (the first reason kept), else the dollars
        added (rounded to 10 decimals so float noise does not show)."""
        source = "; ".join(dict.fromkeys(s for part in (self.source, other.source)
                                         for s in part.split("; ") if s))
        if self.usd is None or other.usd is None:
            reason = self.reason if self.usd is None else other.reason
            return Cost(None, reason or "a price is unknown", source)
        return Cost(round(self.usd + other.usd, 10), None, source)
