"""SQuAD-style answer normalisation and tokenisation, CJK-aware.

Example:
    >>> normalize_tokens("The Alpine Explorer, rated 10,000 mm!")
    ['alpine', 'explorer', 'rated', '10000', 'mm']
    >>> normalize_tokens("帐篷很轻")
    ['帐', '篷', '很', '轻']
"""

from __future__ import annotations

import re
import string
import unicodedata

__all__ = ["normalize_text", "normalize_tokens"]

_ARTICLES = re.compile(r"\b(a|an|the)\b")
_CJK = re.compile(r"([\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af])")
_PUNCT = set(string.punctuation)


class _DropPunctuation(dict[int, int | None]):
    """A ``str.translate`` table that deletes punctuation (ASCII, and every Unicode ``P*``
    category), deciding each code point once and caching it, so translation runs in C."""

    def __missing__(self, code: int) -> int | None:
        ch = chr(code)
        kept = None if ch in _PUNCT or unicodedata.category(ch).startswith("P") else code
        self[code] = kept
        return kept


_DROP_PUNCTUATION = _DropPunctuation()


def normalize_text(text: str) -> str:
    """Lower-case, drop punctuation (ASCII and Unicode) and English articles, squash spaces.

    Example:
        >>> normalize_text("«Quoted» — the end… (really)!")
        'quoted end really'
    """
    text = text.lower().translate(_DROP_PUNCTUATION)
    text = _ARTICLES.sub(" ", text)
    return " ".join(text.split())


def normalize_tokens(text: str) -> list[str]:
    """Normalised tokens: whitespace words, with each CJK character its own token."""
    return _CJK.sub(r" \1 ", normalize_text(text)).split()
