"""How assay writes numbers for people: one rule for a rate everywhere (terminal, report, web
UI, family notes).

Example:
    >>> percent(0.2308), percent(-0.05, signed=True), percent(None), percent("n/a")
    ('23.1%', '-5.0%', '–', '–')
"""

from __future__ import annotations

__all__ = ["MISSING", "percent"]

#: What stands for a number that is not there.
MISSING = "–"


def percent(rate: object, signed: bool = False) -> str:
    """A 0-1 rate as a percentage with one decimal (with its sign when ``signed``); ``–`` when
    missing or not a number."""
    if not isinstance(rate, (int, float)) or isinstance(rate, bool):
        return MISSING
    return f"{rate:+.1%}" if signed else f"{rate:.1%}"
