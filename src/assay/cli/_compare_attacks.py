"""How ``assay compare`` prints two attack runs: per category, each run's attack success rate
and plain defect rate with their 95% Wilson intervals, and the difference B - A with its
interval (``*`` when it excludes 0).

Example:
    >>> _rate(0.25, [0.1, 0.4]), _rate(None, None)
    ('25.0% [10.0%, 40.0%]', '–')
"""

from __future__ import annotations

from typing import Any

from rich import box
from rich.console import Console
from rich.table import Table
from rich.text import Text

from ._format import percent

__all__ = ["print_attack_comparison"]


def _rate(rate: float | None, ci: list[float] | None) -> str:
    if rate is None:
        return "–"
    return f"{percent(rate)}" + (f" [{percent(ci[0])}, {percent(ci[1])}]" if ci else "")


def _table(comparison: dict[str, Any], side: str, title: str) -> Table | None:
    rows = [(c, e[side]) for c, e in comparison["categories"].items() if e[side] is not None]
    if not rows:
        return None
    table = Table(title=title, caption="* beyond noise: the diff's 95% CI excludes 0",
                  box=box.SIMPLE_HEAD, show_edge=False)
    for col in ("category", "rate A [95% CI]", "rate B [95% CI]", "diff", "95% CI",
                "unrated A/B"):
        table.add_column(col, justify="left" if col == "category" else "right",
                         no_wrap=col == "category", overflow="fold")
    for category, p in rows:
        ci = p["ci95"]
        table.add_row(Text(category), _rate(p["rate_a"], p["ci95_a"]),
                      _rate(p["rate_b"], p["ci95_b"]),
                      percent(p["diff"], signed=True) + ("*" if p["beyond_noise"] else " "),
                      "-" if ci is None else f"[{percent(ci[0], signed=True)}, "
                                             f"{percent(ci[1], signed=True)}]",
                      f"{p['unrated_a']}/{p['unrated_b']}")
    return table


def print_attack_comparison(comparison: dict[str, Any], console: Console | None = None) -> None:
    """Print the attack comparison (``assay.compare.compare_attack_runs``) on ``console``
    (default: stdout): the runs, then the attack success rates and the plain defect rates."""
    out = console or Console()
    a, b = comparison["a"], comparison["b"]
    out.print(Text(f"A (baseline): {a['id']} ({a['rows']} rows, {a['strategy'] or '?'})\n"
                   f"B (candidate): {b['id']} ({b['rows']} rows, {b['strategy'] or '?'})"))
    for side, title in (("attack", "attack success rate: diff = B - A (Newcombe 95% CI)"),
                        ("plain", "plain defect rate (the same seeds asked plainly)")):
        table = _table(comparison, side, title)
        if table is not None:
            out.print(table)
