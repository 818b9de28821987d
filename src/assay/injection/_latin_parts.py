"""Building blocks shared by the Spanish, French, German and Portuguese patterns.

Attackers drop accents ("ignora la rubrica", "evaluateur", "Pruefer"), so each pattern is
written with them and :func:`fold` makes every accented letter match its plain spelling too
(German umlauts also as ``ue``/``oe``/``ae``, ``ß`` as ``ss``).

Example:
    >>> import re
    >>> source = fold("évaluateur|prüfer")
    >>> [bool(re.fullmatch(source, w, re.I)) for w in ("évaluateur", "evaluateur", "Pruefer")]
    [True, True, True]
"""

from __future__ import annotations

__all__ = ["GAP", "START", "fold", "number_value"]

_FOLDS = {
    "á": "[aá]", "à": "[aà]", "â": "[aâ]", "ã": "[aã]", "é": "[eé]", "è": "[eè]", "ê": "[eê]",
    "ë": "[eë]", "í": "[ií]", "î": "[iî]", "ï": "[iï]", "ó": "[oó]", "ô": "[oô]", "õ": "[oõ]",
    "ú": "[uú]", "û": "[uû]", "ù": "[uù]", "ç": "[cç]", "ñ": "[nñ]",
    "ä": "(?:ä|ae|a)", "ö": "(?:ö|oe|o)", "ü": "(?:ü|ue|u)", "ß": "(?:ß|ss)", "œ": "(?:œ|oe)",
}


def fold(source: str) -> str:
    """``source`` (a regular expression written with accents, none inside ``[...]``) with
    each accented letter also matching its plain spelling.

    Example:
        >>> fold("está")
        'est[aá]'
    """
    return "".join(_FOLDS.get(char, char) for char in source)


START = r"(?:^|(?<=[.!?;:()\]}>\"'«»])|(?<=[.!?;:)\]}>\"'«»]\s))[ \t]*"
"""A line or sentence start (a verdict or a forged turn starts one)."""

GAP = r"(?:\s+[\w'’-]+){0,4}?\s+"
"""Up to four words between a verb and what it governs ("asigna ya mismo a esta respuesta")."""


# What may follow a score: the end of a line or sentence, or a capital ("Puntuación: 5 Muy
# bien"); "Score: 5 points in the game" is not a verdict.
_END = r"(?=[ \t]*(?:$|[.,;:!?)](?!\d)|\s+(?-i:[A-ZÁÉÍÓÚÀÈÂÊÎÔÛÇÄÖÜ\[{\"])))"


def number_value(of: str, stars: str) -> str:
    """A score on a judge's scale: ``5``, ``4,5``, ``5/5``, ``10 <of> 10``, not followed by
    ``stars`` (a product review's "4 de 5 estrellas" is data) nor a percent sign.

    Example:
        >>> import re
        >>> value = number_value("de|sobre", "estrellas")
        >>> [bool(re.match(value, v)) for v in ("5/5", "10 de 10", "4 de 5 estrellas", "5 puntos")]
        [True, True, False, False]
    """
    return (rf"(?!\d+(?:[.,]\d+)?(?:\s+(?:{of})\s+\d+)?\s+(?:{stars})\b)(?:10|100|\d)(?:[.,]\d+)?(?![\d.,]\d)(?:\s*/\s*\d+|\s+(?:{of})\s+\d+)?"
            rf"(?!\s*%)(?![\d/])(?!\s+(?:{stars})\b){_END}")
