"""Corpus-tool metrics: ``bleu_score`` (sacrebleu) and ``rouge_l`` (rouge-score), both 0-1.

Example:
    >>> import asyncio
    >>> from assay.data import Row
    >>> row = Row(id="1", line=1, answer="the cat sat on the mat", ground_truth="the cat sat on the mat")
    >>> asyncio.run(BleuScore().score(row, None)).value, asyncio.run(RougeL().score(row, None)).value
    (1.0, 1.0)

    One tokeniser per run: an accented letter does not change how a row is tokenised.

    >>> cafe = Row(id="2", line=2, answer="the cafe is open late", ground_truth="the cafe was open")
    >>> cafe_accented = Row(id="3", line=3, answer="the café is open late",
    ...                     ground_truth="the café was open")
    >>> [asyncio.run(RougeL().score(r, None)).value for r in (cafe, cafe_accented)]
    [0.6667, 0.6667]
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from ...data import Row
from .._base import MetricResult, ScoreContext
from .._register import register
from .._settings import Lang
from ._common import LexicalMetric, no_reference, run_lang
from ._normalize import _CJK
from ._tokenize import RougeTokenizer

__all__ = ["BleuScore", "RougeL"]


class BleuScore(LexicalMetric):
    """Sentence BLEU of the answer against the ground truth (sacrebleu, scaled to 0-1).

    sacrebleu's ``zh`` tokenizer (13a plus one token per CJK character) serves every row of a
    ``zh`` run, and rows with CJK characters in other runs; other rows use ``13a``.
    Version 2: an empty answer scores 0 (it was left out); a ground truth with no tokens after
    SQuAD normalisation is unscored; a ``zh`` run tokenises every row with ``zh``.
    """

    name = "bleu_score"

    async def score(self, row: Row, ctx: ScoreContext | None) -> MetricResult:
        import sacrebleu

        if (unscored := no_reference(row)) is not None:
            return unscored
        hyp, ref = row.answer or "", row.ground_truth or ""
        tokenize = "zh" if run_lang(ctx) == "zh" or _CJK.search(hyp + ref) else "13a"
        bleu = sacrebleu.sentence_bleu(hyp, [ref], tokenize=tokenize)
        return MetricResult(value=round(bleu.score / 100.0, 4), details={"tokenize": tokenize})


@lru_cache(maxsize=2)
def _rouge_scorer(lang: Lang) -> Any:
    from rouge_score import rouge_scorer

    return rouge_scorer.RougeScorer(["rougeL"], tokenizer=RougeTokenizer(lang))


class RougeL(LexicalMetric):
    """ROUGE-L F-measure (longest common subsequence) of the answer against the ground truth.

    rouge-score computes it, with the run's tokeniser (see :class:`RougeTokenizer`): for ``en``,
    rouge-score's rules (ASCII text scores as with ``use_stemmer=True``) extended to every
    script, so accented words are stemmed like others; for ``zh``, one token per CJK character.
    Version 2: one tokeniser per run (a row with a non-ASCII letter switched to unstemmed
    whitespace words), an empty answer scores 0, a ground truth with no tokens is unscored.
    """

    name = "rouge_l"

    async def score(self, row: Row, ctx: ScoreContext | None) -> MetricResult:
        if (unscored := no_reference(row)) is not None:
            return unscored
        lang = run_lang(ctx)
        score = _rouge_scorer(lang).score(row.ground_truth or "", row.answer or "")["rougeL"]
        return MetricResult(value=round(score.fmeasure, 4), details={"tokenizer": lang})


for _metric in (BleuScore(), RougeL()):
    register(_metric)
