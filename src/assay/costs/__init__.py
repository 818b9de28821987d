"""What model calls cost: token usage, dollars (or *unknown*, never ``$0`` for unknown) and the
price book (genai-prices under the user's ``--prices`` file; the embedded judge free).

This package depends only on :mod:`assay.errors`, the standard library and genai-prices, so
calls, judges and runs can all use it.

Example:
    >>> book = PriceBook.load()
    >>> spent = book.cost("gpt-4o-mini", Usage(prompt_tokens=1000, completion_tokens=100))
    >>> spent.usd, spent.source.startswith("genai-prices")
    (0.00021, True)
    >>> spent.add(book.cost("my-vllm", Usage(prompt_tokens=5))).usd is None
    True
"""

from ._amounts import Cost, Usage
from ._app import APP_USAGE, AppUsage
from ._book import FREE_SOURCE, PriceBook
from ._price_file import PRICE_KEYS, ModelPrice, read_price_file
from ._tally import (
    CostTally,
    app_cost_line,
    cost_figures,
    model_cost_section,
    roles_cost_section,
)
from ._text import cost_diff_line, cost_line, usd_delta_text, usd_text

__all__ = ["APP_USAGE", "FREE_SOURCE", "PRICE_KEYS", "AppUsage", "Cost", "CostTally",
           "ModelPrice", "PriceBook", "Usage", "app_cost_line", "cost_diff_line", "cost_figures", "cost_line",
           "model_cost_section", "read_price_file", "roles_cost_section", "usd_delta_text",
           "usd_text"]
