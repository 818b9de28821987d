"""The arena's built-in pairwise metric, ``preference``: which of two answers serves the user
better. Our own wording; the context is shown when the rows have one.

Example:
    >>> m = preference_metric(with_context=True)
    >>> m.name, sorted(m.template.variables)
    ('preference', ['context', 'question', 'response_a', 'response_b'])
"""

from __future__ import annotations

from ..metrics.custom import PairwiseMetric

__all__ = ["PREFERENCE", "preference_metric"]

#: The built-in arena metric's name.
PREFERENCE = "preference"

_INSTRUCTION = (
    "Decide which response serves the person who asked better. Prefer the response that is "
    "correct, answers what was asked completely, and is clear. Where a context is given, a "
    "claim the context does not support counts against a response. Length alone is no "
    "merit. Answer TIE only when neither is better.")

_QUESTION = "<question>\n{{ question }}\n</question>\n"
_CONTEXT = "<context>\n{{ context }}\n</context>\n"
_RESPONSES = ("<response_a>\n{{ response_a }}\n</response_a>\n"
              "<response_b>\n{{ response_b }}\n</response_b>")


def preference_metric(*, with_context: bool = False) -> PairwiseMetric:
    """The ``preference`` pairwise metric (both orders asked), with the rows' context in its
    template when ``with_context``."""
    template = _QUESTION + (_CONTEXT if with_context else "") + _RESPONSES
    return PairwiseMetric(PREFERENCE, template, instruction=_INSTRUCTION)
