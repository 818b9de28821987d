"""A provider's rate-limit headers (``x-ratelimit-*``), read after each judge call."""

from __future__ import annotations

from typing import Any

__all__ = ["rate_limits"]

#: ``rate_limits`` keys and the headers they come from (OpenAI's and Azure's names).
_RATE_LIMIT_HEADERS = {"remaining_requests": "x-ratelimit-remaining-requests",
                       "limit_requests": "x-ratelimit-limit-requests",
                       "remaining_tokens": "x-ratelimit-remaining-tokens",
                       "limit_tokens": "x-ratelimit-limit-tokens"}


def rate_limits(headers: Any) -> dict[str, float]:
    """What a provider's rate-limit headers say: the requests and tokens left in its window
    and its limits (numbers only; a header that is missing or not a number is left out).

    Example:
        >>> rate_limits({"x-ratelimit-remaining-requests": "499",
        ...              "x-ratelimit-limit-tokens": "200000", "x-ratelimit-reset-tokens": "6m0s"})
        {'remaining_requests': 499.0, 'limit_tokens': 200000.0}
    """
    out: dict[str, float] = {}
    for key, name in _RATE_LIMIT_HEADERS.items():
        value = headers.get(name)
        if value is None:
            continue
        try:
            out[key] = float(value)
        except (TypeError, ValueError):
            continue
    return out
