"""How the terminal writes a rate.

Example:
    >>> percent(0.2308), percent(-0.05, signed=True), percent(None)
    ('23.1%', '-5.0%', '-')
"""

from __future__ import annotations

__all__ = ["percent"]


def percent(rate: float | None, signed: bool = False) -> str:
    """A 0-1 rate as a percentage with one decimal (with its sign when ``signed``); ``-`` when
    missing."""
    if rate is None:
        return "-"
    return f"{rate:+.1%}" if signed else f"{rate:.1%}"
