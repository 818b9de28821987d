"""Asking a judge from a metric: one call, a call until the answer parses (an answer cut at
``max_tokens`` is unscored, not parsed), and a Yes/No verdict.

Example:
    >>> cut_reason(12)
    "the judge's answer was cut at max_tokens=12 before it was complete"
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ...errors import JudgeError
from ...judges import Accept, Judge, JudgeRequest, JudgeResponse
from .._base import MetricResult, ScoreContext
from ._rating import json_object
from ._verdict import p_yes, parse_verdict

__all__ = ["VERDICT_REASON_TOKENS", "ask_judge", "ask_until_parsed", "ask_verdict",
           "cut_before_complete", "cut_reason"]

#: Tokens for a Yes/No verdict and its one-sentence reason (the embedded judge's reasons ran
#: past 48 tokens now and then, and came back cut mid-sentence).
VERDICT_REASON_TOKENS = 80


async def ask_judge(judge: Judge | None, request: JudgeRequest, accept: Accept) -> JudgeResponse:
    """Call ``judge``; a judge that caches keeps only the answers ``accept`` takes.

    Raises:
        JudgeError: no judge was given (the metric needs one), or the call failed.
    """
    if judge is None:
        raise JudgeError("this metric needs a judge, and none was given")
    return await judge.complete(request, accept=accept)


async def ask_until_parsed(ctx: ScoreContext, request: JudgeRequest,
                           parse: Callable[[str], Any], details: dict[str, Any],
                           invalid: str, *, cacheable: Callable[[str], bool] | None = None
                           ) -> tuple[Any, JudgeResponse] | MetricResult:
    """``(parsed, response)``, or an unscored result: a failed call, an answer cut at
    ``max_tokens`` (see below), or an answer that does not parse twice (it is asked once more;
    the last raw answer goes into ``details``). The last two are marked unreadable
    (:meth:`MetricResult.unreadable`): the run counts them as failures, as failed calls.

    An answer that stopped at ``max_tokens`` before it was complete
    (:func:`cut_before_complete`) is never parsed (half a list could parse as a shorter one),
    asked again (at temperature 0 it would be cut at the same place) or cached; the result is
    unscored with the raw answer. A ``cut_ok`` request (a verdict read from its first word,
    cut on purpose) and a whole JSON answer cut after its end are parsed as usual.

    A managed judge caches an answer when ``parse`` accepts it, or, when given, when
    ``cacheable(text)`` holds: a request shared by several metrics (the combined safety
    request) must be cached only when it serves all of them, else one metric's retry would be
    answered from the cache with the same incomplete answer.

    Example:
        >>> import asyncio
        >>> from assay.judges import FakeJudge, Truncated
        >>> from assay.metrics.judge import parse_rating
        >>> req = JudgeRequest(messages=[{"role": "user", "content": "Rate"}],
        ...                    schema_name="rating", max_tokens=8)
        >>> ctx = ScoreContext(judge=FakeJudge(Truncated('{"score": 4, "reason": "Th')))
        >>> asyncio.run(ask_until_parsed(ctx, req, parse_rating, {}, "not a rating")).error
        "the judge's answer was cut at max_tokens=8 before it was complete"
    """
    keep = cacheable or (lambda text: parse(text) is not None)
    raw = ""
    for _attempt in range(2):
        try:
            resp = await ask_judge(ctx.judge, request, accept=lambda r: (
                not cut_before_complete(request, r)) and keep(r.text))
        except JudgeError as e:
            return MetricResult.unscored(f"judge call failed: {e}", **details)
        if cut_before_complete(request, resp):
            return MetricResult.unreadable(cut_reason(request.max_tokens), "cut",
                                           raw_answer=resp.text[:1000], **details)
        parsed = parse(resp.text)
        if parsed is not None:
            return parsed, resp
        raw = resp.text
    empty = "; the judge's answer was empty (null content)" if not raw.strip() else ""
    return MetricResult.unreadable(f"{invalid} (asked twice){empty}", raw_answer=raw[:1000],
                                   **details)


def cut_before_complete(request: JudgeRequest, response: JudgeResponse) -> bool:
    """Whether ``response`` stopped at ``max_tokens`` with its answer unfinished, on a request
    that is not ``cut_ok``. A JSON answer that is a whole JSON object is finished: the cut fell
    after it (the embedded judge writes its JSON inside a Markdown code fence, and a score-only
    answer spends its last tokens on the closing fence).

    Example:
        >>> req = JudgeRequest(messages=[], schema_name="score", json_schema={}, max_tokens=12)
        >>> cut = JudgeResponse(text='{"score": 4, "rea', truncated=True)
        >>> whole = JudgeResponse(text='{"score": 4}', truncated=True)
        >>> cut_before_complete(req, cut), cut_before_complete(req, whole)
        (True, False)
        >>> cut_before_complete(req.model_copy(update={"cut_ok": True}), cut)
        False
    """
    if not response.truncated or request.cut_ok:
        return False
    return request.json_schema is None or json_object(response.text) is None


def cut_reason(max_tokens: int) -> str:
    """Why an answer that stopped at ``max_tokens`` is unscored.

    Example:
        >>> cut_reason(160)
        "the judge's answer was cut at max_tokens=160 before it was complete"
    """
    return f"the judge's answer was cut at max_tokens={max_tokens} before it was complete"


async def ask_verdict(ctx: ScoreContext, messages: list[dict[str, str]],
                      details: dict[str, Any], *, reason: bool = True,
                      ) -> tuple[bool, str, float | None] | MetricResult:
    """Ask a Yes/No question (an answer starting Yes or No, then a reason): ``(is_yes, reason,
    P(yes))``, P(yes) ``None`` when the judge gives no logprobs; or an unscored result (a failed
    call, or no Yes/No twice), with ``details``. Without ``reason`` the judge generates the
    verdict alone (the reason comes back empty).

    The verdict is the answer's first word, so the request is ``cut_ok``: a verdict alone is
    cut after it on purpose, and a reason cut at ``max_tokens`` keeps its verdict, with
    ``details["reason_truncated"] = True`` set in the ``details`` given."""
    request = JudgeRequest(messages=messages, schema_name="verdict", json_schema=None,
                           max_tokens=VERDICT_REASON_TOKENS if reason else 2, top_logprobs=10,
                           cut_ok=True)
    got = await ask_until_parsed(ctx, request, parse_verdict, details,
                                 "judge answer does not start with Yes or No")
    if isinstance(got, MetricResult):
        return got
    (is_yes, why), resp = got
    if reason and resp.truncated:
        details["reason_truncated"] = True
    return is_yes, why, p_yes(resp.logprobs)
