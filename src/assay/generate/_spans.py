"""Finding the evidence a judge quoted in the passage it read: the quote becomes a span of the
document's text, or the candidate is rejected ("evidence not found in the source").

A quote matches exactly after whitespace normalisation: runs of whitespace count as one space
on both sides (a quote copied across a line break still matches), and quotation marks or an
ellipsis the judge put around the whole quote are dropped. Nothing else is forgiven: a changed
word, letter case or punctuation mark inside the quote is not the passage's text.

Example:
    >>> text = "Refunds are paid\\nwithin 14 days. Shipping is free."
    >>> start, end = locate('"Refunds are paid within 14 days."', text)
    >>> text[start:end]
    'Refunds are paid\\nwithin 14 days.'
    >>> locate("Refunds are paid within 30 days.", text) is None
    True
"""

from __future__ import annotations

import re

__all__ = ["MIN_QUOTE_CHARS", "locate", "normalised"]

#: A quote shorter than this (after normalisation) is no evidence.
MIN_QUOTE_CHARS = 4
_SPACE = re.compile(r"\s+")
_WRAPPING = "\"'“”‘’«»「」『』`"


def normalised(text: str) -> tuple[str, list[int]]:
    """``text`` with each run of whitespace as one space, and for each character of the result
    the position in ``text`` it came from.

    Example:
        >>> normalised("a \\n b")
        ('a b', [0, 1, 4])
    """
    out: list[str] = []
    where: list[int] = []
    pos = 0
    for m in _SPACE.finditer(text):
        out.append(text[pos:m.start()])
        where.extend(range(pos, m.start()))
        out.append(" ")
        where.append(m.start())
        pos = m.end()
    out.append(text[pos:])
    where.extend(range(pos, len(text)))
    return "".join(out), where


def _cleaned(quote: str) -> str:
    quote = _SPACE.sub(" ", quote).strip()
    for _ in range(2):
        quote = quote.strip(_WRAPPING).strip()
        for ellipsis in ("...", "…"):
            quote = quote.removeprefix(ellipsis).removesuffix(ellipsis).strip()
    return quote


def locate(quote: str, text: str) -> tuple[int, int] | None:
    """``(start, end)`` of ``quote`` in ``text`` (see the module's docstring), the first
    occurrence; ``None`` when it is not there or too short to be evidence."""
    wanted = _cleaned(quote)
    if len(wanted) < MIN_QUOTE_CHARS:
        return None
    flat, where = normalised(text)
    at = flat.find(wanted)
    if at < 0:
        return None
    start, last = where[at], where[at + len(wanted) - 1]
    return start, last + 1
