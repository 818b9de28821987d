"""An arena's leaderboard in the terminal, for ``assay arena`` and ``assay show`` of an arena
run: the ratings table on stdout, then the judge's position line, the overlap note and the
rows some systems lack on stderr.

Example:
    >>> board = {"ratings": [{"system": "v2", "rank": "1", "rating": 1050.0, "low": 1010.0,
    ...                       "high": 1090.0, "wins": 3, "ties": 0, "losses": 1,
    ...                       "unscored": 0}],
    ...          "rows": 4, "comparisons": 4, "separated": True, "missing": {},
    ...          "position": {"first_shown_share": None}}
    >>> import contextlib, io
    >>> shown = io.StringIO()
    >>> with contextlib.redirect_stdout(shown):
    ...     print_board(board, "fake")
    >>> "4 pairs judged by fake" in shown.getvalue(), "1010 to 1090" in shown.getvalue()
    (True, True)
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rich.console import Console
from rich.table import Table

from ..report import position_line

__all__ = ["print_board"]

err = Console(stderr=True)


def print_board(board: Mapping[str, Any], judge: str) -> None:
    """The leaderboard table, then the judge's position figures and the rows some systems
    lack."""
    view = Table(title=f"assay arena: {len(board['ratings'])} systems, {board['rows']} rows, "
                       f"{board['comparisons']} pairs judged by {judge}")
    for column in ("rank", "system", "rating", "95% interval", "win", "tie", "loss",
                   "unscored"):
        view.add_column(column, justify="left" if column == "system" else "right")
    for r in board["ratings"]:
        rated = r["rating"] is not None
        view.add_row(r["rank"], r["system"], f"{r['rating']:.0f}" if rated else "-",
                     f"{r['low']:.0f} to {r['high']:.0f}" if rated else "no pair decided",
                     str(r["wins"]), str(r["ties"]), str(r["losses"]), str(r["unscored"]))
    Console().print(view)
    line = position_line(board.get("position") or {})
    if line is not None:
        err.print(line, highlight=False, markup=False)
    effect = board.get("length_effect")
    if effect:
        err.print(f"length control: ratings at equal length; a longer answer gains "
                  f"{effect['points']:+.0f} points per unit of normalised length difference "
                  f"(95%: {effect['low']:+.0f} to {effect['high']:+.0f})",
                  highlight=False, markup=False)
    if not board["separated"]:
        err.print("ranks such as 1-2: their 95% intervals overlap; more rows tell them apart",
                  highlight=False, markup=False)
    for system, rows in (board.get("missing") or {}).items():
        err.print(f"{system} lacks {len(rows)} shared row(s) (left out of its pairs): "
                  f"{', '.join(rows[:5])}{' ...' if len(rows) > 5 else ''}",
                  highlight=False, markup=False)
