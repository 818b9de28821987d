"""Finding the evidence a judge quoted in the passage it read: the quote becomes a span of the
document's text, or the candidate is rejected ("evidence not found in the source").

A quote matches exactly after whitespace normalisation: runs of whitespace count as one space
on both sides (a quote copied across a line break still matches), quotation marks the judge
put around the whole quote, or an ellipsis, are dropped, and quotation marks inside it match
any other (a judge answering in JSON writes the passage's ``"`` as ``'`` or ``“``).

A quote that is not there word for word (a small judge "quotes" with a word changed, or joins
two sentences into one) is matched to the run of one to three whole sentences of the passage
it most resembles, when their words overlap enough (:func:`resembling`: an F1 of
:data:`MIN_OVERLAP` over words, over characters for Chinese and Japanese). The span is then
those sentences as the passage has them, and everything checked later (is the answer
supported) reads that text, never the judge's wording.

Example:
    >>> text = "Refunds are paid\\nwithin 14 days. Shipping is free."
    >>> start, end = locate('"Refunds are paid within 14 days."', text)
    >>> text[start:end]
    'Refunds are paid\\nwithin 14 days.'
    >>> locate("Refunds are paid within 30 days.", text)  # the sentence it resembles
    (0, 32)
    >>> locate("Shipping costs 5 euros to Spain.", text) is None
    True
    >>> locate("click 'Apply'", 'Then click "Apply".')
    (5, 18)
"""

from __future__ import annotations

import re
from collections import Counter

__all__ = ["MIN_OVERLAP", "MIN_QUOTE_CHARS", "locate", "normalised", "resembling"]

#: A quote shorter than this (after normalisation) is no evidence.
MIN_QUOTE_CHARS = 4
#: The least word-overlap F1 between a quote and the sentences it is matched to.
MIN_OVERLAP = 0.7
#: The most sentences one quote is matched to.
MAX_SENTENCES = 3
#: Words: a Han or kana character alone (they are written without spaces), else a run of
#: letters and digits.
_TOKEN = re.compile(r"[\u3040-\u30ff\u3400-\u9fff\uf900-\ufaff]|[^\W_]+")
#: A sentence: up to and with its end mark (Latin ones before a space or the end), or a line.
_SENTENCE = re.compile(r"[^\s].*?(?:[.!?](?=\s|$)|[。！？]|(?=\n)|$)", re.DOTALL)
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
    """``(start, end)`` of ``quote`` in ``text`` (see the module's docstring): where it is word
    for word (the first occurrence), else the sentences it resembles; ``None`` when neither,
    or when the quote is too short to be evidence."""
    wanted = _cleaned(quote)
    if len(wanted) < MIN_QUOTE_CHARS:
        return None
    flat, where = normalised(text)
    at = flat.translate(_SAME_QUOTES).find(wanted.translate(_SAME_QUOTES))
    if at < 0:
        return resembling(wanted, text)
    start, last = where[at], where[at + len(wanted) - 1]
    return start, last + 1


def _words(text: str) -> Counter[str]:
    return Counter(w.lower() for w in _TOKEN.findall(text))


def _overlap(a: Counter[str], b: Counter[str]) -> float:
    common = sum((a & b).values())
    if not common:
        return 0.0
    precision, recall = common / sum(a.values()), common / sum(b.values())
    return 2 * precision * recall / (precision + recall)


def resembling(quote: str, text: str, min_overlap: float = MIN_OVERLAP
               ) -> tuple[int, int] | None:
    """``(start, end)`` of the one to three consecutive sentences of ``text`` whose words
    overlap ``quote``'s most (F1 at least ``min_overlap``; the first such on a tie), else
    ``None``.

    Example:
        >>> text = "Bikes came in 1860. A larger wheel meant more distance per turn. Tyres came later."
        >>> start, end = resembling("A bigger wheel meant more distance for each turn.", text)
        >>> text[start:end]
        'A larger wheel meant more distance per turn.'
        >>> resembling("Wheels were painted red.", text) is None
        True
    """
    wanted = _words(quote)
    if not wanted:
        return None
    sentences = [m.span() for m in _SENTENCE.finditer(text)]
    best: tuple[float, int, int] | None = None
    for i in range(len(sentences)):
        for j in range(i, min(i + MAX_SENTENCES, len(sentences))):
            start, end = sentences[i][0], sentences[j][1]
            score = _overlap(wanted, _words(text[start:end]))
            if score >= min_overlap and (best is None or score > best[0]):
                best = (score, start, end)
    return None if best is None else (best[1], best[2])
