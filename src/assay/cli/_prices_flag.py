"""``--prices FILE``: the user's price file (TOML or JSON, dollars per million tokens) over
genai-prices' list, on every command that spends on models (``run``, ``generate``,
``simulate``, ``jailbreak``, ``watch``: there it prices the watched app's models too) and on
``compare``; ``prices = "FILE"`` in ``[tool.assay]``
sets it too. A file that does not parse, or names a negative price, stops the command before
anything is sent (exit 2).

Example:
    >>> check_prices_flag(None).cost("local", __import__("assay.costs").costs.Usage()).source
    'embedded judge: free'
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from ..costs import PriceBook

__all__ = ["PricesOption", "check_prices_flag"]

#: ``--prices``: the user's price file.
PricesOption = Annotated[Path | None, typer.Option(
    "--prices", metavar="FILE",
    help="Prices for models genai-prices does not list (self-hosted) or that you pay "
         "otherwise: TOML or JSON, [models.NAME] input/output/cache_read/cache_write in "
         "dollars per million tokens. A model priced nowhere is 'unknown', never $0.")]


def check_prices_flag(prices: Path | None) -> PriceBook:
    """The price book of ``--prices`` (genai-prices alone without it).

    Raises:
        ConfigError: the file cannot be read or parsed, or names a bad or negative price;
            the CLI exits 2 on it, before any model call.
    """
    return PriceBook.load(prices)
