"""How assay writes numbers and names for people: one rule for a rate everywhere (terminal,
report, web UI, family notes), a file name made safe to print on a terminal (:func:`printable`),
and a language's English name for the prompts that tell a model which language to write in
(``assay generate``, simulated users).

Example:
    >>> percent(0.2308), percent(-0.05, signed=True), percent(None), percent("n/a")
    ('23.1%', '-5.0%', '–', '–')
    >>> language_name("ja"), language_name("pt-BR"), language_name("xx")
    ('Japanese', 'Portuguese', "the language with code 'xx'")
    >>> printable("docs/a\x1b]0;pwned\x07.txt")
    'docs/a\\\\x1b]0;pwned\\\\x07.txt'
"""

from __future__ import annotations

import re
from os import PathLike

__all__ = ["MISSING", "language_name", "percent", "printable"]

_LANGUAGES = {
    "en": "English", "zh": "Chinese", "ja": "Japanese", "ko": "Korean", "es": "Spanish",
    "fr": "French", "de": "German", "it": "Italian", "pt": "Portuguese", "nl": "Dutch",
    "ru": "Russian", "ar": "Arabic", "hi": "Hindi", "tr": "Turkish", "pl": "Polish",
    "sv": "Swedish", "da": "Danish", "no": "Norwegian", "fi": "Finnish", "cs": "Czech",
    "el": "Greek", "he": "Hebrew", "id": "Indonesian", "vi": "Vietnamese", "th": "Thai",
    "uk": "Ukrainian", "ro": "Romanian", "hu": "Hungarian", "ca": "Catalan",
}

#: What stands for a number that is not there.
MISSING = "–"


def percent(rate: object, signed: bool = False) -> str:
    """A 0-1 rate as a percentage with one decimal (with its sign when ``signed``); ``–`` when
    missing or not a number."""
    if not isinstance(rate, (int, float)) or isinstance(rate, bool):
        return MISSING
    return f"{rate:+.1%}" if signed else f"{rate:.1%}"


def language_name(lang: str) -> str:
    """The English name of a language code (its primary subtag: ``pt-BR`` is Portuguese), or
    a phrase naming the code when it is not a known one."""
    name = _LANGUAGES.get(lang.split("-")[0].lower())
    return name or f"the language with code {lang!r}"


# Control characters (C0, DEL, C1) and the bidirectional overrides and isolates, which reorder
# what a terminal shows ("Trojan Source").
_UNPRINTABLE = re.compile("[\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
_UNPRINTABLE_BUT_LINES = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def printable(text: str | PathLike[str], *, lines: bool = False) -> str:
    """``text`` (a file name, or a message naming files) safe to print on a terminal: each
    control character written as its escape (``\\x1b``), so a name cannot move the cursor,
    set the window title or reorder the line; with ``lines``, new lines and tabs are kept
    (a message of several lines).

    Example:
        >>> printable("a\\tb\\nc"), printable("a\\tb\\nc", lines=True)
        ('a\\\\tb\\\\nc', 'a\\tb\\nc')
        >>> printable("evil\\u202etxt.exe")
        'evil\\\\u202etxt.exe'
    """
    pattern = _UNPRINTABLE_BUT_LINES if lines else _UNPRINTABLE
    return pattern.sub(_escaped, str(text) if not isinstance(text, str) else text)


def _escaped(match: re.Match[str]) -> str:
    code = ord(match.group())
    return {9: "\\t", 10: "\\n", 13: "\\r"}.get(code) or (
        f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}")
