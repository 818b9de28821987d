"""Finding the evidence a judge quoted in the passage it read: the quote becomes a span of the
document's text, or the candidate is rejected ("evidence not found in the source").

A quote matches exactly after whitespace normalisation: runs of whitespace count as one space
on both sides (a quote copied across a line break still matches), quotation marks the judge
put around the whole quote, or an ellipsis, are dropped, and quotation marks inside it match
any other (a judge answering in JSON writes the passage's ``"`` as ``'`` or ``“``). Nothing
else is forgiven: a changed word, letter case or other punctuation mark inside the quote is
not the passage's text.

Example:
    >>> text = "Refunds are paid\\nwithin 14 days. Shipping is free."
    >>> start, end = locate('"Refunds are paid within 14 days."', text)
    >>> text[start:end]
    'Refunds are paid\\nwithin 14 days.'
    >>> locate("Refunds are paid within 30 days.", text) is None
    True
    >>> locate("click 'Apply'", 'Then click "Apply".')
    (5, 18)
"""

from __future__ import annotations

import re

__all__ = ["MIN_QUOTE_CHARS", "locate", "normalised"]

#: A quote shorter than this (after normalisation) is no evidence.
MIN_QUOTE_CHARS = 4
_SPACE = re.compile(r"\s+")
_WRAPPING = "\"'“”‘’«»「」『』`"
#: Quotation marks, all read as one (a one-to-one mapping: offsets do not move).
_SAME_QUOTES = str.maketrans({mark: '"' for mark in "'“”‘’«»「」『』＂"})


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
    """``quote`` with whitespace runs as one space, without an ellipsis at either end or a pair
    of quotation marks around it all.

    Example:
        >>> _cleaned(' “Refunds ...are paid.” '), _cleaned("click 'Apply'")
        ('Refunds ...are paid.', "click 'Apply'")
    """
    quote = _SPACE.sub(" ", quote).strip()
    for _ in range(2):
        for ellipsis in ("...", "…"):
            quote = quote.removeprefix(ellipsis).removesuffix(ellipsis).strip()
        if len(quote) >= 2 and quote[0] in _WRAPPING and quote[-1] in _WRAPPING:
            quote = quote[1:-1].strip()
    return quote


def locate(quote: str, text: str) -> tuple[int, int] | None:
    """``(start, end)`` of ``quote`` in ``text`` (see the module's docstring), the first
    occurrence; ``None`` when it is not there or too short to be evidence."""
    wanted = _cleaned(quote)
    if len(wanted) < MIN_QUOTE_CHARS:
        return None
    flat, where = normalised(text)
    at = flat.translate(_SAME_QUOTES).find(wanted.translate(_SAME_QUOTES))
    if at < 0:
        return None
    start, last = where[at], where[at + len(wanted) - 1]
    return start, last + 1
