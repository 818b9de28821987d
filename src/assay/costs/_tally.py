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

from collections.abc import Iterable, Mapping
from dataclasses import fields
from typing import Any

from ._amounts import Cost, Usage
from ._app import AppUsage, app_usage_of
from ._book import PriceBook

__all__ = ["CostTally", "app_cost_line", "cost_figures", "model_cost_section",
           "roles_cost_section"]

_TOKENS = tuple(f.name for f in fields(Usage))


class CostTally:
    """Requests and tokens per metric per judge, summed over a run's records; ``metrics``
    (the run's plan) orders ``by_metric`` whatever order the results came in."""

    def __init__(self, metrics: Iterable[str] = ()) -> None:
        self._usage: dict[str, dict[str, Usage]] = {}
        self._requests: dict[str, dict[str, int]] = {}
        self._order = {name: i for i, name in enumerate(metrics)}
        self._app: AppUsage | None = None  # the app under test's, apart (``--target``)

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

    def add_app(self, record: Mapping[str, Any]) -> None:
        """Add the app's usage on ``record``'s row, if an app answered it (see
        :func:`~assay.costs._app.app_usage_of`)."""
        found = app_usage_of(record)
        if found is not None:
            self._app = self._app or AppUsage()
            self._app.merge(found)

    @classmethod
    def of_records(cls, records: Iterable[Mapping[str, Any]]) -> CostTally:
        """The usage of a run's records (``results.jsonl``): every metric result's
        ``details["usage"]``.

        Example:
            >>> rec = {"id": "1", "m": {"value": 1, "details": {"usage": {"j": {"requests": 1}}}}}
            >>> CostTally.of_records([rec, {"id": "2"}]).section(PriceBook())["by_metric"]["m"]
            {'usd': 0.0, 'requests': 1, 'prompt_tokens': 0, 'completion_tokens': 0}
        """
        tally = cls()
        for record in records:
            tally.add_app(record)
            for name, result in record.items():
                details = result.get("details") if isinstance(result, Mapping) else None
                if isinstance(details, Mapping) and "usage" in details:
                    tally.add(name, details["usage"])
        return tally

    def section(self, book: PriceBook) -> dict[str, Any]:
        """``summary["cost"]``: the judge's total, ``by_metric``, ``by_judge``; the app's
        spend apart (not in the total; ``None`` when no app answered a row), and the simulated
        user's and attacker's (``None`` here: a run drives neither)."""
        by_metric: dict[str, dict[str, Any]] = {}
        judge_usage: dict[str, Usage] = {}
        judge_requests: dict[str, int] = {}
        planned = sorted(self._usage, key=lambda m: self._order.get(m, len(self._order)))
        for metric in planned:
            per_judge = self._usage[metric]
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
                "by_judge": by_judge,
                "app": app_cost_line(self._app, book) if self._app is not None else None,
                "simulated_user": None, "attacker": None,
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


def model_cost_section(model: str, usage: Usage, requests: int, book: PriceBook,
                       role: str = "by_judge") -> dict[str, Any]:
    """A ``cost`` section for work one model did (e.g. ``assay generate``'s writer model):
    the total, and that model's line under ``role``.

    Example:
        >>> s = model_cost_section("openai:gpt-4o-mini", Usage(prompt_tokens=10**6), 3,
        ...                        PriceBook.load())
        >>> s["usd"], s["by_judge"]["openai:gpt-4o-mini"]["requests"]
        (0.15, 3)
    """
    cost = book.cost(model, usage)
    return {"usd": cost.usd, "unknown_reason": cost.reason,
            role: {model: cost_figures(cost, usage, requests)}, "source": cost.source or None}


#: The parts of a job whose spend is kept apart from the judge's.
ROLES = ("app", "simulated_user", "attacker")


def roles_cost_section(book: PriceBook, *, judges: Mapping[str, Mapping[str, Any]] | None = None,
                       **roles: tuple[str, Mapping[str, Any]] | None) -> dict[str, Any]:
    """A ``cost`` section for a job whose models play parts: ``judges`` (``{id: stats}``)
    under ``by_judge``, and each of :data:`ROLES` (``(model id, stats)``, ``None``: the job
    drove none, or it reports no usage) apart, with its ``model``; the total over all.

    Example:
        >>> s = roles_cost_section(PriceBook.load(), simulated_user=("openai:gpt-4o-mini",
        ...     {"requests": 2, "prompt_tokens": 10**6, "completion_tokens": 0}))
        >>> s["usd"], s["simulated_user"]["model"], s["app"]
        (0.15, 'openai:gpt-4o-mini', None)
    """
    total = Cost.zero()
    out: dict[str, Any] = {"usd": None, "unknown_reason": None, "by_metric": {},
                           "by_judge": {}, **dict.fromkeys(ROLES)}
    parts = [("by_judge", judge, stats) for judge, stats in (judges or {}).items()]
    parts += [(role, *part) for role, part in roles.items() if part is not None]
    for role, model, stats in parts:
        usage = Usage(**{k: int(stats.get(k) or 0) for k in _TOKENS})
        cost = book.cost(model, usage)
        total = total.add(cost)
        line = cost_figures(cost, usage, int(stats.get("requests") or 0))
        if role == "by_judge":
            out["by_judge"][model] = line
        else:
            out[role] = {"model": model, **line}
    out.update(usd=total.usd, unknown_reason=total.reason, source=total.source or None)
    return out


def app_cost_line(app: AppUsage, book: PriceBook) -> dict[str, Any]:
    """``summary["cost"]["app"]``: the app under test's own cost, apart from the judge's: the
    model(s) priced (what the app reported, else its target id), the dollars (``None`` with
    the reason when a call reported no usage or a model has no price: never made up), its
    answered calls as ``requests``, the tokens reported, ``calls_without_usage`` when some
    reported none, and ``by_model`` when the app reported more than one model.

    Example:
        >>> app = AppUsage("openai:gpt-4o-mini")
        >>> app.add_call("openai:gpt-4o-mini", Usage(prompt_tokens=1_000_000))
        >>> app_cost_line(app, PriceBook.load())["usd"]
        0.15
        >>> app.add_call("openai:gpt-4o-mini", None)
        >>> line = app_cost_line(app, PriceBook.load())
        >>> line["usd"], line["unknown_reason"], line["requests"]
        (None, 'the app reported no usage on 1 of 2 calls', 2)
    """
    cost = (Cost.unknown(f"the app reported no usage on {app.without_usage} of {app.calls} "
                         "calls") if app.without_usage else Cost.zero())
    total, by_model = Usage(), {}
    for model, used in app.usage.items():
        priced = book.cost(model, used)
        cost, total = cost.add(priced), total + used
        by_model[model] = cost_figures(priced, used, app.requests[model])
    line: dict[str, Any] = {"model": ", ".join(app.usage) or app.target, "target": app.target,
                            **cost_figures(cost, total, app.calls)}
    if app.without_usage:
        line["calls_without_usage"] = app.without_usage
    if len(by_model) > 1:
        line["by_model"] = by_model
    return line
