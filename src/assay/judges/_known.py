"""What well-known hosted models can do: context window, token log-probabilities, list price.

The figures are OpenAI's published ones (prices in US dollars per token, as listed in 2025);
a model not in the table, or a self-hosted one behind the same API, gets the defaults of a
remote judge with the window and prices unknown (``None``). Reasoning models (o-series,
gpt-5) return no token log-probabilities.

Example:
    >>> caps = known_capabilities("gpt-4o-mini-2024-07-18")
    >>> caps.context_window, caps.input_price, caps.token_logprobs
    (128000, 1.5e-07, True)
    >>> known_capabilities("o4-mini").token_logprobs
    False
    >>> known_capabilities("my-vllm-model").context_window is None
    True
"""

from __future__ import annotations

import re

from ._base import JudgeCapabilities

__all__ = ["known_capabilities"]

_PER_M = 1e-6
#: model -> (context window, input $/1M tokens, output $/1M tokens, token logprobs)
_KNOWN: dict[str, tuple[int, float, float, bool]] = {
    "gpt-4o": (128_000, 2.50, 10.00, True),
    "gpt-4o-mini": (128_000, 0.15, 0.60, True),
    "gpt-4.1": (1_047_576, 2.00, 8.00, True),
    "gpt-4.1-mini": (1_047_576, 0.40, 1.60, True),
    "gpt-4.1-nano": (1_047_576, 0.10, 0.40, True),
    "gpt-4-turbo": (128_000, 10.00, 30.00, True),
    "gpt-3.5-turbo": (16_385, 0.50, 1.50, True),
    "o3-mini": (200_000, 1.10, 4.40, False),
    "o4-mini": (200_000, 1.10, 4.40, False),
    "gpt-5": (400_000, 1.25, 10.00, False),
    "gpt-5-mini": (400_000, 0.25, 2.00, False),
    "gpt-5-nano": (400_000, 0.05, 0.40, False),
}
#: A dated snapshot of a listed model: ``gpt-4o-2024-08-06``, ``gpt-3.5-turbo-0125``.
_SNAPSHOT = re.compile(r"(-\d{4}(-\d{2}-\d{2})?)?")


def known_capabilities(model: str) -> JudgeCapabilities:
    """The capabilities of ``model`` (or of a dated snapshot of it) from the table, else the
    remote defaults with unknown window and prices."""
    name = model.strip().lower()
    for key in sorted(_KNOWN, key=len, reverse=True):
        if name.startswith(key) and _SNAPSHOT.fullmatch(name[len(key):]):
            window, price_in, price_out, logprobs = _KNOWN[key]
            return JudgeCapabilities(token_logprobs=logprobs, json_schema=True,
                                     context_window=window, local=False,
                                     input_price=round(price_in * _PER_M, 12),
                                     output_price=round(price_out * _PER_M, 12))
    return JudgeCapabilities()
