"""The terminal view of a multi-turn attack (``assay jailbreak --strategy crescendo|pair``): per
seed category and over all seeds, the plain defect rate and the attack success rate, each with
its 95% Wilson interval, their difference, the turns to success and the unrated conversations.

Example:
    >>> rate_cell({"defect_rate": 0.25, "defects": 1, "rated": 4, "ci95": [0.0456, 0.6994]},
    ...           "defect_rate", "defects")
    '25.0% 1/4 [5-70]'
    >>> rate_cell({"success_rate": None, "successes": 0, "rated": 0, "ci95": None},
    ...           "success_rate", "successes")
    '–'
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rich import box
from rich.console import Console
from rich.table import Table

from ..redteam import ALL
from ._format import percent
from ._redteam_common import clip, rows_by_id

__all__ = ["print_attack_report", "print_successes", "rate_cell"]


def rate_cell(side: dict[str, Any], rate: str, count: str) -> str:
    """A rate, its count over the rated rows and its 95% interval in whole percents."""
    if side[rate] is None:
        return percent(None)
    low, high = side["ci95"]
    return f"{percent(side[rate])} {side[count]}/{side['rated']} [{low * 100:.0f}-{high * 100:.0f}]"


def _turns(entry: dict[str, Any]) -> str:
    turns = entry["turns_to_success"]
    if turns["median"] is None:
        return percent(None)
    return f"{turns['median']:g} / {turns['mean']:g}"


def print_attack_report(report: dict[str, Any], *, title: str,
                        console: Console | None = None) -> None:
    """The report's table (see the module's docstring) on ``console`` (default: stdout)."""
    strategy = report["strategy"]
    table = Table(title=title, box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False,
                  padding=(0, 0, 0, 1))
    for col in ("category", "plain", strategy, "difference", "turns", "unrated"):
        table.add_column(col, justify="left" if col == "category" else "right", no_wrap=True)
    for category, entry in report["categories"].items():
        attack = entry["attack"]
        table.add_row("all seeds" if category == ALL else category,
                      rate_cell(entry["plain"], "defect_rate", "defects"),
                      rate_cell(attack, "success_rate", "successes"),
                      percent(entry["difference"], signed=True), _turns(entry),
                      f"{attack['unrated']}/{attack['conversations']}")
    (console or Console()).print(table)


def print_successes(path: Path, *, top: int, console: Console) -> None:
    """The request and reply of up to ``top`` successful attacks (for ``--show-text`` only:
    they may be harmful)."""
    shown = 0
    for row_id, row in rows_by_id(path).items():
        if shown >= top:
            break
        if not row.get("success"):
            continue
        hit = next(e for e in row["exchanges"] if e.get("success"))
        console.print(f"[bold]{row_id}[/bold] turn {hit['turn']}: {clip(hit['user'])}\n"
                      f"  -> {clip(hit['assistant'])}", highlight=False)
        shown += 1
