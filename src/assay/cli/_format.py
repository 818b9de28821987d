"""How the terminal writes a rate: the one rule of :func:`assay._text.percent`.

Example:
    >>> percent(0.2308), percent(-0.05, signed=True), percent(None)
    ('23.1%', '-5.0%', '–')
"""

from __future__ import annotations

from .._text import percent

__all__ = ["percent"]
