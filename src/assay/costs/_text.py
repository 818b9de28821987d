"""How dollars and a run's cost are written (terminal, report, web UI): an unknown cost is
written "unknown" with the reason, never "$0".

Example:
    >>> usd_text(0.000214), usd_text(12.5), usd_text(0.0), usd_text(None)
    ('$0.000214', '$12.50', '$0', 'unknown')
    >>> usd_delta_text(0.5, 0.25), usd_delta_text(None, 0.25)
    ('+$0.250', 'unknown')
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

__all__ = ["cost_diff_line", "cost_line", "usd_delta_text", "usd_text"]


def usd_text(usd: float | None) -> str:
    """Dollars to three significant digits (cents from $1 up); ``None``: ``unknown``."""
    if usd is None:
        return "unknown"
    if usd == 0:
        return "$0"
    sign = "-" if usd < 0 else ""
    usd = abs(usd)
    if usd >= 1:
        return f"{sign}${usd:,.2f}"
    return f"{sign}${usd:.{max(2, 2 - math.floor(math.log10(usd)))}f}"


def usd_delta_text(usd: float | None, base: float | None) -> str:
    """``usd`` minus ``base``, signed; ``unknown`` when either is."""
    if usd is None or base is None:
        return "unknown"
    delta = round(usd - base, 10)
    return ("+" if delta > 0 else "") + usd_text(delta)


def cost_line(cost: Mapping[str, Any] | None) -> str | None:
    """One line for a run's ``summary["cost"]``: the total and each metric's, ``unknown``
    with the reason where a price is; ``None`` for a summary without a cost section.

    Example:
        >>> cost_line({"usd": 0.0042, "by_metric": {"fluency": {"usd": 0.0042}},
        ...            "source": "genai-prices 0.2.5"})
        'cost: $0.00420 (fluency $0.00420); prices: genai-prices 0.2.5'
        >>> cost_line({"usd": None, "unknown_reason": "no price for model 'm'",
        ...            "by_metric": {"fluency": {"usd": None}}})
        "cost: unknown: no price for model 'm' (fluency unknown)"

        The app under test's own cost (``--target``), apart from the judge's:

        >>> cost_line({"usd": 0.0042, "by_metric": {"fluency": {"usd": 0.0042}},
        ...            "by_judge": {"openai:gpt-4o-mini": {}}, "app": {"usd": 0.0012}})
        'cost: judge $0.00420 (fluency $0.00420); app $0.00120'
    """
    if not isinstance(cost, Mapping):
        return None
    total = usd_text(cost.get("usd"))
    if cost.get("usd") is None:
        total += f": {cost.get('unknown_reason') or 'a price is unknown'}"
    parts = [f"{name} {usd_text(m.get('usd'))}"
             for name, m in (cost.get("by_metric") or {}).items() if isinstance(m, Mapping)]
    line = f"cost: {total}" + (f" ({', '.join(parts)})" if parts else "")
    if isinstance(app := cost.get("app"), Mapping):  # the app under test's own, apart
        line = f"cost: {_payers(cost)} {line[len('cost: '):]}; {_app_text(app)}"
    return line + (f"; prices: {cost['source']}" if cost.get("source") else "")


def _payers(cost: Mapping[str, Any]) -> str:
    """Whose calls a cost section's total is: the judge's, the simulated user's, the
    attacker's (those it has), or assay's when it has none of them."""
    names = [name for key, name in (("by_judge", "judge"), ("simulated_user", "simulated user"),
                                    ("attacker", "attacker")) if cost.get(key)]
    return " + ".join(names) if names else "assay's calls"


def _app_text(app: Mapping[str, Any]) -> str:
    """The app's cost in words: ``app $0.00123`` or ``app unknown: why``.

    Example:
        >>> _app_text({"usd": None, "unknown_reason": "the app reported no usage on 2 of 2 calls"})
        'app unknown: the app reported no usage on 2 of 2 calls'
    """
    text = f"app {usd_text(app.get('usd'))}"
    return text + (f": {app.get('unknown_reason') or 'a price is unknown'}"
                   if app.get("usd") is None else "")


def cost_diff_line(cost: Mapping[str, Any]) -> str:
    """Two runs' cost (``comparison["cost"]``) on one line: A, B and B - A.

    Example:
        >>> cost_diff_line({"usd_a": 0.25, "usd_b": 0.5, "diff": 0.25, "source": "genai-prices"})
        'cost: A $0.250, B $0.500, diff +$0.250 (prices: genai-prices)'
        >>> cost_diff_line({"usd_a": None, "usd_b": 0.5, "unknown_reason": "no price for 'm'"})
        "cost: A unknown, B $0.500, diff unknown: no price for 'm'"
        >>> cost_diff_line({"usd_a": 0.25, "usd_b": 0.5, "diff": 0.25,
        ...                 "app": {"usd_a": 0.01, "usd_b": 0.02, "diff": 0.01}})
        'cost: judge A $0.250, B $0.500, diff +$0.250; app A $0.0100, B $0.0200, diff +$0.0100'
    """
    line = (f"cost: A {usd_text(cost.get('usd_a'))}, B {usd_text(cost.get('usd_b'))}, diff "
            f"{usd_delta_text(cost.get('usd_b'), cost.get('usd_a'))}")
    if cost.get("diff") is None and cost.get("unknown_reason"):
        line = f"{line}: {cost['unknown_reason']}"
    elif cost.get("source"):
        line += f" (prices: {cost['source']})"
    if isinstance(app := cost.get("app"), Mapping):  # the app under test's own, apart
        line = line.replace("cost: ", "cost: judge ", 1) + (
            f"; app A {usd_text(app.get('usd_a'))}, B {usd_text(app.get('usd_b'))}, diff "
            f"{usd_delta_text(app.get('usd_b'), app.get('usd_a'))}")
        if app.get("diff") is None and app.get("unknown_reason"):
            line += f": {app['unknown_reason']}"
    return line
