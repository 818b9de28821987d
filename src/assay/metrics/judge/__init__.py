"""Judge metrics rated 1-5 against our own rubric templates (en and zh).

Example:
    >>> from assay.metrics.judge import GROUNDEDNESS
    >>> sorted(GROUNDEDNESS.required)
    ['answer', 'context']
"""

from ._ask import ask_judge, ask_until_parsed, ask_verdict, cut_before_complete, cut_reason
from ._rating import (
    RATING_SCHEMA,
    SCORE_SCHEMA,
    digit_expectation,
    json_object,
    parse_rating,
    parse_score,
    token_at,
    weighted_rating,
)
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
from ._spotlight import FENCE_STYLE, FENCES, Spotlight
from ._template import LANGS, Template, fence, load_template
from ._verdict import p_yes, parse_verdict

__all__ = ["COHERENCE", "FENCES", "FENCE_STYLE", "FLUENCY", "GROUNDEDNESS", "LANGS", "PASS_SCORE",
           "RATING_SCHEMA", "REASON_DETAILS", "RELEVANCE", "SAMPLE_EVERY", "SCORE_SCHEMA", "SIMILARITY",
           "RubricMetric", "Spotlight", "Template", "ask_judge", "ask_until_parsed", "ask_verdict",
           "cut_before_complete", "cut_reason", "digit_expectation", "explain_if_wanted", "fence",
           "json_object", "load_template", "p_yes", "parse_rating", "parse_score", "parse_verdict",
           "prefers_verdicts", "reason_plan", "skipped_reason_note", "token_at",
           "wants_reason", "weighted_rating", "with_reason_of"]
