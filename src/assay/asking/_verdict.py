"""Yes/No verdicts read as probabilities, and mapped onto a rating scale.

Small local judges rank far better by the probability of their first "Yes"/"No" token than
by the 1-5 number they write (measured in ``benchmarks/agreement.py``). A verdict answer starts
with Yes or No, then gives a reason; P(yes) comes from the first token's alternatives.

Example:
    >>> parse_verdict("No, the context says Delhi, not Mumbai.")
    (False, 'the context says Delhi, not Mumbai.')
    >>> scale_probability(0.9)
    (5, 4.6)
"""

from __future__ import annotations

import math
import re

from ..judges import TokenLogprob

__all__ = ["p_yes", "parse_verdict", "scale_probability"]

_VERDICT = re.compile(r"^\W*(yes|no|是|否)\b\W*(.*)$", re.IGNORECASE | re.DOTALL)
_YES = {"yes", "是"}
_NO = {"no", "否"}


def parse_verdict(text: str) -> tuple[bool, str] | None:
    """``(is_yes, reason)`` when the text opens with Yes or No, else ``None``."""
    m = _VERDICT.match(text.strip())
    if not m:
        return None
    reason = " ".join(m.group(2).split())
    return m.group(1).lower() in _YES, reason


def p_yes(logprobs: list[TokenLogprob] | None) -> float | None:
    """P(yes) / (P(yes) + P(no)) over the first generated token's alternatives, or ``None``."""
    if not logprobs:
        return None
    first = logprobs[0]
    yes = no = 0.0
    for token, lp in (first.top or {first.token: first.logprob}).items():
        word = token.strip().lower()
        if word in _YES:
            yes += math.exp(lp)
        elif word in _NO:
            no += math.exp(lp)
    return yes / (yes + no) if yes + no > 0 else None


def scale_probability(p: float, low: int = 1, high: int = 5) -> tuple[int, float]:
    """Map P(yes) onto the rubric's scale: ``(nearest integer, exact value)``."""
    exact = low + (high - low) * p
    return min(high, math.floor(exact + 0.5)), round(exact, 4)
