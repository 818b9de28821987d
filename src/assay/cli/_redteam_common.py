"""What ``assay simulate`` and ``assay jailbreak`` share: the target and seed help, closing
the app target after the work, the failed-share exit, and the defect comparison table.

Example:
    >>> clip("a" * 300, 10)
    'aaaaaaaaa…'
"""

from __future__ import annotations

from collections.abc import Awaitable
from pathlib import Path
from typing import Annotated, Any, TypeVar

import typer
from rich import box
from rich.console import Console
from rich.table import Table

from ..data import read_records
from ..redteam import (
    ANY,
    BUILTIN,
)
from ..targets import FailureTally, close_target
from ._format import percent
from ._options import comma_names

__all__ = ["SEEDS_HELP", "TARGET_HELP", "MaxFailedShare", "categories", "clip", "exit_if_failed",
           "owning", "print_defect_comparison", "print_text", "rows_by_id"]

err = Console(stderr=True)

T = TypeVar("T")

MaxFailedShare = Annotated[float, typer.Option(
    min=0.0, max=1.0, help="Exit 3 when more than this share of the rows could not be scored "
    "(the app or the judge failed; 'does not apply' does not count).")]

TARGET_HELP = ("The app under test: python:package.module:function (called with the "
                "conversation, a list of {role, content} dicts), openai:MODEL, http:URL (POSTs "
                "{\"messages\": [...]}), or local (the embedded model).")
SEEDS_HELP = ("Seed requests, a file or a directory of them: JSONL/CSV with a prompt (or goal, "
               "behavior) column, or one per "
               f"line in a .txt; '{BUILTIN}' for the shipped list (10 per harm category).")


def clip(text: str, width: int = 160) -> str:
    text = " ".join(text.split())
    return text if len(text) <= width else text[:width - 1] + "…"


async def owning(target: object, work: Awaitable[T]) -> T:
    """Await ``work``, then close ``target`` (once, whatever happened)."""
    try:
        return await work
    finally:
        await close_target(target)


def exit_if_failed(failures: FailureTally, max_share: float) -> None:
    """Name the top causes of unscored rows, if any; exit 3 when their share is over
    ``max_share``."""
    lines = failures.describe(max_share)
    if not lines:
        return
    over = failures.share > max_share
    colour = "red" if over else "yellow"
    err.print(f"[{colour}]{lines[0]}[/{colour}]", highlight=False, soft_wrap=True)
    for line in lines[1:]:
        err.print(line, highlight=False, soft_wrap=True, markup=False)
    if over:
        raise typer.Exit(3)


def categories(value: str | None) -> list[str] | None:
    return comma_names(value) if value else None


def print_text(console: Console, row_id: str, row: dict[str, Any]) -> None:
    """One conversation's first request and last reply, clipped (for --show-text only)."""
    template = f" ({row['template']})" if row.get("template") else ""
    console.print(f"[bold]{row_id}[/bold]{template} {clip(row['messages'][0]['content'])}\n"
                  f"  -> {clip(_last_reply(row))}", highlight=False)


def _last_reply(row: dict[str, Any]) -> str:
    replies = [m["content"] for m in row.get("messages", []) if m.get("role") == "assistant"]
    return replies[-1] if replies else ""


def print_defect_comparison(report: dict[str, Any], *, title: str,
                            texts: dict[str, dict[str, Any]] | None = None,
                            console: Console | None = None) -> None:
    """The per-category defect rates of both sides, their difference, and the rows whose
    severity rose the most (with the injected request and reply when ``texts`` is given), on
    ``console`` (default: stdout)."""
    # no column rules, one space between columns: the table reads at 80 columns
    table = Table(title=title, box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False,
                  padding=(0, 0, 0, 1))
    for col in ("category", "plain", "injected", "difference", "scored", "refused",
                "unscored"):
        table.add_column(col, justify="left" if col == "category" else "right", no_wrap=True)
    for cat, entry in report["categories"].items():
        base, inj = entry["base"], entry["injected"]
        table.add_row("any category" if cat == ANY else cat,
                      f"{percent(base['defect_rate'])} ({base['defects']})",
                      f"{percent(inj['defect_rate'])} ({inj['defects']})", percent(entry["difference"], signed=True),
                      f"{base['scored']}/{inj['scored']}", f"{base['refused']}/{inj['refused']}",
                      f"{base['unscored']}/{inj['unscored']}")
    console = console or Console()
    console.print(table)
    if report["top_rises"]:
        rises = Table(title="largest severity rises (paired rows)")
        for col in ("id", "category", "plain", "injected", "rise", "injected reply refused"):
            rises.add_column(col, justify="left" if col in ("id", "category") else "right",
                             no_wrap=col in ("id", "category"))
        for r in report["top_rises"]:
            refused = {True: "yes (no defect)", False: "no", None: "-"}[r.get("refused")]
            rises.add_row(r["id"], r["category"], f"{r['base']:g}", f"{r['injected']:g}",
                          f"+{r['rise']:g}", refused)
        console.print(rises)
        for r in report["top_rises"]:
            row = (texts or {}).get(r["id"])
            if row:
                print_text(console, r["id"], row)
    for key, what in (("only_base", "plain"), ("only_injected", "injected")):
        if report.get(key):
            err.print(f"[yellow]{len(report[key])} rows only in the {what} run, not compared:"
                      f"[/yellow] {', '.join(report[key][:10])}", highlight=False)


def rows_by_id(path: Path) -> dict[str, dict[str, Any]]:
    """A dataset's conversation rows by id (for --show-text; an unreadable row is skipped)."""
    if not path.is_file():
        return {}
    return {str(rec.get("id")): rec for _, rec in read_records(path, [])
            if isinstance(rec.get("messages"), list)}
