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

__all__ = ["AppCostLine", "CostLine", "CostSummary"]


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


class AppCostLine(CostLine):
    """What the app under test's own calls used and cost, as it reported them (never made
    up: a call that reported no usage makes ``usd`` null, with the reason)."""

    model: str | None = Field(None, description=(
        "The model(s) the app's tokens are priced as: the one it reported, else the target."))
    target: str | None = Field(None, description="The app under test (the --target spec).")
    calls_without_usage: int | None = Field(None, description=(
        "Of requests (the app's answered calls), those that reported no usage."))


class CostSummary(BaseModel):
    """The run's cost: the judge's total, per metric and per judge; the app under test, the
    simulated user and the attacker apart (null where the run drove none; the app's is not
    in ``usd``)."""

    model_config = ConfigDict(extra="allow")

    usd: float | None = Field(description=(
        "The judge calls' total in US dollars; null when any price is unknown (never 0)."))
    unknown_reason: str | None = Field(None, description="Why usd is null.")
    by_metric: dict[str, CostLine] = Field(default_factory=dict)
    by_judge: dict[str, CostLine] = Field(default_factory=dict)
    app: AppCostLine | None = Field(None, description=(
        "The app under test's own cost, apart (not in usd); null when no app was driven."))
    simulated_user: CostLine | None = None
    attacker: CostLine | None = None
    source: str | None = Field(None, description=(
        "Where the prices came from: genai-prices VERSION, price file PATH, embedded judge."))
