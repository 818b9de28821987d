"""Which language a text the learned detector reads is in, and whether the detector knows it.

The patterns and the learned detector know :data:`SUPPORTED` (English, Chinese, Spanish,
French, German, Portuguese, Japanese, Korean, Russian). An answer in Italian or Arabic is read
by them too, but they know none of its wording: the defence is thinner there, and a run says
so (``unknown_language`` in ``summary.json``) instead of treating the row as safe.

Cheap first, as every row of a run is looked at (only the first :data:`SAMPLE_CHARS`
characters, invisible characters read as spaces, NFKC):

- the script: mostly Hiragana or Katakana is Japanese, Hangul Korean, Han without kana Chinese;
- fewer than :data:`MIN_LETTERS` letters or :data:`MIN_WORDS` words: None, too little to tell
  (a number, a name, a short phrase);
- plain ASCII with English function words ("the", "of", "is", ...): English;
- anything else (accented Latin, Cyrillic, Arabic, Devanagari, ...): ``py3langid`` (the
  maintained fork of langid.py, its Naive Bayes model shipped in the package, numpy only;
  loaded on first use, under 1 s; then about 0.1 ms a text) over the nine languages and
  :data:`OTHERS`, the widely written ones a text could be confused with or that apps answer
  in. A language outside the nine below :data:`MIN_CONFIDENCE` is None (names).

A mixed text is identified as a whole (an English answer with one Italian sentence reads as
English).

Example:
    >>> language_of("The capital of France is Paris, on the Seine.")
    'en'
    >>> language_of("フランスの首都はパリです。"), language_of("프랑스의 수도는 파리입니다.")
    ('ja', 'ko')
    >>> language_of("Ok.") is None
    True
    >>> language_of("La capitale della Francia è Parigi, sulla Senna.")
    'it'
    >>> is_supported("it"), is_supported("es")
    (False, True)
"""

from __future__ import annotations

import re
import unicodedata
from typing import Any

from assay.data import Row

from ._once import loaded_once
from ._scan import LEARNED, judged_texts

__all__ = ["MIN_CONFIDENCE", "MIN_LETTERS", "MIN_WORDS", "OTHERS", "SAMPLE_CHARS", "SUPPORTED",
           "is_supported", "language_of", "unknown_languages"]

SUPPORTED = ("en", "zh", "es", "fr", "de", "pt", "ja", "ko", "ru")
"""The languages the patterns and the learned detector are written and trained for."""

OTHERS = ("it", "nl", "ca", "ro", "pl", "cs", "sk", "sl", "hr", "sr", "bs", "hu", "fi",
          "et", "lv", "lt", "sv", "da", "no", "nn", "is", "af", "id", "ms", "tl", "vi", "tr",
          "az", "uk", "be", "bg", "mk", "kk", "el", "he", "ar", "fa", "ur", "hi", "bn", "mr",
          "ta", "te", "th", "sw", "eu", "cy", "ga", "la", "eo")
"""The other languages a text may be identified as (each an ``unknown_language``). Not
Galician, which py3langid gives Portuguese and Spanish short texts."""

MIN_LETTERS, MIN_WORDS = 12, 4
"""Texts with fewer letters, or (outside Chinese, Japanese and Korean) fewer words, are not
identified (None)."""

SAMPLE_CHARS = 1000
"""Only the first characters of a long text are looked at (a story's language is plain by
then)."""

MIN_CONFIDENCE = 0.5
"""A language outside :data:`SUPPORTED` is only said with at least this probability (else
None): py3langid spreads its guesses over many languages on names and short phrases."""

_INVISIBLE = re.compile("[\u00ad\u200b-\u200f\u2060-\u2064\ufeff\U000e0000-\U000e007f]")
_WORD = re.compile(r"[a-z]+")
_LETTER = re.compile(r"[^\W\d_]")
_KANA = re.compile("[\u3040-\u30ff\u31f0-\u31ff]")
_HANGUL = re.compile("[\uac00-\ud7af\u1100-\u11ff\u3130-\u318f]")
_HAN = re.compile("[\u4e00-\u9fff\u3400-\u4dbf]")
_ENGLISH = frozenset((  # not words other Latin-script languages share (in, an, as, do)
    "the", "of", "and", "to", "that", "it", "for", "you", "with", "are", "this", "not", "or",
    "by", "have", "from", "at", "your", "can", "will", "if", "which", "there", "they", "their",
    "she", "has", "what", "when", "how", "does", "these", "its", "been", "were", "would",
    "should", "could", "about", "into", "than", "then"))
_ENGLISH_SHARE = 0.15  # an ASCII text with this share of English function words is English
_LANGID_SET = SUPPORTED + OTHERS
_TYPOGRAPHIC = str.maketrans("\u2018\u2019\u201c\u201d\u2013\u2014\u2026\u00a0", "''\"\"-- .")


def language_of(text: str) -> str | None:
    """The ISO 639-1 code of ``text``'s language, or None for too little text to tell.

    Example:
        >>> language_of("Смешайте муку с маслом и выпекайте двадцать минут.")
        'ru'
        >>> language_of("把面粉和黄油混合，烤二十分钟。")
        'zh'
        >>> language_of("12.5 kg") is None
        True
    """
    text = _INVISIBLE.sub(" ", unicodedata.normalize("NFKC", text[:SAMPLE_CHARS]))
    if text.translate(_TYPOGRAPHIC).isascii():
        words = _WORD.findall(text.lower())
        if sum(map(len, words)) < MIN_LETTERS or len(words) < MIN_WORDS:
            return None
        if sum(w in _ENGLISH for w in words) >= _ENGLISH_SHARE * len(words):
            return "en"
        return _identified(text)
    letters = len(_LETTER.findall(text))
    kana, hangul, han = (len(script.findall(text)) for script in (_KANA, _HANGUL, _HAN))
    cjk = kana + hangul + han
    if cjk * 2 >= letters and cjk >= 4:  # CJK letters: a word is one to three of them
        return "ja" if kana * 10 >= cjk else "ko" if hangul >= han else "zh"
    if letters < MIN_LETTERS or len(text.split()) < MIN_WORDS:
        return None
    return _identified(text)


def _identified(text: str) -> str | None:
    """py3langid's language of ``text`` (None: an unsupported one below
    :data:`MIN_CONFIDENCE`)."""
    language, confidence = _identifier().classify(text)
    if language not in SUPPORTED and confidence < MIN_CONFIDENCE:
        return None  # names and short phrases: py3langid guesses among many languages
    return str(language)


def is_supported(language: str | None) -> bool:
    """Whether the detector knows ``language`` (None, too little text to tell, counts as known:
    nothing is said about it)."""
    return language is None or language in SUPPORTED


@loaded_once
def _identifier() -> Any:
    """py3langid's model, restricted to :data:`SUPPORTED` and :data:`OTHERS` (loaded once; a
    run may have begun loading it: see :func:`._preload.preload_detectors`)."""
    from py3langid.langid import MODEL_FILE, LanguageIdentifier

    identifier = LanguageIdentifier.from_model_file(MODEL_FILE, norm_probs=True)
    identifier.set_languages([c for c in _LANGID_SET if c in set(identifier.nb_classes)])
    return identifier


def unknown_languages(row: Row) -> dict[str, str] | None:
    """``{field: language}`` for the texts of ``row`` the learned detector reads (the answer,
    assistant turns, the pairwise baseline; not tool-call arguments) whose language it does
    not know, else None.

    Example:
        >>> from assay.data import rows_from_records
        >>> unknown_languages(rows_from_records([{"answer":
        ...     "La capitale della Francia è Parigi, sulla Senna."}])[0])
        {'answer': 'it'}
        >>> unknown_languages(rows_from_records([{"answer":
        ...     "La capital de Francia es París, a orillas del Sena."}])[0]) is None
        True
    """
    found: dict[str, str] = {}
    for field, text, kinds in judged_texts(row):
        if LEARNED in kinds and "tool_call" not in field:
            language = language_of(text)
            if not is_supported(language):
                found[field] = str(language)
    return found or None
