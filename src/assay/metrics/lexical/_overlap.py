"""Token-overlap metrics against the ground truth: ``f1_score`` and ``exact_match``.

Example:
    >>> import asyncio
    >>> from assay.data import Row
    >>> row = Row(id="1", line=1, answer="The tent weighs 1.3 kg", ground_truth="1.3 kg")
    >>> asyncio.run(F1Score().score(row, None)).value
    0.6667

    An empty answer scores 0; a ground truth with no tokens leaves the row unscored:

    >>> asyncio.run(F1Score().score(row.model_copy(update={"answer": ""}), None)).value
    0.0
    >>> asyncio.run(ExactMatch().score(row.model_copy(update={"ground_truth": "."}), None)).error
    'ground truth has no tokens after normalisation (blank, punctuation or articles only)'
"""

from __future__ import annotations

from ...data import Row
from .._base import MetricResult, ScoreContext
from .._register import register
from ._common import LexicalMetric, no_reference
from ._normalize import token_tuple

__all__ = ["ExactMatch", "F1Score", "token_f1"]


def token_f1(prediction: str, reference: str) -> float:
    """Harmonic mean of token precision and recall after SQuAD normalisation (0-1).

    Two texts that are both empty after normalisation score 1; one empty scores 0.
    """
    pred, ref = token_tuple(prediction), token_tuple(reference)
    if not pred or not ref:
        return float(pred == ref)
    common = _common_tokens(pred, ref)
    if common == 0:
        return 0.0
    precision, recall = common / len(pred), common / len(ref)
    return 2 * precision * recall / (precision + recall)


def _common_tokens(pred: tuple[str, ...], ref: tuple[str, ...]) -> int:
    """How many tokens the two share, counted with multiplicity (the size of the multiset
    intersection, ``sum((Counter(pred) & Counter(ref)).values())``).

    Example:
        >>> _common_tokens(("a", "a", "b", "c"), ("a", "b", "b", "a", "a"))
        3
    """
    if pred == ref:
        return len(pred)
    left: dict[str, int] = {}
    for token in ref:
        left[token] = left.get(token, 0) + 1
    common = 0
    for token in pred:
        n = left.get(token)
        if n:
            left[token] = n - 1
            common += 1
    return common


class F1Score(LexicalMetric):
    """Token F1 between the answer and the ground truth (SQuAD normalisation, CJK per character).

    Version 2: an empty answer scores 0 (it was left out); a ground truth with no tokens is
    unscored (it scored 1.0 against an answer with none).
    """

    name = "f1_score"

    async def score(self, row: Row, ctx: ScoreContext | None) -> MetricResult:
        if (unscored := no_reference(row)) is not None:
            return unscored
        return MetricResult(value=round(token_f1(row.answer or "", row.ground_truth or ""), 4))


class ExactMatch(LexicalMetric):
    """1 when the normalised answer's tokens equal the normalised ground truth's, else 0.

    Tokens are compared, so whitespace between CJK characters does not count
    ("北京 大学" matches "北京大学"). Version 2: that, an empty answer scores 0, and a ground
    truth with no tokens is unscored.
    """

    name = "exact_match"

    async def score(self, row: Row, ctx: ScoreContext | None) -> MetricResult:
        if (unscored := no_reference(row)) is not None:
            return unscored
        same = token_tuple(row.answer or "") == token_tuple(row.ground_truth or "")
        return MetricResult(value=1.0 if same else 0.0)


for _metric in (F1Score(), ExactMatch()):
    register(_metric)
