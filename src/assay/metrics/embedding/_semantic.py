"""``semantic_similarity``: cosine of the answer's and the ground truth's sentence embeddings.

Example:
    >>> import asyncio
    >>> from assay.data import Row
    >>> from assay.metrics import ScoreContext
    >>> class Toy:
    ...     id = "toy"
    ...     async def embed(self, texts):
    ...         return [[1.0, 0.0], [1.0, 1.0]]
    >>> row = Row(id="1", line=1, answer="a", ground_truth="b")
    >>> r = asyncio.run(SemanticSimilarity().score(row, ScoreContext(embedder=Toy())))
    >>> r.value, r.details["score_1_5"]
    (0.7071, 3.8284)
"""

from __future__ import annotations

from ...data import Row
from ...embeddings import cosine
from ...errors import JudgeError
from .._base import MetricResult, ScoreContext
from .._common import FieldMetric
from .._register import register

__all__ = ["SemanticSimilarity"]


class SemanticSimilarity(FieldMetric):
    """Cosine similarity (0-1; a negative cosine counts as 0) of answer and ground truth.

    ``details`` keeps the raw cosine and the same value on the 1-5 scale (1 + 4 x value) for
    users who report on the judge metrics' scale.
    """

    name = "semantic_similarity"
    required = frozenset({"answer", "ground_truth"})
    answerable_only = True
    uses_embedder = True

    async def score(self, row: Row, ctx: ScoreContext) -> MetricResult:
        if ctx.embedder is None:
            return MetricResult.unscored("no embedder configured for this run")
        try:
            answer, truth = await ctx.embedder.embed([row.answer or "", row.ground_truth or ""])
        except JudgeError as e:
            return MetricResult.unscored(f"embedding call failed: {e}")
        raw = cosine(answer, truth)
        value = round(min(1.0, max(0.0, raw)), 4)
        return MetricResult(value=value, details={
            "cosine": round(raw, 4), "score_1_5": round(1 + 4 * value, 4),
            "embedder": getattr(ctx.embedder, "id", "")})


register(SemanticSimilarity())
