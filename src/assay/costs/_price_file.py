"""The user's price file: models genai-prices does not know (self-hosted endpoints) or prices
that differ from the list (negotiated ones), in US dollars per million tokens.

TOML or JSON, one table per model; ``input`` and ``output`` are required, ``cache_read`` and
``cache_write`` default to ``input`` (a cached token is never taken as free unless you say so)::

    [models.my-vllm]
    input = 0.2
    output = 0.6
    cache_read = 0.1

Every problem in the file is reported at once, each naming the key and the fix.

Example:
    >>> import pathlib, tempfile
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "prices.json"
    >>> _ = path.write_text('{"models": {"my-vllm": {"input": 0.2, "output": 0.6}}}')
    >>> read_price_file(path)["my-vllm"]
    ModelPrice(input=0.2, output=0.6, cache_read=0.2, cache_write=0.2)
    >>> _ = path.write_text('{"models": {"my-vllm": {"input": -1, "output": "x"}}}')
    >>> try:
    ...     read_price_file(path)
    ... except ConfigError as e:
    ...     print(str(e).splitlines()[1])
      models.my-vllm.input: -1 is negative; a price is dollars per million tokens, 0 or more
"""

from __future__ import annotations

import json
import math
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import ConfigError

__all__ = ["PRICE_KEYS", "ModelPrice", "read_price_file"]

#: The keys of one model's prices, in US dollars per million tokens.
PRICE_KEYS = ("input", "output", "cache_read", "cache_write")
_EXAMPLE = '[models.my-vllm]\ninput = 0.2\noutput = 0.6'


@dataclass(frozen=True)
class ModelPrice:
    """One model's prices in US dollars per million tokens (``None``: the source has none).

    Example:
        >>> ModelPrice(input=2.5, output=10.0, cache_read=1.25).cache_read
        1.25
    """

    input: float
    output: float
    cache_read: float | None = None
    cache_write: float | None = None


def read_price_file(path: Path) -> dict[str, ModelPrice]:
    """The models and prices in ``path`` (TOML, or JSON when it ends in ``.json``).

    Raises:
        ConfigError: it cannot be read or parsed, or a price is missing, not a number or
            negative; the message names the file, every bad key and the fix.
    """
    data = _parse(path)
    models = data.get("models") if isinstance(data, dict) else None
    if not isinstance(models, dict) or not models:
        raise ConfigError(f"Price file {path}: no [models] table. Write one table per model in "
                          f"dollars per million tokens, e.g.\n{_EXAMPLE}")
    problems: list[str] = []
    prices: dict[str, ModelPrice] = {}
    for name, table in models.items():
        price = _model_price(str(name), table, problems)
        if price is not None:
            prices[str(name)] = price
    unknown = sorted(set(data) - {"models"})
    problems += [f"  {key}: unknown key; only [models] is read" for key in unknown]
    if problems:
        raise ConfigError(f"Price file {path} has {len(problems)} problem(s):\n"
                          + "\n".join(problems)
                          + f"\nFix them: each model needs input and output prices in dollars "
                            f"per million tokens (0 or more), e.g.\n{_EXAMPLE}")
    return prices


def _parse(path: Path) -> Any:
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        why = getattr(e, "strerror", None) or e
        raise ConfigError(f"Cannot read the price file {path}: {why}. Check the --prices "
                          "path.") from None
    try:
        if path.suffix.lower() == ".json":
            return json.loads(text)
        return tomllib.loads(text)
    except json.JSONDecodeError as e:
        raise ConfigError(f"Price file {path}, line {e.lineno} column {e.colno}: not valid "
                          f"JSON ({e.msg}). Fix the JSON, e.g. "
                          '{"models": {"my-vllm": {"input": 0.2, "output": 0.6}}}') from None
    except tomllib.TOMLDecodeError as e:
        raise ConfigError(f"Price file {path}: not valid TOML ({e}). Fix the TOML (or name a "
                          f".json file), e.g.\n{_EXAMPLE}") from None


def _model_price(name: str, table: Any, problems: list[str]) -> ModelPrice | None:
    where = f"models.{name}"
    if not isinstance(table, dict):
        problems.append(f"  {where}: not a table of prices")
        return None
    values: dict[str, float] = {}
    for key in sorted(set(table) - set(PRICE_KEYS)):
        problems.append(f"  {where}.{key}: unknown key; use {', '.join(PRICE_KEYS)}")
    for key in PRICE_KEYS:
        if key not in table:
            if key in ("input", "output"):
                problems.append(f"  {where}.{key}: missing")
            continue
        value = table[key]
        if isinstance(value, bool) or not isinstance(value, int | float) \
                or not math.isfinite(value):
            problems.append(f"  {where}.{key}: {value!r} is not a number")
        elif value < 0:
            problems.append(f"  {where}.{key}: {value!r} is negative; a price is dollars per "
                            "million tokens, 0 or more")
        else:
            values[key] = float(value)
    if "input" not in values or "output" not in values or len(values) < len(
            [k for k in PRICE_KEYS if k in table]):
        return None
    return ModelPrice(input=values["input"], output=values["output"],
                      cache_read=values.get("cache_read", values["input"]),
                      cache_write=values.get("cache_write", values["input"]))
