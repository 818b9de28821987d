"""``answer_correctness``: does the answer state the ground truth's facts, and only those?

Example:
    >>> import asyncio
    >>> from assay.data import Row
    >>> metric = AnswerCorrectness()
    >>> row = Row(id="1", line=1, answer="", ground_truth="It weighs 1.3 kg.")
    >>> metric.applies(row) is None  # an empty answer is an answer
    True
    >>> result = asyncio.run(metric.score(row, ScoreContext()))  # no judge call for it
    >>> result.value, result.reason
    (0.0, 'the answer is empty: it states none of the ground truth')
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ...data import Row
from ...embeddings import cosine
from ...errors import JudgeError
from .._base import MetricResult, ScoreContext, mean_aggregate
from .._common import FieldMetric
from .._register import register
from ._statements import StepFailed, decompose, verify

__all__ = ["NO_EMBEDDER", "AnswerCorrectness"]

#: Why a row was scored on the statement F-score alone (in its details, and counted in the
#: run's summary): the similarity term is never dropped silently.
NO_EMBEDDER = ("no embedder in this run, so the similarity term is left out and the value is "
               "the statement F-score alone. Fix: install the local embedder "
               "(pip install 'assay[local]') or use an OpenAI-compatible embedder "
               "(embeddings openai:MODEL)")


class AnswerCorrectness(FieldMetric):
    """Agreement (0-1) of answer and ground truth: statement-level F-score, blended with the
    semantic similarity of the two texts (``0.75 F + 0.25 similarity``, Ragas' default weights).

    TP: answer statements the ground truth supports; FP: answer statements it does not;
    FN: ground-truth statements the answer does not support. F = TP / (TP + (FP + FN) / 2).
    Where the judge gives P(supported) (the embedded judge), the counts are sums of it.

    A run gets the embedded embedder by default. Without one, the value is F alone, and that
    shows: ``details["similarity"]`` is ``None`` with ``details["similarity_missing"]`` saying
    why, the reason says so, and the run's summary counts such rows (``without_similarity``).
    An empty answer scores 0 without a judge call; a blank ground truth leaves the row unscored.

    Version 2: the empty answer (it did not apply), the blank ground truth (it scored 0) and the
    visible absence of the similarity term.
    """

    name = "answer_correctness"
    answerable_only = True
    version = "2"
    required = frozenset({"answer", "ground_truth"})
    empty_is_given = frozenset({"answer", "ground_truth"})
    uses_judge = True
    uses_embedder = True
    embedder_optional = True  # without one, the F-score alone, flagged
    prompt_names = ("statements", "verify")
    weights = (0.75, 0.25)

    async def score(self, row: Row, ctx: ScoreContext) -> MetricResult:
        answer, truth = row.answer or "", row.ground_truth or ""
        if not truth.strip():
            return MetricResult.unscored(
                "the ground truth is blank: nothing to compare the answer against")
        if not answer.strip():
            return MetricResult(value=0.0, reason="the answer is empty: it states none of the "
                                "ground truth", details={"f_score": 0.0, "empty_answer": True})
        try:
            a_stmts = await decompose(ctx, answer, row.question)
            t_stmts = await decompose(ctx, truth, row.question)
            if not a_stmts and not t_stmts:
                return MetricResult.unscored("neither text makes a factual statement")
            a_checked = await verify(ctx, a_stmts, truth)
            t_checked = await verify(ctx, t_stmts, answer)
        except StepFailed as e:
            return MetricResult.unscored(str(e), **e.details)
        tp = sum(v.weight for v in a_checked)
        fp = len(a_checked) - tp
        fn = sum(1.0 - v.weight for v in t_checked)
        f_score = tp / (tp + 0.5 * (fp + fn)) if tp + fp + fn else 0.0
        details: dict[str, Any] = {
            "tp": round(tp, 4), "fp": round(fp, 4), "fn": round(fn, 4),
            "f_score": round(f_score, 4),
            "false_positives": [v.statement for v in a_checked if not v.supported],
            "false_negatives": [v.statement for v in t_checked if not v.supported]}
        reason = (f"{tp:g} correct, {fp:g} unsupported and {fn:g} missing statements (soft "
                  "counts where the judge gave probabilities)")
        if ctx.embedder is None:
            details.update(similarity=None, similarity_missing=NO_EMBEDDER)
            return MetricResult(value=round(f_score, 4), details=details,
                                reason=f"{reason}; statement F-score alone: {NO_EMBEDDER}")
        try:
            va, vt = await ctx.embedder.embed([answer, truth])
        except JudgeError as e:
            return MetricResult.unscored(f"embedding call failed: {e}", **details)
        sim = max(0.0, min(1.0, cosine(va, vt)))
        details["similarity"] = round(sim, 4)
        value = self.weights[0] * f_score + self.weights[1] * sim
        return MetricResult(value=round(value, 4), details=details, reason=reason)

    def aggregate(self, results: Sequence[MetricResult]) -> dict[str, Any]:
        """The mean, plus how many scored rows lack the similarity term (when any do).

        Example:
            >>> flagged = MetricResult(value=0.5, details={"similarity_missing": NO_EMBEDDER})
            >>> agg = AnswerCorrectness().aggregate([MetricResult(value=1.0), flagged])
            >>> agg["mean"], agg["without_similarity"]
            (0.75, 1)
        """
        out = mean_aggregate(results)
        without = sum(1 for r in results
                      if r.value is not None and r.details.get("similarity_missing"))
        if without:
            out["without_similarity"] = without
            note = (f"{without} of {out['scored']} rows scored on the statement F-score "
                    f"alone: {NO_EMBEDDER}")
            out["notes"] = [note]
        return out


register(AnswerCorrectness())
