"""What a run's judge calls cost, per metric and per judge, from the usage each metric result
carries (``details["usage"]``: ``{judge id: {"requests", token counters}}``, see
:mod:`assay.calls._metering`), priced at the end with a :class:`~assay.costs.PriceBook`.

A resumed run's earlier results keep their usage, so the total is the whole run's. An unknown
price makes every total it is part of unknown (``usd: null``) with the reason, never ``$0``.

Example:
    >>> from assay.costs import PriceBook
    >>> tally = CostTally()
    >>> tally.add("fluency", {"openai:gpt-4o-mini": {"requests": 1, "prompt_tokens": 1_000_000}})
    >>> tally.add("relevance", {"my-vllm": {"requests": 2, "prompt_tokens": 10}})
    >>> cost = tally.section(PriceBook.load())
    >>> cost["usd"], cost["unknown_reason"]
    (None, "no price for model 'my-vllm' (add it to a --prices file)")
    >>> cost["by_metric"]["fluency"]["usd"], cost["by_judge"]["openai:gpt-4o-mini"]["requests"]
    (0.15, 1)
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import fields
from typing import Any

from ..costs import Cost, PriceBook, Usage

__all__ = ["CostTally", "cost_figures"]

_TOKENS = tuple(f.name for f in fields(Usage))


class CostTally:
    """Requests and tokens per metric per judge, summed over a run's records."""

    def __init__(self) -> None:
        self._usage: dict[str, dict[str, Usage]] = {}
        self._requests: dict[str, dict[str, int]] = {}

    def add(self, metric: str, usage: Any) -> None:
        """Add one result's ``details["usage"]`` (anything else is ignored)."""
        if not isinstance(usage, Mapping):
            return
        for judge, counters in usage.items():
            if not isinstance(counters, Mapping):
                continue
            tokens = Usage(**{k: int(counters.get(k) or 0) for k in _TOKENS})
            per_judge = self._usage.setdefault(metric, {})
            per_judge[str(judge)] = per_judge.get(str(judge), Usage()) + tokens
            requests = self._requests.setdefault(metric, {})
            requests[str(judge)] = requests.get(str(judge), 0) + int(counters.get("requests") or 0)

    def section(self, book: PriceBook) -> dict[str, Any]:
        """``summary["cost"]``: the total, ``by_metric``, ``by_judge``, and the app's,
        simulated user's and attacker's spend (``None`` here: a run scores, it drives none)."""
        by_metric: dict[str, dict[str, Any]] = {}
        judge_usage: dict[str, Usage] = {}
        judge_requests: dict[str, int] = {}
        for metric, per_judge in self._usage.items():
            cost, usage = Cost.zero(), Usage()
            for judge, used in per_judge.items():
                cost = cost.add(book.cost(judge, used))
                usage = usage + used
                judge_usage[judge] = judge_usage.get(judge, Usage()) + used
                judge_requests[judge] = (judge_requests.get(judge, 0)
                                         + self._requests[metric][judge])
            by_metric[metric] = cost_figures(cost, usage, sum(self._requests[metric].values()))
        total = Cost.zero()
        by_judge: dict[str, dict[str, Any]] = {}
        for judge, used in judge_usage.items():
            cost = book.cost(judge, used)
            total = total.add(cost)
            by_judge[judge] = cost_figures(cost, used, judge_requests[judge])
        return {"usd": total.usd, "unknown_reason": total.reason, "by_metric": by_metric,
                "by_judge": by_judge, "app": None, "simulated_user": None, "attacker": None,
                "source": total.source or None}


def cost_figures(cost: Cost, usage: Usage, requests: int) -> dict[str, Any]:
    """One line of ``summary["cost"]``: dollars (or ``None`` and why), requests, tokens (the
    cache-read and reasoning counts only when there were some).

    Example:
        >>> cost_figures(Cost(0.5), Usage(prompt_tokens=10, completion_tokens=2), 1)
        {'usd': 0.5, 'requests': 1, 'prompt_tokens': 10, 'completion_tokens': 2}
    """
    out: dict[str, Any] = {"usd": cost.usd, "requests": requests,
                           "prompt_tokens": usage.prompt_tokens,
                           "completion_tokens": usage.completion_tokens}
    if usage.cached_tokens:
        out["cached_tokens"] = usage.cached_tokens
    if usage.reasoning_tokens:
        out["reasoning_tokens"] = usage.reasoning_tokens
    if cost.usd is None:
        out["unknown_reason"] = cost.reason
    return out
