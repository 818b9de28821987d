"""Asking a model: one call, a call until the answer parses (an answer cut at ``max_tokens`` is
not parsed), and a Yes/No verdict. Each takes the judge (any :class:`~assay.judges.Judge`: a
backend, or a managed judge from :mod:`assay.calls`) and gives back the parsed answer or an
:class:`Unanswered` saying why there is none; a metric turns that into an unscored result, a
producer into a rejected item.

Example:
    >>> cut_reason(12)
    "the judge's answer was cut at max_tokens=12 before it was complete"
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal, NamedTuple, TypeVar

from .._secrets import mask_secrets
from ..errors import JudgeError
from ..judges import Accept, Judge, JudgeRequest, JudgeResponse
from ._rating import json_object
from ._verdict import p_yes, parse_verdict

__all__ = ["VERDICT_REASON_TOKENS", "Unanswered", "VerdictAnswer", "ask_judge",
           "ask_until_parsed", "ask_verdict", "cut_before_complete", "cut_reason"]

T = TypeVar("T")

#: Tokens for a Yes/No verdict and its one-sentence reason (the embedded judge's reasons ran
#: past 48 tokens now and then, and came back cut mid-sentence).
VERDICT_REASON_TOKENS = 80


@dataclass(frozen=True)
class Unanswered:
    """Why an ask has no usable answer: ``failure`` says what went wrong (``call``: the call
    failed; ``cut``: the answer stopped at ``max_tokens`` unfinished; ``answer``: it did not
    parse, twice), ``reason`` says it in words (a failed call's error masked of secrets: it may
    quote what a provider answered), ``raw_answer`` is the last answer (its first 1,000
    characters; ``None`` after a failed call).

    Example:
        >>> Unanswered("judge call failed: timed out after 5 s", "call").raw_answer is None
        True
    """

    reason: str
    failure: Literal["call", "cut", "answer"]
    raw_answer: str | None = None


class VerdictAnswer(NamedTuple):
    """A Yes/No answer: the verdict, its reason (empty when none was asked), P(yes) (``None``
    without logprobs), and whether the reason was cut at ``max_tokens`` (the verdict stands)."""

    is_yes: bool
    reason: str
    p_yes: float | None
    reason_truncated: bool = False


async def ask_judge(judge: Judge | None, request: JudgeRequest, accept: Accept) -> JudgeResponse:
    """Call ``judge``; a judge that caches keeps only the answers ``accept`` takes.

    Raises:
        JudgeError: no judge was given (the caller needs one), or the call failed.
    """
    if judge is None:
        raise JudgeError("this metric needs a judge, and none was given")
    return await judge.complete(request, accept=accept)


async def ask_until_parsed(judge: Judge | None, request: JudgeRequest,
                           parse: Callable[[str], T | None], invalid: str, *,
                           cacheable: Callable[[str], bool] | None = None
                           ) -> tuple[T, JudgeResponse] | Unanswered:
    """``(parsed, response)``, or why there is none (:class:`Unanswered`): a failed call, an
    answer cut at ``max_tokens`` (see below), or an answer that does not parse twice (it is
    asked once more; ``invalid`` says what it is not).

    An answer that stopped at ``max_tokens`` before it was complete
    (:func:`cut_before_complete`) is never parsed (half a list could parse as a shorter one),
    asked again (at temperature 0 it would be cut at the same place) or cached. A ``cut_ok``
    request (a verdict read from its first word, cut on purpose) and a whole JSON answer cut
    after its end are parsed as usual.

    A managed judge caches an answer when ``parse`` accepts it, or, when given, when
    ``cacheable(text)`` holds: a request shared by several metrics (the combined safety
    request) must be cached only when it serves all of them, else one metric's retry would be
    answered from the cache with the same incomplete answer.

    Example:
        >>> import asyncio
        >>> from assay.judges import FakeJudge, Truncated
        >>> from assay.asking import parse_rating
        >>> req = JudgeRequest(messages=[{"role": "user", "content": "Rate"}],
        ...                    schema_name="rating", max_tokens=8)
        >>> judge = FakeJudge(Truncated('{"score": 4, "reason": "Th'))
        >>> got = asyncio.run(ask_until_parsed(judge, req, parse_rating, "not a rating"))
        >>> got.failure, got.reason
        ('cut', "the judge's answer was cut at max_tokens=8 before it was complete")
        >>> asyncio.run(ask_until_parsed(FakeJudge('{"score": 4, "reason": "Fine."}'), req,
        ...                              parse_rating, "not a rating"))[0]
        (4, 'Fine.')
    """
    keep = cacheable or (lambda text: parse(text) is not None)
    raw = ""
    for _attempt in range(2):
        try:
            resp = await ask_judge(judge, request, accept=lambda r: (
                not cut_before_complete(request, r)) and keep(r.text))
        except JudgeError as e:
            return Unanswered(mask_secrets(f"judge call failed: {e}"), "call")
        if cut_before_complete(request, resp):
            return Unanswered(cut_reason(request.max_tokens), "cut", resp.text[:1000])
        parsed = parse(resp.text)
        if parsed is not None:
            return parsed, resp
        raw = resp.text
    empty = "; the judge's answer was empty (null content)" if not raw.strip() else ""
    return Unanswered(f"{invalid} (asked twice){empty}", "answer", raw[:1000])


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
    """Why an answer that stopped at ``max_tokens`` is not read.

    Example:
        >>> cut_reason(160)
        "the judge's answer was cut at max_tokens=160 before it was complete"
    """
    return f"the judge's answer was cut at max_tokens={max_tokens} before it was complete"


async def ask_verdict(judge: Judge | None, messages: list[dict[str, str]], *,
                      reason: bool = True) -> VerdictAnswer | Unanswered:
    """Ask a Yes/No question (an answer starting Yes or No, then a reason): the
    :class:`VerdictAnswer`, or why there is none (a failed call, or no Yes/No twice). Without
    ``reason`` the judge generates the verdict alone (the reason comes back empty).

    The verdict is the answer's first word, so the request is ``cut_ok``: a verdict alone is
    cut after it on purpose, and a reason cut at ``max_tokens`` keeps its verdict, with
    ``reason_truncated`` set.

    Example:
        >>> import asyncio
        >>> from assay.judges import FakeJudge
        >>> asyncio.run(ask_verdict(FakeJudge("Yes, it says so."), [{"role": "user",
        ...                                                           "content": "?"}]))
        VerdictAnswer(is_yes=True, reason='it says so.', p_yes=None, reason_truncated=False)
    """
    request = JudgeRequest(messages=messages, schema_name="verdict", json_schema=None,
                           max_tokens=VERDICT_REASON_TOKENS if reason else 2, top_logprobs=10,
                           cut_ok=True)
    got = await ask_until_parsed(judge, request, parse_verdict,
                                 "judge answer does not start with Yes or No")
    if isinstance(got, Unanswered):
        return got
    (is_yes, why), resp = got
    return VerdictAnswer(is_yes, why, p_yes(resp.logprobs), reason and resp.truncated)
