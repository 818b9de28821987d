"""Every model call a run makes, managed: the judge and the embedder behind a token / request
budget, an adaptive pace, retries and one deadline per call (run, calibrate, align, explain,
the robustness suites and the simulators all call models through here).

- :class:`JudgeCallOptions`: how calls are made (requests in flight, deadline, tries, wait on
  rate limits, budget, cache), one default per field; :func:`open_judge`, :func:`open_judges`
  (a panel) and :func:`open_embedder` build the stack below from it and close it once (the
  only place that does).
- :class:`ManagedJudge` / :class:`ManagedEmbedder`: a judge or embedder with cache, budget,
  pace, retry and deadline, and their counters (:class:`JudgeStats`, :class:`EmbeddingStats`).
- :class:`Budget`: the client-side TPM / RPM budget (``start_budget_actor`` and
  :class:`BudgetClient` share one among the workers of a Ray run).
- :class:`SpendLimit`: the run's ``--max-cost`` / ``--max-tokens``; a request that would pass
  it is not sent (:class:`BudgetReachedError`); ``start_spend_actor`` and :class:`SpendClient`
  share one among the workers of a Ray run. :func:`row_clock`: a row's judge seconds.
- :class:`RetryPolicy`: which failures are tried again, how often and how long.
- :func:`as_repeat`: a judge metric asked again (``--repeat``), its answers cached apart.
- :func:`within`, :func:`in_daemon_thread`, :func:`check_timeout`: the deadline of one call
  (``--timeout``), for model calls, the app under test and an agent's tools alike.
- Calls counted before they are made (``assay run --estimate``): :class:`PlaceholderJudge`
  records the requests metrics build and answers each with a placeholder of its schema;
  :func:`token_counter` / :func:`prompt_tokens` count their tokens (exact where the model's
  tokenizer is on this machine, else a stated approximation); :func:`judge_pricer` prices
  them (unknown is ``None`` with a reason, never $0); :class:`Estimate` holds the figures as
  low / expected / high (:class:`Span`, :class:`Tally`).

Example:
    >>> import asyncio
    >>> from assay.judges import FakeJudge, JudgeRequest
    >>> judge = ManagedJudge(FakeJudge("ok"), concurrency=2)
    >>> request = JudgeRequest(messages=[{"role": "user", "content": "hi"}], schema_name="x")
    >>> asyncio.run(judge.complete(request)).text
    'ok'
    >>> judge.stats.requests
    1
"""

from ._budget import Budget
from ._deadline import DEFAULT_TIMEOUT, TIMEOUT_RULE, check_timeout, in_daemon_thread, within
from ._estimate import (
    Estimate,
    JudgeEstimate,
    Span,
    Tally,
    priced_estimate,
    seconds_at_limits,
)
from ._judge_stats import JudgeStats
from ._managed import ManagedJudge
from ._managed_embedder import EmbeddingStats, ManagedEmbedder
from ._metering import CallMeter, meter_call, metered
from ._open import OpenedEmbedder, OpenedJudge, OpenedJudges, open_embedder, open_judge, open_judges
from ._options import JudgeCallOptions
from ._placeholder import REASON as PLACEHOLDER_REASON
from ._placeholder import CachedAnswers, PlaceholderJudge, placeholder_answer
from ._prices import JudgePricer, judge_pricer, model_of
from ._ray_budget import BudgetClient, start_budget_actor
from ._ray_spend import SpendClient, check_prices, spent_at, start_spend_actor
from ._repeat import JUDGE_REPEAT, as_repeat, repeat_scope
from ._retry import RetryPolicy
from ._row_time import RowClock, add_judge_seconds, row_clock
from ._spend import BudgetReachedError, SpendLimit
from ._tokens import TokenCounter, prompt_tokens, token_counter

__all__ = [
    "DEFAULT_TIMEOUT",
    "JUDGE_REPEAT",
    "PLACEHOLDER_REASON",
    "TIMEOUT_RULE",
    "Budget",
    "BudgetClient",
    "BudgetReachedError",
    "CachedAnswers",
    "CallMeter",
    "EmbeddingStats",
    "Estimate",
    "JudgeCallOptions",
    "JudgeEstimate",
    "JudgePricer",
    "JudgeStats",
    "ManagedEmbedder",
    "ManagedJudge",
    "OpenedEmbedder",
    "OpenedJudge",
    "OpenedJudges",
    "PlaceholderJudge",
    "RetryPolicy",
    "RowClock",
    "Span",
    "SpendClient",
    "SpendLimit",
    "Tally",
    "TokenCounter",
    "add_judge_seconds",
    "as_repeat",
    "check_prices",
    "check_timeout",
    "in_daemon_thread",
    "judge_pricer",
    "meter_call",
    "metered",
    "model_of",
    "open_embedder",
    "open_judge",
    "open_judges",
    "placeholder_answer",
    "priced_estimate",
    "prompt_tokens",
    "repeat_scope",
    "row_clock",
    "seconds_at_limits",
    "spent_at",
    "start_budget_actor",
    "start_spend_actor",
    "token_counter",
    "within",
]
