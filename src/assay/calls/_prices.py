"""What an estimated number of tokens costs on a judge: :class:`assay.costs.PriceBook` where
that package is present (prices from ``genai-prices`` and the user's price file), else the
judge's declared list price (:class:`~assay.judges.JudgeCapabilities`). An unknown price is
``None`` with the reason, never $0; the embedded judge is free and says so.

Example:
    >>> from assay.judges import JudgeCapabilities
    >>> free = judge_pricer("local", JudgeCapabilities(local=True))
    >>> free.cost(1000, 100), free.source
    ((0.0, None), 'embedded judge: free')
    >>> model_of("openai:gpt-4o-mini@http://127.0.0.1:9/v1"), model_of("local")
    ('gpt-4o-mini', 'local')
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..judges import JudgeCapabilities

__all__ = ["JudgePricer", "judge_pricer", "model_of"]


def model_of(judge_id: str) -> str:
    """The model a judge id names: ``openai:MODEL@URL`` -> ``MODEL``; other ids as they are
    (``azure:DEPLOYMENT`` -> ``DEPLOYMENT``)."""
    kind, _, rest = judge_id.partition(":")
    if kind in ("openai", "azure") and rest:
        return rest.split("@", 1)[0]
    return judge_id


@dataclass(frozen=True)
class JudgePricer:
    """Prices token counts on one judge: ``cost(prompt, completion) -> (usd, unknown_reason)``."""

    judge_id: str
    source: str
    book: Any = None
    capabilities: JudgeCapabilities | None = None

    def cost(self, prompt_tokens: float, completion_tokens: float,
             ) -> tuple[float | None, str | None]:
        """US dollars for that many tokens, or ``(None, why)`` when the price is unknown."""
        model = model_of(self.judge_id)
        if self.book is not None:
            costs = importlib.import_module("assay.costs")
            usage = costs.Usage(prompt_tokens=round(prompt_tokens),
                                completion_tokens=round(completion_tokens))
            cost = self.book.cost(model, usage)
            return cost.usd, cost.reason
        caps = self.capabilities or JudgeCapabilities()
        if caps.local:
            return 0.0, None
        usd = caps.cost(round(prompt_tokens), round(completion_tokens))
        if usd is None:
            return None, f"no price for model {model!r} (not in assay's list of OpenAI prices)"
        return usd, None


def judge_pricer(judge_id: str, capabilities: JudgeCapabilities,
                 prices_file: Path | None = None) -> JudgePricer:
    """The pricer of a judge: free for the embedded one; the price book when ``assay.costs``
    is installed (``prices_file`` overriding and adding prices), else the capabilities'."""
    if capabilities.local:
        return JudgePricer(judge_id, "embedded judge: free", capabilities=capabilities)
    try:
        costs = importlib.import_module("assay.costs")
    except ImportError:
        return JudgePricer(judge_id, "assay's 2025 list of OpenAI prices",
                           capabilities=capabilities)
    book = costs.PriceBook.load(prices_file)
    source = getattr(book, "source", None) or "assay.costs price book"
    return JudgePricer(judge_id, str(source), book=book)
