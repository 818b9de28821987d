"""Asking a model and reading its answer: prompt templates and how the texts in them are
fenced, asking until the answer parses, Yes/No verdicts, and reading ratings out of answers
(and their probabilities out of logprobs).

The layer between the judges (:mod:`assay.judges`, :mod:`assay.calls`) and the things that
ask them: the metrics (:mod:`assay.metrics`) and the producers (``generate``, ``scenarios``,
``redteam``). It knows no metric: what it cannot get, it says (:class:`Unanswered`), and the
caller decides (an unscored metric result, a rejected test row, a failed simulated turn).

Example:
    >>> import asyncio
    >>> from assay.judges import FakeJudge
    >>> messages = load_template("fluency", "en").render(answer="Paris is the capital.")
    >>> got = asyncio.run(ask_verdict(FakeJudge("Yes, it reads well."), messages))
    >>> got.is_yes, got.reason
    (True, 'it reads well.')
"""

from ._ask import (
    VERDICT_REASON_TOKENS,
    Unanswered,
    VerdictAnswer,
    ask_judge,
    ask_until_parsed,
    ask_verdict,
    cut_before_complete,
    cut_reason,
)
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
from ._spotlight import DATAMARK, DEFAULT_FENCE, FENCE_STYLE, FENCES, Fence, Spotlight
from ._template import DEFAULT_LANG, LANGS, Lang, Template, fence, load_template
from ._verdict import p_yes, parse_verdict, scale_probability

__all__ = ["DATAMARK", "DEFAULT_FENCE", "DEFAULT_LANG", "FENCES", "FENCE_STYLE", "LANGS",
           "RATING_SCHEMA", "SCORE_SCHEMA", "VERDICT_REASON_TOKENS", "Fence", "Lang", "Spotlight",
           "Template", "Unanswered", "VerdictAnswer", "ask_judge", "ask_until_parsed",
           "ask_verdict", "cut_before_complete", "cut_reason", "digit_expectation", "fence",
           "json_object", "load_template", "p_yes", "parse_rating", "parse_score",
           "parse_verdict", "scale_probability", "token_at", "weighted_rating"]
