"""SQuAD-style answer normalisation and tokenisation, CJK-aware.

Example:
    >>> normalize_tokens("The Alpine Explorer, rated 10,000 mm!")
    ['alpine', 'explorer', 'rated', '10000', 'mm']
    >>> normalize_tokens("帐篷很轻")
    ['帐', '篷', '很', '轻']

The lexical metrics read a text's tokens through :func:`token_tuple`, which remembers the
tokens of the last few thousand short texts: a ground truth is read twice per row (is there a
reference at all, then the score), and datasets repeat their references and answers.
"""

from __future__ import annotations

import re
import string
import unicodedata
from functools import lru_cache

__all__ = ["normalize_text", "normalize_tokens", "token_tuple"]

#: Texts up to this many characters have their tokens remembered (longer ones are rare, cost
#: more to tokenise than to look up anyway, and would make the cache's memory unbounded).
_CACHED_CHARS = 1000
#: How many texts' tokens are remembered (a few MB at most).
_CACHED_TEXTS = 8192

_ARTICLES = re.compile(r"\b(a|an|the)\b")
_CJK = re.compile(r"([\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af])")
_PUNCT = set(string.punctuation)
_ARTICLE_WORDS = frozenset({"a", "an", "the"})


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
    return list(token_tuple(text))


def token_tuple(text: str) -> tuple[str, ...]:
    """:func:`normalize_tokens` as a tuple, remembered for short texts.

    Example:
        >>> token_tuple("The red tent!")
        ('red', 'tent')
    """
    if len(text) > _CACHED_CHARS:
        return _tokens(text)
    return _cached_tokens(text)


def _tokens(text: str) -> tuple[str, ...]:
    words = text.lower().translate(_DROP_PUNCTUATION).split()
    if not all(word.isalnum() for word in words):  # a symbol, an underscore, a mark...
        return tuple(_CJK.sub(r" \1 ", normalize_text(text)).split())
    # Words of letters and digits only: a word boundary (``\b`` in _ARTICLES) falls only
    # between words, so dropping the article words is what the regular expression does.
    words = [word for word in words if word not in _ARTICLE_WORDS]
    if all(word.isascii() for word in words):  # no CJK character to split out
        return tuple(words)
    return tuple(_CJK.sub(r" \1 ", " ".join(words)).split())


_cached_tokens = lru_cache(maxsize=_CACHED_TEXTS)(_tokens)
