"""Negative rejection read by a judge instead of by phrase match (``--judge``).

The RGB phrase list misses most ways an app can decline ("The documents do not mention...",
"I'm not sure"). A judge reads the question and the answer and says whether the app gave an
answer of its own (a name, number, date or fact, right or wrong); No means it declined. The
question is put that way round because the small embedded judge leans to Yes: asked "did it
decline?", it said Yes to 3 (one wording) or 7 (another) of the 15 items that did answer, on
RGB en_fact; asked "did it answer?", it agreed with the phrase match on all 20 items
(docs/robustness.md). With token probabilities
the record also keeps P(declined). An answer not in the Yes/No form twice, or a failed call,
leaves the item's judged verdict unscored with the reason; the phrase-match verdict stays.

Example:
    >>> import asyncio
    >>> from assay.judges import FakeJudge
    >>> judge = FakeJudge("No. It only says the documents lack the answer.")
    >>> asyncio.run(judge_rejection(judge, "Who won?", "The documents don't say.", "en"))
    {'rejected_judge': True, 'rejected_judge_reason': 'It only says the documents lack the answer.'}
"""

from __future__ import annotations

from typing import Any

from ..judges import Judge
from ..metrics import ScoreContext
from ..metrics.rag import NEGATIVE_REJECTION

__all__ = ["judge_rejection"]


async def judge_rejection(judge: Judge, question: str, response: str,
                          lang: str) -> dict[str, Any]:
    """``{"rejected_judge": bool, "rejected_judge_reason": str[, "rejected_judge_p": float]}``,
    or ``{"judge_error": reason}`` when the judge gave no usable verdict (the verdict of the
    ``negative_rejection`` metric, :class:`assay.metrics.rag.NegativeRejection`)."""
    ctx = ScoreContext(judge=judge, lang="zh" if lang == "zh" else "en")
    result = await NEGATIVE_REJECTION.rejection_verdict(question, response, ctx)
    if result.value is None:
        return {"judge_error": result.error}
    out: dict[str, Any] = {"rejected_judge": result.value == 1.0,
                           "rejected_judge_reason": result.reason}
    if result.weighted is not None:
        out["rejected_judge_p"] = result.weighted
    return out
