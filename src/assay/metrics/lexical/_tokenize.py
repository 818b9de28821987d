"""The ROUGE tokenisers: one per run language, for every script.

rouge-score's own tokenizer keeps only ``[a-z0-9]``: "café" becomes "caf", and Russian or
Chinese text has no tokens at all. These tokenisers keep its rules for ASCII text (lower-case,
anything that is not a letter or digit separates tokens, the Porter stemmer on tokens longer than
3 characters, for English) and extend them to every script: letters, digits and combining marks
of any script make tokens (after NFKC normalisation), and each CJK character is a token of its
own. ``en`` stems every word, an accented one exactly as its unaccented form (keeping its
accents), so writing "é" for "e" changes no score; ``zh`` does not stem. The run's language picks
one of them for all its rows, so a row's tokens never depend on which characters it happens to
hold.

Example:
    >>> RougeTokenizer("en").tokenize("The cafés were OPEN, e.g. on Sundays!")
    ['the', 'café', 'were', 'open', 'e', 'g', 'on', 'sunday']
    >>> RougeTokenizer("zh").tokenize("这个帐篷，只有1.3kg。")
    ['这', '个', '帐', '篷', '只', '有', '1', '3kg']
"""

from __future__ import annotations

import unicodedata
from functools import lru_cache
from typing import Any

from .._settings import LANG, Lang
from ._normalize import _CJK

__all__ = ["RougeTokenizer"]


class _Separators(dict[int, int | None]):
    """A ``str.translate`` table mapping every character that is not a letter, digit or
    combining mark (Unicode categories L*, N*, M*) to a space, decided once per code point."""

    def __missing__(self, code: int) -> int | None:
        kept = code if unicodedata.category(chr(code))[0] in "LNM" else 32
        self[code] = kept
        return kept


_SEPARATORS = _Separators()


@lru_cache(maxsize=1)
def _porter() -> Any:
    from nltk.stem import porter  # what rouge-score's use_stemmer=True uses

    return porter.PorterStemmer()


@lru_cache(maxsize=65536)
def _stem(token: str) -> str:
    """The Porter stem of ``token``; an accented word is stemmed as its unaccented form is, and
    keeps its accents where the stem keeps its letters ("opéned" -> "opén", as "opened" ->
    "open").

    Example:
        >>> [_stem(w) for w in ("opened", "opéned", "cafés", "résumés")]
        ['open', 'opén', 'café', 'résum']
    """
    if token.isascii():
        return str(_porter().stem(token))
    # one base letter per character (é -> e), so positions in ``folded`` are those in ``token``
    folded = "".join(unicodedata.normalize("NFD", ch)[0] for ch in token)
    stem = str(_porter().stem(folded))
    kept = 0
    for a, b in zip(stem, folded):
        if a != b:
            break
        kept += 1
    return token[:kept] + stem[kept:]


class RougeTokenizer:
    """A rouge-score ``Tokenizer`` (it has ``tokenize(text) -> list[str]``) for one language.

    Args:
        lang: ``"en"`` (Porter stemmer on every word longer than 3 characters) or ``"zh"``
            (no stemming). Both split CJK text per character.
    """

    def __init__(self, lang: Lang) -> None:
        if lang not in LANG.choices:
            raise ValueError(f"Got lang={lang!r}. Must be one of {list(LANG.choices)}.")
        self.lang = lang
        self.stem = lang == "en"

    def tokenize(self, text: str) -> list[str]:
        """The tokens of ``text``."""
        text = unicodedata.normalize("NFKC", text).lower().translate(_SEPARATORS)
        tokens = _CJK.sub(r" \1 ", text).split()
        if self.stem:
            tokens = [_stem(t) if len(t) > 3 else t for t in tokens]
        return tokens
