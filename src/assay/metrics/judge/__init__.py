"""Judge metrics rated 1-5 against our own rubric templates (en and zh), and which rows get the
judge's reason. Asking the judge and reading its answer (templates, fencing, verdicts, ratings)
is :mod:`assay.asking`.

Example:
    >>> from assay.metrics.judge import GROUNDEDNESS
    >>> sorted(GROUNDEDNESS.required)
    ['answer', 'context']
"""

from ._reasons import (
    PASS_SCORE,
    REASON_DETAILS,
    SAMPLE_EVERY,
    explain_if_wanted,
    reason_plan,
    skipped_reason_note,
    wants_reason,
    with_reason_of,
)
from ._rubric import (
    COHERENCE,
    FLUENCY,
    GROUNDEDNESS,
    RELEVANCE,
    SIMILARITY,
    RubricMetric,
    prefers_verdicts,
)

__all__ = ["COHERENCE", "FLUENCY", "GROUNDEDNESS", "PASS_SCORE", "REASON_DETAILS", "RELEVANCE",
           "SAMPLE_EVERY", "SIMILARITY", "RubricMetric", "explain_if_wanted", "prefers_verdicts",
           "reason_plan", "skipped_reason_note", "wants_reason", "with_reason_of"]
