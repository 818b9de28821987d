"""What an estimated number of tokens costs on a judge: :class:`assay.costs.PriceBook`
(genai-prices under the user's ``--prices`` file). An unknown price is ``None`` with the
reason, never $0; the embedded judge is free and says so.

Example:
    >>> from assay.judges import JudgeCapabilities
    >>> free = judge_pricer("local", JudgeCapabilities(local=True))
    >>> free.cost(1000, 100), free.source
    ((0.0, None), 'embedded judge: free')
    >>> judge_pricer("openai:gpt-4o-mini", JudgeCapabilities()).cost(1_000_000, 0)
    (0.15, None)
    >>> judge_pricer("openai:my-vllm", JudgeCapabilities()).cost(10, 10)[1]
    "no price for model 'my-vllm' (add it to a --prices file)"
    >>> model_of("openai:gpt-4o-mini@http://127.0.0.1:9/v1"), model_of("local")
    ('gpt-4o-mini', 'local')
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ..costs import FREE_SOURCE, PriceBook, Usage
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
    """Prices token counts on one judge: ``cost(prompt, completion) -> (usd, unknown_reason)``;
    ``source`` says where the price comes from."""

    judge_id: str
    book: PriceBook | None  # None: the embedded judge, free

    @property
    def source(self) -> str:
        """Where the price comes from (the price book's source for a priced model)."""
        if self.book is None:
            return FREE_SOURCE
        return self.book.cost(self.judge_id, Usage(prompt_tokens=1)).source or "genai-prices"

    def cost(self, prompt_tokens: float, completion_tokens: float,
             ) -> tuple[float | None, str | None]:
        """US dollars for that many tokens, or ``(None, why)`` when the price is unknown."""
        if self.book is None:
            return 0.0, None
        cost = self.book.cost(self.judge_id, Usage(prompt_tokens=round(prompt_tokens),
                                                   completion_tokens=round(completion_tokens)))
        return cost.usd, cost.reason


def judge_pricer(judge_id: str, capabilities: JudgeCapabilities,
                 prices_file: Path | None = None) -> JudgePricer:
    """The pricer of a judge: free for the embedded one (``capabilities.local``), else the
    price book with ``prices_file`` overriding and adding prices.

    Raises:
        ConfigError: the price file cannot be read, or names a bad or negative price.
    """
    return JudgePricer(judge_id, None if capabilities.local else PriceBook.load(prices_file))
