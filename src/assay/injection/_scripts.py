"""The scripts some languages of the patterns are written in only, so a text that holds none of
a script's letters is not scanned with (nor compiles) those languages' patterns.

Every pattern of Chinese, Japanese, Korean and Russian needs, on each path through it, a
letter of its script (tests/test_injection_scripts.py checks it with the regular-expression
parser, and that no letter outside a script matches one inside it when case is ignored): a text
without such a letter cannot match them, and skipping them changes no flag.

Example:
    >>> sorted(s for s, letters in SCRIPTS.items() if letters.search("Привет, 世界"))
    ['cjk', 'cyrillic']
    >>> WRITTEN_IN["ja"], "en" in WRITTEN_IN
    ('cjk', False)
"""

from __future__ import annotations

import re

__all__ = ["SCRIPTS", "WRITTEN_IN"]

SCRIPTS: dict[str, re.Pattern[str]] = {
    "cjk": re.compile("[\u1100-\u11ff\u2e80-\u9fff\ua960-\ua97f\uac00-\ud7ff\uf900-\ufaff"
                      "\ufe30-\ufe4f\uff00-\uffef\U00020000-\U0003ffff]"),
    "cyrillic": re.compile("[\u0400-\u052f\u1c80-\u1c8f\u2de0-\u2dff\ua640-\ua69f]"),
}
"""Each script as a class of its letters: Han, kana and Hangul (with CJK punctuation and
full-width forms); Cyrillic."""

WRITTEN_IN = {"zh": "cjk", "ja": "cjk", "ko": "cjk", "ru": "cyrillic"}
"""The languages whose patterns are tried only on a text that holds a letter of their script."""
