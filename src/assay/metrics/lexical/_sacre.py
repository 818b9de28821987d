"""Corpus-tool metrics: ``bleu_score`` (sacrebleu) and ``rouge_l`` (rouge-score), both 0-1.

Example:
    >>> import asyncio
    >>> from assay.data import Row
    >>> row = Row(id="1", line=1, answer="the cat sat on the mat", ground_truth="the cat sat on the mat")
    >>> asyncio.run(BleuScore().score(row, None)).value, asyncio.run(RougeL().score(row, None)).value
    (1.0, 1.0)
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from ...data import Row
from .._base import MetricResult, ScoreContext
from .._common import FieldMetric
from ._normalize import _CJK

__all__ = ["BleuScore", "RougeL"]


class BleuScore(FieldMetric):
    """Sentence BLEU of the answer against the ground truth (sacrebleu, scaled to 0-1).

    Texts with CJK characters use sacrebleu's ``zh`` tokenizer, others ``13a``.
    """

    name = "bleu_score"
    required = frozenset({"answer", "ground_truth"})

    async def score(self, row: Row, ctx: ScoreContext | None) -> MetricResult:
        import sacrebleu

        hyp, ref = row.answer or "", row.ground_truth or ""
        tokenize = "zh" if _CJK.search(hyp + ref) else "13a"
        bleu = sacrebleu.sentence_bleu(hyp, [ref], tokenize=tokenize)
        return MetricResult(value=round(bleu.score / 100.0, 4), details={"tokenize": tokenize})


@lru_cache(maxsize=1)
def _rouge_scorer() -> Any:
    from rouge_score import rouge_scorer

    return rouge_scorer.RougeScorer(["rougeL"], use_stemmer=True)


class RougeL(FieldMetric):
    """ROUGE-L F-measure (longest common subsequence) of the answer against the ground truth.

    rouge-score's tokenizer keeps only ASCII letters and digits, so text with other letters
    (CJK, Cyrillic, Greek, accented Latin, ...) is tokenised by assay instead: CJK per character,
    other scripts by whitespace words.
    """

    name = "rouge_l"
    required = frozenset({"answer", "ground_truth"})

    async def score(self, row: Row, ctx: ScoreContext | None) -> MetricResult:
        hyp, ref = row.answer or "", row.ground_truth or ""
        cjk = _CJK.search(hyp + ref)
        if cjk or any(ch.isalnum() and not ch.isascii() for ch in hyp + ref):
            from ._normalize import normalize_tokens
            toks_h, toks_r = normalize_tokens(hyp), normalize_tokens(ref)
            return MetricResult(value=round(_lcs_f(toks_h, toks_r), 4),
                                details={"tokens": "cjk" if cjk else "unicode"})
        score = _rouge_scorer().score(ref, hyp)["rougeL"]
        return MetricResult(value=round(score.fmeasure, 4))


def _lcs_f(hyp: list[str], ref: list[str]) -> float:
    if not hyp or not ref:
        return float(hyp == ref)
    prev = [0] * (len(ref) + 1)
    for h in hyp:
        cur = [0]
        for j, r in enumerate(ref, start=1):
            cur.append(prev[j - 1] + 1 if h == r else max(prev[j], cur[j - 1]))
        prev = cur
    lcs = prev[-1]
    if lcs == 0:
        return 0.0
    precision, recall = lcs / len(hyp), lcs / len(ref)
    return 2 * precision * recall / (precision + recall)
