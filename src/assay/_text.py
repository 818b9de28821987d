"""How assay writes numbers and names for people: one rule for a rate everywhere (terminal,
report, web UI, family notes), and a language's English name for the prompts that tell a model
which language to write in (``assay generate``, simulated users).

Example:
    >>> percent(0.2308), percent(-0.05, signed=True), percent(None), percent("n/a")
    ('23.1%', '-5.0%', '–', '–')
    >>> language_name("ja"), language_name("pt-BR"), language_name("xx")
    ('Japanese', 'Portuguese', "the language with code 'xx'")
"""

from __future__ import annotations

__all__ = ["MISSING", "language_name", "percent"]

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
