"""Where a long text may be cut in two, best places first.

A cut is a position ``p`` of the text (the left part ends before ``p``, the right begins at
it; whitespace around a cut belongs to neither). The kinds, in the order they are preferred:

1. a paragraph break (a blank line);
2. a sentence end: ``.`` ``!`` ``?`` ``…`` followed by whitespace (closing quotes and brackets
   stay with the sentence), or the CJK ``。！？；`` and their half-width forms, which need no
   space (Chinese and Japanese are written without spaces);
3. a line break;
4. a clause end: ``,`` ``;`` ``:`` followed by whitespace, or the CJK ``，、：``;
5. a space between words;
6. between two characters where either is CJK (Han, kana, full-width): a word boundary there
   too, as CJK words are written without spaces;
7. anywhere (not before a combining mark): only a single word longer than a whole chunk.

So a text is never cut inside a word of a space-separated language, unless one word is longer
than a chunk (a long URL, a base64 blob).

Example:
    >>> text = "One. Two!  Three, four five"
    >>> best_cut(text, 0, len(text), 1, 12), best_cut(text, 0, len(text), 10, 20)
    (9, 17)
    >>> text = "今天天气很好。我们去公园吧！"
    >>> best_cut(text, 0, len(text), 1, 10)
    7
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator

__all__ = ["KINDS", "best_cut", "is_cjk"]

_CLOSERS = "\"'”’)\\]}»」』）》】〉"
_CJK = ("\u2e80-\u2fff\u3000-\u303f\u3040-\u30ff\u31f0-\u31ff\u3400-\u4dbf\u4e00-\u9fff"
        "\uf900-\ufaff\uff00-\uffef\U00020000-\U0003134f")
_CJK_CHAR = re.compile(f"[{_CJK}]")

_PARAGRAPH = re.compile(r"(?<!\s)[^\S\n]*\n\s*?\n\s*")
_SENTENCE = re.compile(f"[.!?…]+[{_CLOSERS}]*(?=\\s)"  # Latin: a space follows
                       f"|[。！？；｡]+[{_CLOSERS}]*"  # CJK: nothing needs to follow
                       f"|[．!?]+[{_CLOSERS}]*(?=[{_CJK}])")  # before CJK text
_LINE = re.compile(r"(?<!\s)[^\S\n]*\n\s*")
_CLAUSE = re.compile(f"[,;:][{_CLOSERS}]*(?=\\s)|[，、：,][{_CLOSERS}]*(?=[{_CJK}])|[，、：]")
_SPACE = re.compile(r"(?<!\s)\s+")
_LOOKAHEAD = 256  # how far past a window a match is read (a blank line after trailing spaces)


#: The kinds of cut found by a pattern, best first: (name, pattern, whether the cut is at the
#: end of a match rather than its start).
KINDS: tuple[tuple[str, re.Pattern[str], bool], ...] = (
    ("paragraph", _PARAGRAPH, False),
    ("sentence", _SENTENCE, True),
    ("line", _LINE, False),
    ("clause", _CLAUSE, True),
    ("space", _SPACE, False),
)


def is_cjk(char: str) -> bool:
    """Whether ``char`` is written without spaces around its words (Han, kana, full-width).

    Example:
        >>> is_cjk("漢"), is_cjk("か"), is_cjk("a"), is_cjk("한")
        (True, True, False, False)
    """
    return bool(_CJK_CHAR.match(char))


def best_cut(text: str, start: int, end: int, low: int, high: int,
             *, middle: int | None = None) -> int:
    """The best cut of ``text[start:end]`` (whose first and last characters are not
    whitespace) at a position in ``[low, high]``.

    The best kind of cut found there wins; among cuts of that kind, the last one (so a chunk
    holds as much as it can), or with ``middle`` the one nearest to it. A cut always leaves
    text on both sides.

    Example:
        >>> best_cut("aaa bbb ccc ddd", 0, 15, 1, 15, middle=8)
        7
    """
    low, high = max(low, start + 1), min(high, end - 1)
    for _name, pattern, at_end in KINDS:
        cuts = list(_cuts(text, pattern, at_end, start, end, low, high))
        if cuts:
            return _pick(cuts, middle)
    cjk = [p for p in range(low, high + 1) if is_cjk(text[p - 1]) or is_cjk(text[p])]
    if cjk:
        return _pick(cjk, middle)
    hard = [p for p in range(low, high + 1) if not unicodedata.combining(text[p])]
    return _pick(hard or [high], middle)


def _cuts(text: str, pattern: re.Pattern[str], at_end: bool, start: int, end: int, low: int,
          high: int) -> Iterator[int]:
    """The cuts ``pattern`` finds in ``text[start:end]`` at a position in ``[low, high]``."""
    # Bounded on both sides: searching on to ``end`` for a kind the window lacks would make
    # cutting a long text quadratic. A match needs at most a few characters past ``high``.
    for match in pattern.finditer(text, max(start, low - 8), min(end, high + _LOOKAHEAD)):
        if match.start() > high:
            return
        position = match.end() if at_end else match.start()
        if low <= position <= high:
            yield position


def _pick(cuts: list[int], middle: int | None) -> int:
    return cuts[-1] if middle is None else min(cuts, key=lambda p: (abs(p - middle), p))
