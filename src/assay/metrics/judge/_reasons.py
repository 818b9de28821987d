"""Which rows get the judge's reason. A reason is most of what a small local judge generates,
and most of its time; the score never depends on it (the score comes first in every answer).

``always`` asks every row for its reason; ``never`` asks none; ``auto`` asks every row on a
remote judge, and on a local judge only the rows that fail the metric (a 1-5 score under 3) plus
one row in ten (a stable sample, chosen by the prompt's hash; a metric says what failing is:
a 1-5 score under 3, a harm severity from Low up), each in a second request with the
same prompt, so the judge's prompt cache serves it.

Example:
    >>> from assay.judges import FakeJudge, JudgeCapabilities
    >>> from assay.metrics import ScoreContext
    >>> local = FakeJudge("x", capabilities=JudgeCapabilities(local=True))
    >>> reason_plan(ScoreContext(judge=local, reasons="auto"))
    'failing'
    >>> reason_plan(ScoreContext(judge=FakeJudge("x"), reasons="auto"))
    'always'
    >>> wants_reason("failing", True, [{"role": "user", "content": "q"}])
    True
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Awaitable, Callable
from typing import Literal

from .._base import MetricResult, ScoreContext

__all__ = ["PASS_SCORE", "REASON_DETAILS", "SAMPLE_EVERY", "explain_if_wanted", "reason_plan",
           "skipped_reason_note", "wants_reason", "with_reason_of"]

#: A 1-5 score under this fails the metric (its row gets a reason under ``auto``).
PASS_SCORE = 3.0
#: Under ``auto`` on a local judge, one passing row in this many gets a reason too.
SAMPLE_EVERY = 10

#: The ``details`` a reason brings with it (the turn of a conversation it names): the score-only
#: answer takes them from the explained one, with the reason.
REASON_DETAILS = ("turn",)

ReasonPlan = Literal["always", "failing", "never"]


def reason_plan(ctx: ScoreContext) -> ReasonPlan:
    """``always``, ``never``, or ``failing`` (``auto`` on a local judge: failing rows and a
    sample)."""
    if ctx.settings.reasons == "auto":
        local = ctx.judge is not None and ctx.judge.capabilities.local
        return "failing" if local else "always"
    return "always" if ctx.settings.reasons == "always" else "never"


def wants_reason(plan: ReasonPlan, failed: bool, messages: list[dict[str, str]]) -> bool:
    """Whether a row that ``failed`` the metric (or not), asked with this prompt, gets its
    reason under ``plan``."""
    if plan != "failing":
        return plan == "always"
    if failed:
        return True
    digest = hashlib.sha256(json.dumps(messages, sort_keys=True).encode()).digest()
    return int.from_bytes(digest[:4], "big") % SAMPLE_EVERY == 0


def skipped_reason_note(plan: ReasonPlan) -> str:
    """What a row's record says when it has no reason.

    Example:
        >>> skipped_reason_note("never")
        'no reason asked (reasons=never)'
    """
    if plan == "never":
        return "no reason asked (reasons=never)"
    return (f"no reason asked (reasons=auto on a local judge: only the rows that fail the "
            f"metric and one in {SAMPLE_EVERY} get one; reasons=always for every row)")


def with_reason_of(result: MetricResult, explained: MetricResult) -> MetricResult:
    """``result`` (the score-only answer) with the reason of the second, explained answer; if
    that one failed, the score stands and the record says why it has no reason. An explained
    answer whose score differs (it should not: the same prompt, the score first) is noted.
    The details that go with a reason (:data:`REASON_DETAILS`) come with it.

    Example:
        >>> explained = MetricResult(value=2.0, reason="asked again", details={"turn": 3})
        >>> r = with_reason_of(MetricResult(value=2.0), explained)
        >>> r.reason, r.details
        ('asked again', {'turn': 3})
    """
    if explained.value is None:
        result.details["no_reason"] = f"the reason could not be had: {explained.error}"
        return result
    result.reason = explained.reason
    for key in REASON_DETAILS:
        if key in explained.details:
            result.details[key] = explained.details[key]
    if explained.value != result.value:
        result.details["reason_for_score"] = explained.value
    return result


async def explain_if_wanted(result: MetricResult, plan: ReasonPlan, failed: bool,
                            messages: list[dict[str, str]],
                            explain: Callable[[], Awaitable[MetricResult]]) -> MetricResult:
    """``result`` as ``plan`` wants it: as it is under ``always`` (it was asked with its
    reason); with the reason of ``explain()`` (the same prompt asked again with a reason) when
    :func:`wants_reason`; else with a note saying why it has none.

    Example:
        >>> import asyncio
        >>> async def explain() -> MetricResult:
        ...     return MetricResult(value=1.0, reason="off topic")
        >>> asyncio.run(explain_if_wanted(MetricResult(value=1.0), "failing", True, [],
        ...                               explain)).reason
        'off topic'
        >>> asyncio.run(explain_if_wanted(MetricResult(value=5.0), "never", False, [],
        ...                               explain)).details
        {'no_reason': 'no reason asked (reasons=never)'}
    """
    if plan == "always":
        return result
    if not wants_reason(plan, failed, messages):
        result.details["no_reason"] = skipped_reason_note(plan)
        return result
    return with_reason_of(result, await explain())
