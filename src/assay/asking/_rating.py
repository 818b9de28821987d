"""Read a 1-5 rating out of a judge answer, and its probability-weighted value from logprobs.

Example:
    >>> parse_rating('{"score": 4, "reason": "Mostly supported."}')
    (4, 'Mostly supported.')
    >>> parse_rating('The score is 4') is None
    True
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Sequence
from typing import Any

from ..judges import TokenLogprob

__all__ = ["RATING_SCHEMA", "SCORE_SCHEMA", "digit_expectation", "json_object", "parse_rating",
           "parse_score", "token_at", "weighted_rating"]

#: The answer every rubric asks for. ``score`` comes first so that its token is generated
#: before the reason and its probabilities are read at one position.
RATING_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "score": {"type": "integer", "minimum": 1, "maximum": 5},
        "reason": {"type": "string"},
    },
    "required": ["score", "reason"],
    "additionalProperties": False,
}

#: The answer when no reason is wanted: the score alone, so generation stops after it.
SCORE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"score": RATING_SCHEMA["properties"]["score"]},
    "required": ["score"],
    "additionalProperties": False,
}

_SCORE_RE = re.compile(r'"score"\s*:\s*"?(\d)')


def json_object(text: str) -> dict[str, Any] | None:
    """The JSON object a judge answered (a ```json fence around it is allowed), else ``None``.

    Example:
        >>> json_object('```json {"score": 3} ```'), json_object("[1]")
        ({'score': 3}, None)
    """
    text = text.strip()
    if text.startswith("```"):
        text = text.strip("`")
        text = text[4:] if text[:4].lower() == "json" else text
        text = text.strip()
    try:
        obj = json.loads(text)
    except (json.JSONDecodeError, ValueError):
        return None
    return obj if isinstance(obj, dict) else None


def parse_rating(text: str, low: int = 1, high: int = 5) -> tuple[int, str] | None:
    """``(score, reason)`` from a JSON answer, or ``None`` when it is not a valid rating.

    Strict on purpose: the text must be a JSON object with an integer ``score`` in range and a
    string ``reason``. Nothing is guessed from free text (no "first digit in the answer").
    """
    obj = json_object(text)
    if obj is None:
        return None
    score, reason = obj.get("score"), obj.get("reason")
    if isinstance(score, float) and score.is_integer():
        score = int(score)
    if isinstance(score, bool) or not isinstance(score, int) or not low <= score <= high:
        return None
    if not isinstance(reason, str):
        return None
    return score, reason.strip()


def parse_score(text: str, low: int = 1, high: int = 5) -> int | None:
    """The integer ``score`` of a JSON answer (a reason may be there or not), or ``None``.

    Example:
        >>> parse_score('{"score": 4}'), parse_score('{"score": 9}'), parse_score('4')
        (4, None, None)
    """
    obj = json_object(text)
    score = None if obj is None else obj.get("score")
    if isinstance(score, float) and score.is_integer():
        score = int(score)
    if isinstance(score, bool) or not isinstance(score, int) or not low <= score <= high:
        return None
    return score


def weighted_rating(logprobs: list[TokenLogprob] | None, low: int = 1,
                    high: int = 5) -> float | None:
    """Expected rating under the judge's token probabilities at the ``score`` digit (G-Eval style).

    Finds the generated token that holds the score's digit, takes the alternatives at that
    position that are digits in range, renormalises their probabilities and returns the mean.
    ``None`` when there are no logprobs or the digit cannot be located.

    Example:
        >>> lp = [TokenLogprob(token='{"score": ', logprob=0.0),
        ...       TokenLogprob(token="4", logprob=math.log(0.6),
        ...                    top={"4": math.log(0.6), "5": math.log(0.4)})]
        >>> weighted_rating(lp)
        4.4
    """
    return digit_expectation(logprobs, _SCORE_RE, low, high)


def digit_expectation(logprobs: list[TokenLogprob] | None, pattern: re.Pattern[str], low: int,
                      high: int) -> float | None:
    """The expected value of the single digit that ``pattern``'s first group matches in the
    answer, over the judge's probabilities for that token's alternatives in ``low..high``
    (renormalised; 4 decimals). ``None`` without logprobs, without a match, or when the digit
    shares its token with other text (no clean distribution to read).

    Example:
        >>> lp = [TokenLogprob(token='"n": ', logprob=0.0),
        ...       TokenLogprob(token="2", logprob=math.log(0.5),
        ...                    top={"2": math.log(0.5), "3": math.log(0.5), "9": -1.0})]
        >>> digit_expectation(lp, re.compile(r'"n": (\\d)'), 1, 5)
        2.5
    """
    if not logprobs:
        return None
    m = pattern.search("".join(t.token for t in logprobs))
    found = token_at(logprobs, m.start(1)) if m else None
    if m is None or found is None:
        return None
    tok, _start = found
    if tok.token.strip() != m.group(1):
        return None  # the digit shares a token with other text: no clean distribution
    probs: dict[int, float] = {}
    for alt, lp in (tok.top or {tok.token: tok.logprob}).items():
        a = alt.strip()
        if a.isdigit() and len(a) == 1 and low <= int(a) <= high:
            probs[int(a)] = probs.get(int(a), 0.0) + math.exp(lp)
    total = sum(probs.values())
    if total <= 0:
        return None
    return round(sum(k * p for k, p in probs.items()) / total, 4)


def token_at(logprobs: Sequence[TokenLogprob], pos: int) -> tuple[TokenLogprob, int] | None:
    """The generated token whose text holds character ``pos`` of the answer (the tokens'
    texts joined), and the character where it starts; ``None`` past the end.

    Example:
        >>> lp = [TokenLogprob(token='{"n": ', logprob=0.0), TokenLogprob(token="4", logprob=0.0)]
        >>> (token_at(lp, 6)[0].token, token_at(lp, 6)[1]), token_at(lp, 7)
        (('4', 6), None)
    """
    start = 0
    for tok in logprobs:
        end = start + len(tok.token)
        if start <= pos < end:
            return tok, start
        start = end
    return None
