"""What a run will cost before it runs: the pieces ``assay run --estimate`` counts with.

- :func:`token_counter` / :func:`prompt_tokens`: the tokens of a rendered judge request (the
  model's tokenizer when one is on this machine, else a stated approximation);
- :class:`PlaceholderJudge`: a judge that records requests and answers a placeholder that
  follows each request's JSON schema, so metrics build their real requests, none sent;
- :class:`Estimate`, :class:`Span`, :class:`Tally`: the figures as low / expected / high;
- :func:`judge_pricer`: what tokens cost on a judge (unknown is ``None`` with a reason).

The planning itself (every row, every judge metric) is :func:`assay.run.estimate_async`.

Example:
    >>> from assay.estimate import Span
    >>> (Span(1, 2, 3) + Span(1, 1, 1)).as_dict()
    {'low': 2, 'expected': 3, 'high': 4}
"""

from __future__ import annotations

from ._figures import Estimate, JudgeEstimate, Span, Tally, seconds_at_limits
from ._placeholder import REASON, STATEMENT, PlaceholderJudge, placeholder_answer
from ._prices import JudgePricer, judge_pricer, model_of
from ._tokens import TokenCounter, encoding_name, prompt_tokens, token_counter

__all__ = [
    "REASON",
    "STATEMENT",
    "Estimate",
    "JudgeEstimate",
    "JudgePricer",
    "PlaceholderJudge",
    "Span",
    "Tally",
    "TokenCounter",
    "encoding_name",
    "judge_pricer",
    "model_of",
    "placeholder_answer",
    "prompt_tokens",
    "seconds_at_limits",
    "token_counter",
]
