"""A chat completion read into a :class:`~assay.judges.JudgeResponse`, whichever way it came:
the JSON of assay's own HTTP client or the objects of an ``openai`` SDK client.

Example:
    >>> from assay.judges import JudgeRequest
    >>> ask = JudgeRequest(messages=[{"role": "user", "content": "x"}], schema_name="r")
    >>> completion_response({"model": "m", "choices": [{"message": {"content": "4"}}]}, ask).text
    '4'
"""

from __future__ import annotations

from typing import Any

from ..errors import RetryableJudgeError
from ._base import JudgeRequest, JudgeResponse, TokenLogprob

__all__ = ["completion_response"]


def completion_response(resp: Any, request: JudgeRequest) -> JudgeResponse:
    """A chat completion, as JSON (assay's client) or as the SDK's objects, read into a
    :class:`JudgeResponse`; a body that is not a completion is a retryable error.

    Example:
        >>> from assay.judges import JudgeRequest
        >>> ask = JudgeRequest(messages=[{"role": "user", "content": "x"}], schema_name="r")
        >>> completion_response({"model": "m", "choices": [{"message": {"content": "4"},
        ...     "finish_reason": "length"}], "usage": {"prompt_tokens": 9,
        ...     "completion_tokens": 1, "prompt_tokens_details": {"cached_tokens": 8}}}, ask)
        ... # doctest: +NORMALIZE_WHITESPACE
        JudgeResponse(text='4', logprobs=None, prompt_tokens=9, completion_tokens=1,
                      processed_prompt_tokens=1, truncated=True, model='m', cached=False,
                      cached_tokens=8, reasoning_tokens=0)
    """
    choices = _get(resp, "choices")
    if not choices or not isinstance(choices, list):
        body = resp if isinstance(resp, str) else "no choices"
        raise RetryableJudgeError("judge answered HTTP 200 with a body that is not a chat "
                                  f"completion: {str(body)[:120]!r}")
    choice = choices[0]
    text = _get(_get(choice, "message"), "content") or ""  # a refusal has none: unscored
    logprobs = None
    content = _get(_get(choice, "logprobs"), "content")
    if content:
        logprobs = [TokenLogprob(token=_get(t, "token"), logprob=_get(t, "logprob"),
                                 top={_get(a, "token"): _get(a, "logprob")
                                      for a in (_get(t, "top_logprobs") or [])})
                    for t in content]
    usage = _get(resp, "usage")
    prompt = _get(usage, "prompt_tokens")
    cached = _get(_get(usage, "prompt_tokens_details"), "cached_tokens")
    reasoning = _get(_get(usage, "completion_tokens_details"), "reasoning_tokens")
    return JudgeResponse(
        text=text, logprobs=logprobs, model=_get(resp, "model"),
        truncated=_get(choice, "finish_reason") == "length",
        prompt_tokens=prompt if isinstance(prompt, int) else request.estimate_prompt_tokens(),
        completion_tokens=_get(usage, "completion_tokens") or 0,
        processed_prompt_tokens=(prompt - cached if isinstance(prompt, int)
                                 and isinstance(cached, int) else None),
        cached_tokens=cached if isinstance(cached, int) and isinstance(prompt, int) else 0,
        reasoning_tokens=reasoning if isinstance(reasoning, int) else 0)


def _get(obj: Any, name: str) -> Any:
    """``obj[name]`` of a JSON object, ``obj.name`` of an SDK object; ``None`` when absent."""
    if isinstance(obj, dict):
        return obj.get(name)
    return getattr(obj, name, None)
