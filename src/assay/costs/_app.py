"""What the app under test's own model calls used, as the app reported it, apart from the
judge's: its answered calls, the calls that reported no usage, and the tokens per model.

A record keeps one row's (``app_usage``, see :meth:`AppUsage.as_dict`); a summary adds the
rows' up and prices them (:func:`assay.costs.app_cost_line`). assay never makes usage up: a
call that reported none makes the app's cost *unknown*, with the reason, never ``$0``.

Example:
    >>> app = AppUsage("openai:gpt-4o-mini")
    >>> app.add_call("openai:gpt-4o-mini", Usage(prompt_tokens=1_000_000, completion_tokens=0))
    >>> app.add_call("openai:gpt-4o-mini", None)
    >>> app.calls, app.without_usage, app.requests
    (2, 1, {'openai:gpt-4o-mini': 1})
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import asdict, fields
from typing import Any

from ._amounts import Usage

__all__ = ["APP_USAGE", "AppUsage", "app_usage_of"]

#: The record field that holds the app's usage on a row (``AppUsage.as_dict()``).
APP_USAGE = "app_usage"
_TOKENS = tuple(f.name for f in fields(Usage))


class AppUsage:
    """The app's answered calls (``calls``), those that reported no usage
    (``without_usage``), and per model the calls that did and their tokens.

    ``target``: the app's id, the model its usage is priced as when it names no model.
    """

    def __init__(self, target: str = "") -> None:
        self.target = target
        self.calls = 0
        self.without_usage = 0
        self.usage: dict[str, Usage] = {}
        self.requests: dict[str, int] = {}

    @classmethod
    def of_rows(cls, rows: Iterable[Mapping[str, Any]], target: str) -> AppUsage:
        """The app's usage over conversation rows (each row's ``app_usage``, see
        :func:`app_usage_of`); a row without one (written before assay kept it) counts its
        assistant messages as calls without usage.

        Example:
            >>> rows = [{"app_usage": {"calls": 1, "by_model": {"m": {"requests": 1}}}},
            ...         {"messages": [{"role": "user"}, {"role": "assistant"}]}]
            >>> u = AppUsage.of_rows(rows, "t"); u.calls, u.without_usage
            (2, 1)
        """
        total = cls(target)
        for row in rows:
            found = app_usage_of(row)
            if found is None:
                turns = sum(1 for m in row.get("messages") or []
                            if isinstance(m, Mapping) and m.get("role") == "assistant")
                found = {"calls": turns, "without_usage": turns}
            total.merge(found)
        return total

    def add_call(self, model: str, usage: Usage | None) -> None:
        """Count one answered call of the app, its usage on ``model`` (``None``: it reported
        none)."""
        self.calls += 1
        if usage is None:
            self.without_usage += 1
            return
        self.usage[model] = self.usage.get(model, Usage()) + usage
        self.requests[model] = self.requests.get(model, 0) + 1

    def merge(self, data: Any) -> None:
        """Add a record's ``app_usage`` (anything that is not one is ignored).

        Example:
            >>> total = AppUsage("t")
            >>> total.merge({"target": "t", "calls": 2, "without_usage": 1,
            ...              "by_model": {"m": {"requests": 1, "prompt_tokens": 5}}})
            >>> total.merge(None); total.as_dict()
            {'target': 't', 'calls': 2, 'without_usage': 1, 'by_model': {'m': {'requests': 1, 'prompt_tokens': 5}}}
        """
        if not isinstance(data, Mapping):
            return
        self.target = self.target or str(data.get("target") or "")
        self.calls += _count(data.get("calls"))
        self.without_usage += _count(data.get("without_usage"))
        by_model = data.get("by_model")
        for model, counters in (by_model.items() if isinstance(by_model, Mapping) else ()):
            if isinstance(counters, Mapping):
                used = Usage(**{k: _count(counters.get(k)) for k in _TOKENS})
                self.usage[str(model)] = self.usage.get(str(model), Usage()) + used
                self.requests[str(model)] = (self.requests.get(str(model), 0)
                                             + _count(counters.get("requests")))

    def as_dict(self) -> dict[str, Any]:
        """``{"target", "calls", "without_usage", "by_model": {model: {"requests", token
        counters that are not 0}}}``: what a record's ``app_usage`` holds."""
        return {"target": self.target, "calls": self.calls, "without_usage": self.without_usage,
                "by_model": {model: {"requests": self.requests[model],
                                     **{k: v for k, v in asdict(used).items() if v}}
                             for model, used in self.usage.items()}}


def app_usage_of(record: Mapping[str, Any]) -> Mapping[str, Any] | None:
    """The app's usage on a record's row: its ``app_usage``, or its agent entry's (``assay run
    --target``); ``None`` when no app answered the row. An agent entry written before assay
    kept the app's usage counts its turns as calls without usage.

    Example:
        >>> app_usage_of({"id": "1", "agent": {"target": "t", "steps": 2}})
        {'target': 't', 'calls': 2, 'without_usage': 2}
        >>> app_usage_of({"id": "1"}) is None
        True
    """
    if isinstance(found := record.get(APP_USAGE), Mapping):
        return found
    entry = record.get("agent")
    if not isinstance(entry, Mapping) or "target" not in entry:
        return None
    if isinstance(found := entry.get(APP_USAGE), Mapping):
        return found
    if entry.get("failure"):
        return None
    turns = _count(entry.get("steps")) or 1
    return {"target": str(entry["target"]), "calls": turns, "without_usage": turns}


def _count(value: Any) -> int:
    """A count read back from a record: a whole number of 0 or more, else 0."""
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 0
