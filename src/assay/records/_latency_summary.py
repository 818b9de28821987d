"""The ``latency`` section of ``summary.json``: p50 / p95 seconds per row of the run's judge
(in all and per judge metric) and of its app, from each record's ``row_latency``.

Example:
    >>> s = LatencySummary.model_validate({"judge": {"p50": 0.2, "p95": 0.5, "rows": 3,
    ...     "by_metric": {"fluency": {"p50": 0.1, "p95": 0.3, "rows": 3}}}})
    >>> s.judge.by_metric["fluency"].p95, s.app
    (0.3, None)
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

__all__ = ["JudgeLatency", "LatencyPercentiles", "LatencySummary"]


class LatencyPercentiles(BaseModel):
    """p50 and p95 seconds per row over the rows that had a time."""

    model_config = ConfigDict(extra="allow")

    p50: float = Field(description="Median seconds per row.")
    p95: float = Field(description="95th percentile of seconds per row.")
    rows: int = Field(description="Rows the percentiles are over.")


class JudgeLatency(LatencyPercentiles):
    """The judge's seconds per row (its calls' wall time summed; a cache hit adds none)."""

    by_metric: dict[str, LatencyPercentiles] = Field(
        default_factory=dict, description="Each judge metric's seconds per row.")


class LatencySummary(BaseModel):
    """Seconds per row of the judge and of the app (null where the run had no such time)."""

    model_config = ConfigDict(extra="allow")

    judge: JudgeLatency | None = None
    app: LatencyPercentiles | None = Field(None, description="The --target app's run per row.")
