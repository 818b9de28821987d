"""What well-known hosted models can do: context window and token log-probabilities.

The figures are OpenAI's published ones; a model not in the table, or a self-hosted one behind
the same API, gets the defaults of a remote judge with the window unknown (``None``).
Reasoning models (o-series, gpt-5) return no token log-probabilities. Prices are not kept
here: :class:`assay.costs.PriceBook` has them (genai-prices, and the user's price file).

Example:
    >>> caps = known_capabilities("gpt-4o-mini-2024-07-18")
    >>> caps.context_window, caps.input_price, caps.token_logprobs
    (128000, None, True)
    >>> known_capabilities("o4-mini").token_logprobs
    False
    >>> known_capabilities("my-vllm-model").context_window is None
    True
"""

from __future__ import annotations

import re

from ._base import JudgeCapabilities

__all__ = ["known_capabilities"]

#: model -> (context window, token logprobs)
_KNOWN: dict[str, tuple[int, bool]] = {
    "gpt-4o": (128_000, True),
    "gpt-4o-mini": (128_000, True),
    "gpt-4.1": (1_047_576, True),
    "gpt-4.1-mini": (1_047_576, True),
    "gpt-4.1-nano": (1_047_576, True),
    "gpt-4-turbo": (128_000, True),
    "gpt-3.5-turbo": (16_385, True),
    "o3-mini": (200_000, False),
    "o4-mini": (200_000, False),
    "gpt-5": (400_000, False),
    "gpt-5-mini": (400_000, False),
    "gpt-5-nano": (400_000, False),
}
#: A dated snapshot of a listed model: ``gpt-4o-2024-08-06``, ``gpt-3.5-turbo-0125``.
_SNAPSHOT = re.compile(r"(-\d{4}(-\d{2}-\d{2})?)?")


def known_capabilities(model: str) -> JudgeCapabilities:
    """The capabilities of ``model`` (or of a dated snapshot of it) from the table, else the
    remote defaults with an unknown window (prices: see :class:`assay.costs.PriceBook`)."""
    name = model.strip().lower()
    for key in sorted(_KNOWN, key=len, reverse=True):
        if name.startswith(key) and _SNAPSHOT.fullmatch(name[len(key):]):
            window, logprobs = _KNOWN[key]
            return JudgeCapabilities(token_logprobs=logprobs, json_schema=True,
                                     context_window=window, local=False)
    return JudgeCapabilities()
