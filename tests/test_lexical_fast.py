"""The lexical metrics' fast tokens: the same tokens as the SQuAD normalisation's regular
expressions, remembered for short texts without sharing a caller's list, and token F1's shared
count with multiplicity."""

from __future__ import annotations

import random
from collections import Counter

from assay.metrics.lexical import token_f1
from assay.metrics.lexical._normalize import (
    _CJK,
    _tokens,
    normalize_text,
    normalize_tokens,
    token_tuple,
)

#: Letters, articles, every kind of space, underscores, symbols, numbers, combining marks,
#: punctuation (ASCII and Unicode), CJK, Arabic, emoji.
PIECES = [*"abcdeint h", "the", "a", "an", "The", "AN", " ", "  ", "\t", "\n", "\u2028", "\x1c",
          "\x85", "\u00a0", "\u200b", "_", "$", "+", "€", "²", "½", "é", "e\u0301", "北", "京",
          "の", "한", ".", ",", "!", "«", "»", "—", "…", "ǅ", "İ", "ß", "١", "\u0600", "🙂", "™"]


def _by_regex(text: str) -> tuple[str, ...]:
    """The tokens as the regular expressions give them (the definition)."""
    return tuple(_CJK.sub(r" \1 ", normalize_text(text)).split())


def test_fast_tokens_equal_the_regular_expressions() -> None:
    rng = random.Random(1)
    for _ in range(20000):
        text = "".join(rng.choice(PIECES) for _ in range(rng.randint(0, 14)))
        assert _tokens(text) == _by_regex(text), repr(text)


def test_token_cache_gives_fresh_tokens_every_time() -> None:
    first = normalize_tokens("The Red tent!")
    first.append("mutated")  # a caller's list is its own: the cache is not touched
    assert normalize_tokens("The Red tent!") == ["red", "tent"]
    long = "word " * 400 + "Ünïcode «quote»"  # longer than the cached texts: same tokens
    assert token_tuple(long) == tuple(normalize_tokens(long)) == (("word",) * 400
                                                                  + ("ünïcode", "quote"))


def test_token_f1_counts_shared_tokens_with_multiplicity() -> None:
    rng = random.Random(0)
    for _ in range(500):
        pred = " ".join(rng.choice("bcdfg") for _ in range(rng.randint(1, 8)))
        ref = " ".join(rng.choice("bcdfg") for _ in range(rng.randint(1, 8)))
        p, r = pred.split(), ref.split()
        common = sum((Counter(p) & Counter(r)).values())
        want = 0.0 if common == 0 else 2 * (common / len(p)) * (common / len(r)) / (
            common / len(p) + common / len(r))
        assert token_f1(pred, ref) == want
