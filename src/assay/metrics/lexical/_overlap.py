"""Token-overlap metrics against the ground truth: ``f1_score`` and ``exact_match``.

Example:
    >>> import asyncio
    >>> from assay.data import Row
    >>> row = Row(id="1", line=1, answer="The tent weighs 1.3 kg", ground_truth="1.3 kg")
    >>> asyncio.run(F1Score().score(row, None)).value
    0.6667
"""

from __future__ import annotations

from collections import Counter

from ...data import Row
from .._base import MetricResult, ScoreContext
from .._common import FieldMetric
from ._normalize import normalize_text, normalize_tokens

__all__ = ["ExactMatch", "F1Score", "token_f1"]


def token_f1(prediction: str, reference: str) -> float:
    """Harmonic mean of token precision and recall after SQuAD normalisation (0-1).

    Two texts that are both empty after normalisation score 1; one empty scores 0.
    """
    pred, ref = normalize_tokens(prediction), normalize_tokens(reference)
    if not pred or not ref:
        return float(pred == ref)
    common = sum((Counter(pred) & Counter(ref)).values())
    if common == 0:
        return 0.0
    precision, recall = common / len(pred), common / len(ref)
    return 2 * precision * recall / (precision + recall)


class F1Score(FieldMetric):
    """Token F1 between the answer and the ground truth (SQuAD normalisation, CJK per character)."""

    name = "f1_score"
    required = frozenset({"answer", "ground_truth"})

    async def score(self, row: Row, ctx: ScoreContext | None) -> MetricResult:
        return MetricResult(value=round(token_f1(row.answer or "", row.ground_truth or ""), 4))


class ExactMatch(FieldMetric):
    """1 when the normalised answer equals the normalised ground truth, else 0."""

    name = "exact_match"
    required = frozenset({"answer", "ground_truth"})

    async def score(self, row: Row, ctx: ScoreContext | None) -> MetricResult:
        same = normalize_text(row.answer or "") == normalize_text(row.ground_truth or "")
        return MetricResult(value=1.0 if same else 0.0)
