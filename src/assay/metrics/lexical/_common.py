"""What every lexical metric shares: which rows it scores, and the ground truth it needs.

An empty answer is an answer (the app said nothing): it scores 0, as a blank one does. Only a
missing field makes a metric not apply. A ground truth with no tokens after SQuAD normalisation
(blank, punctuation or articles only) leaves nothing to compare against: the row is unscored
with that reason, never a made-up 1.0 for an answer that is "empty" too.

Example:
    >>> from assay.data import Row
    >>> no_reference(Row(id="1", line=1, answer=".", ground_truth="the")).error
    'ground truth has no tokens after normalisation (blank, punctuation or articles only)'
    >>> no_reference(Row(id="1", line=1, answer="", ground_truth="Paris")) is None
    True
"""

from __future__ import annotations

from ...data import Row
from .._base import MetricResult, ScoreContext
from .._common import FieldMetric, is_unanswerable
from .._settings import LANG, Lang
from ._normalize import token_tuple

__all__ = ["NO_REFERENCE", "LexicalMetric", "no_reference", "run_lang"]

#: The reason a row whose ground truth has no tokens is unscored (one text, so a run's summary
#: counts them on one line; the ground truth itself is in the result's ``details``).
NO_REFERENCE = ("ground truth has no tokens after normalisation "
                "(blank, punctuation or articles only)")


def no_reference(row: Row) -> MetricResult | None:
    """The unscored result for a row whose ground truth has no tokens, else ``None``."""
    truth = row.ground_truth or ""
    if token_tuple(truth):
        return None
    return MetricResult.unscored(NO_REFERENCE, ground_truth=truth[:200])


def run_lang(ctx: ScoreContext | None) -> Lang:
    """The run's language (``--lang``), which picks the tokeniser for every row of the run.

    Example:
        >>> run_lang(None), run_lang(ScoreContext(lang="zh"))
        ('en', 'zh')
    """
    return ctx.settings.lang if ctx is not None else LANG.default


class LexicalMetric(FieldMetric):
    """Base of the lexical metrics: they compare ``answer`` with ``ground_truth``, and an
    empty answer or ground truth counts as given (scored, or unscored with the reason above)."""

    version = "2"
    required = frozenset({"answer", "ground_truth"})
    empty_is_given = frozenset({"answer", "ground_truth"})
    answerable_only = True

    def applies(self, row: Row) -> str | None:
        # The common case at a glance: a QA row with both fields given (empty counts).
        if (row.messages is None and row.answer is not None and row.ground_truth is not None
                and not (row.extra and is_unanswerable(row)) and self.required == _BOTH
                and self.empty_is_given >= _BOTH):
            return None
        return super().applies(row)


_BOTH = LexicalMetric.required
