"""Prices for every model a run calls: genai-prices (a maintained list of hosted models'
prices, cache and reasoning tokens included) under the user's price file, which overrides and
adds models. The embedded judge is free and says so; a model nobody prices is *unknown*.

Example:
    >>> book = PriceBook.load()
    >>> book.cost("gpt-4o-mini", Usage(prompt_tokens=1_000_000)).usd
    0.15
    >>> book.cost("local", Usage(prompt_tokens=500)).source
    'embedded judge: free'
    >>> unknown = book.cost("my-vllm", Usage(prompt_tokens=10))
    >>> unknown.usd, unknown.reason
    (None, "no price for model 'my-vllm' (add it to a --prices file)")
"""

from __future__ import annotations

from decimal import Decimal
from functools import lru_cache
from importlib.metadata import version
from pathlib import Path
from typing import Any

from ._amounts import Cost, Usage
from ._price_file import ModelPrice, read_price_file

__all__ = ["FREE_SOURCE", "PriceBook"]

#: The source of the embedded judge's (``local``, ``local:PATH``) cost.
FREE_SOURCE = "embedded judge: free"
#: Judge-spec prefixes that name a provider, as genai-prices spells it.
_PROVIDERS = {"openai": "openai", "azure": "azure", "anthropic": "anthropic",
              "google": "google", "mistral": "mistral", "groq": "groq"}
_PER_M = Decimal(1_000_000)


class PriceBook:
    """Looks up what a model's tokens cost: the user's prices first, then genai-prices.

    Example:
        >>> book = PriceBook({"my-vllm": ModelPrice(input=0.2, output=0.6, cache_read=0.1)},
        ...                  source="price file p.toml")
        >>> c = book.cost("my-vllm", Usage(prompt_tokens=2_000_000, cached_tokens=1_000_000))
        >>> c.usd, c.source
        (0.3, 'price file p.toml')
        >>> book.price("openai:my-vllm").output
        0.6
    """

    def __init__(self, user_prices: dict[str, ModelPrice] | None = None,
                 source: str = "") -> None:
        self._user = dict(user_prices or {})
        self._user_source = source

    @classmethod
    def load(cls, prices_file: Path | str | None = None) -> PriceBook:
        """genai-prices' list with the models of ``prices_file`` (if given) over it.

        Raises:
            ConfigError: the file cannot be read or parsed, or names a bad or negative price.
        """
        if prices_file is None:
            return cls()
        path = Path(prices_file)
        return cls(read_price_file(path), source=f"price file {path}")

    def price(self, model: str, *, provider: str | None = None) -> ModelPrice | None:
        """The model's prices per million tokens, ``None`` when nobody prices it (and for the
        embedded judge, which is free: see :meth:`cost`)."""
        name, provider = _split(model, provider)
        user = self._lookup(model, name)
        if user is not None:
            return user
        if "@" in name:
            return None
        found = _genai_price(name, provider)
        if found is None or found.input_mtok is None or found.output_mtok is None:
            return None  # not priced per token (per request, per second): not a token price
        return ModelPrice(input=_per_million(found.input_mtok) or 0.0,
                          output=_per_million(found.output_mtok) or 0.0,
                          cache_read=_per_million(found.cache_read_mtok),
                          cache_write=_per_million(found.cache_write_mtok))

    def _lookup(self, model: str, name: str) -> ModelPrice | None:
        """The user's price for the spec as written, the model name, or the name without its
        endpoint (``MODEL@URL``)."""
        for key in (model.strip(), name, name.partition("@")[0]):
            if key in self._user:
                return self._user[key]
        return None

    def cost(self, model: str, usage: Usage, *, provider: str | None = None) -> Cost:
        """What ``usage`` cost on ``model``: cache reads and writes at their own prices, reasoning
        tokens as the provider prices them (as output unless it lists a price of their own);
        unknown, with the reason, when no source prices the model."""
        if _is_embedded(model):
            return Cost(0.0, None, FREE_SOURCE)
        name, provider = _split(model, provider)
        user = self._lookup(model, name)
        if user is not None:
            return Cost(_user_usd(user, usage), None, self._user_source)
        if usage.is_empty():
            return Cost(0.0)
        bare, at, url = name.partition("@")
        if at:  # an endpoint of its own: the provider's list price may not be what it charges
            return Cost.unknown(f"no price for model {bare!r} at {url} (a self-hosted or "
                                "proxied endpoint: add it to a --prices file)")
        try:
            calc = _genai_calc(name, provider, usage)
        except LookupError:
            return Cost.unknown(f"no price for model {name!r} (add it to a --prices file)")
        except ValueError as e:  # usage genai-prices cannot price (e.g. cache > prompt tokens)
            return Cost.unknown(f"cannot price the usage of {name!r}: {e}")
        return Cost(round(float(calc), 10), None, _genai_source())


def _is_embedded(model: str) -> bool:
    name = model.strip()
    return name == "local" or name.startswith("local:")


def _split(model: str, provider: str | None) -> tuple[str, str | None]:
    """``openai:gpt-4o`` -> (``gpt-4o``, ``openai``); a bare name keeps ``provider``."""
    name = model.strip()
    prefix, sep, rest = name.partition(":")
    if sep and prefix.lower() in _PROVIDERS:
        return rest, provider or _PROVIDERS[prefix.lower()]
    return name, provider


def _user_usd(price: ModelPrice, usage: Usage) -> float:
    cache_read = price.input if price.cache_read is None else price.cache_read
    cache_write = price.input if price.cache_write is None else price.cache_write
    plain = max(usage.prompt_tokens - usage.cached_tokens - usage.cache_write_tokens, 0)
    usd = (plain * price.input + usage.cached_tokens * cache_read
           + usage.cache_write_tokens * cache_write + usage.completion_tokens * price.output)
    return round(usd / 1_000_000, 10)


def _genai_usage(usage: Usage) -> Any:
    from genai_prices import Usage as GenaiUsage
    return GenaiUsage(input_tokens=usage.prompt_tokens, output_tokens=usage.completion_tokens,
                      cache_read_tokens=usage.cached_tokens or None,
                      cache_write_tokens=usage.cache_write_tokens or None,
                      output_reasoning_tokens=usage.reasoning_tokens or None)


def _genai_calc(name: str, provider: str | None, usage: Usage) -> Decimal:
    from genai_prices import calc_price
    try:
        return calc_price(_genai_usage(usage), name, provider_id=provider).total_price
    except LookupError:
        if provider is None:
            raise
        return calc_price(_genai_usage(usage), name).total_price


@lru_cache(maxsize=256)
def _genai_price(name: str, provider: str | None) -> Any:
    try:
        return _genai_calc_price(name, provider)
    except (LookupError, ValueError):
        return None


def _genai_calc_price(name: str, provider: str | None) -> Any:
    from genai_prices import Usage as GenaiUsage
    from genai_prices import calc_price
    usage = GenaiUsage(input_tokens=0, output_tokens=0)
    try:
        return calc_price(usage, name, provider_id=provider).model_price
    except LookupError:
        if provider is None:
            raise
        return calc_price(usage, name).model_price


def _per_million(value: Any) -> float | None:
    if value is None:
        return None
    base = getattr(value, "base", value)  # tiered prices: the base tier
    return float(base)


@lru_cache(maxsize=1)
def _genai_source() -> str:
    return f"genai-prices {version('genai-prices')}"
