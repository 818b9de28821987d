"""The ``cost`` section of ``summary.json``: what the run's judge calls cost, in total, per
metric and per judge, priced by :class:`assay.costs.PriceBook`; ``usd`` is ``null`` (never
``0``) where a price is unknown, with the reason.

Example:
    >>> c = CostSummary(usd=None, unknown_reason="no price for model 'm'",
    ...                 by_metric={"fluency": CostLine(usd=None, requests=2)})
    >>> c.by_metric["fluency"].prompt_tokens, c.app
    (0, None)
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

__all__ = ["CostLine", "CostSummary"]


class CostLine(BaseModel):
    """What one metric's, or one judge's, calls used and cost."""

    model_config = ConfigDict(extra="allow")

    usd: float | None = Field(description="US dollars; null when a price is unknown.")
    requests: int = Field(0, description="Calls answered (answers from assay's cache: none).")
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cached_tokens: int | None = Field(None, description=(
        "Of prompt_tokens, those read from the provider's prompt cache (priced as such)."))
    reasoning_tokens: int | None = Field(None, description=(
        "Of completion_tokens, those spent on hidden reasoning (priced as the provider does)."))
    unknown_reason: str | None = None


class CostSummary(BaseModel):
    """The run's cost: the judge's total, per metric and per judge; the app under test, the
    simulated user and the attacker apart (null where the run drove none)."""

    model_config = ConfigDict(extra="allow")

    usd: float | None = Field(description=(
        "The judge calls' total in US dollars; null when any price is unknown (never 0)."))
    unknown_reason: str | None = Field(None, description="Why usd is null.")
    by_metric: dict[str, CostLine] = Field(default_factory=dict)
    by_judge: dict[str, CostLine] = Field(default_factory=dict)
    app: CostLine | None = None
    simulated_user: CostLine | None = None
    attacker: CostLine | None = None
    source: str | None = Field(None, description=(
        "Where the prices came from: genai-prices VERSION, price file PATH, embedded judge."))
