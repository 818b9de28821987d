"""The app under test's own token usage, when the app reports it: each target reads it from
its app's reply, and whoever drives the app counts each call under an :class:`AppMeter`.

How each kind of target learns its app's usage:

- ``openai:MODEL``: the completion's ``usage`` (prompt, completion, cached and reasoning
  tokens), priced as ``openai:MODEL``;
- ``http:URL``: an OpenAI-style ``usage`` object at the top of the JSON reply (beside the text
  field), and the ``model`` it names, if any (else it is priced as the target's id);
- ``python:module:function``: a function that returns ``{"reply": <what it returns
  otherwise>, "usage": {...}, "model": "..."}`` (``model`` optional);
- any other target (a plugin): calls :func:`report_app_usage` within its call.

A usage object is read in OpenAI's chat-completions shape (``prompt_tokens``,
``completion_tokens``, ``prompt_tokens_details.cached_tokens``,
``completion_tokens_details.reasoning_tokens``) or its Responses shape (``input_tokens``,
``output_tokens``, ``input_tokens_details.cached_tokens``,
``output_tokens_details.reasoning_tokens``). One that is neither is no usage: assay never
makes usage up, and a call without any leaves the app's cost unknown, with the reason.

Example:
    >>> import asyncio
    >>> async def app_call() -> str:
    ...     report_app_usage(read_usage({"prompt_tokens": 90, "completion_tokens": 5}))
    ...     return "Paris."
    >>> meter = AppMeter("openai:m")
    >>> asyncio.run(meter.call(app_call)), meter.as_dict()["by_model"]
    ('Paris.', {'openai:m': {'requests': 1, 'prompt_tokens': 90, 'completion_tokens': 5}})
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from contextvars import ContextVar
from typing import Any, TypeVar

from ..costs import AppUsage, Usage

__all__ = ["AppMeter", "app_call", "metered_app", "read_usage", "report_app_usage"]

T = TypeVar("T")

#: What the app call under way reported: ``(model or None, usage or None)`` per answer.
_REPORTS: ContextVar[list[tuple[str | None, Usage | None]] | None] = ContextVar(
    "assay_app_reports", default=None)


def _get(obj: Any, name: str) -> Any:
    """``obj[name]`` of a JSON object, ``obj.name`` of an SDK object; ``None`` when absent."""
    if isinstance(obj, Mapping):
        return obj.get(name)
    return getattr(obj, name, None)


def _tokens(value: Any) -> int | None:
    """A token count as reported: a whole number of 0 or more, else ``None``."""
    if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
        return value
    return None


def read_usage(usage: Any) -> Usage | None:
    """An OpenAI-style usage object (JSON or the ``openai`` SDK's) as :class:`Usage`; ``None``
    when it gives no prompt and completion token counts.

    Example:
        >>> read_usage({"input_tokens": 10, "output_tokens": 4,
        ...             "output_tokens_details": {"reasoning_tokens": 3}})
        Usage(prompt_tokens=10, completion_tokens=4, cached_tokens=0, cache_write_tokens=0, reasoning_tokens=3)
        >>> read_usage({"total_tokens": 14}) is None, read_usage("14 tokens") is None
        (True, True)
    """
    if usage is None or isinstance(usage, (str, bytes, int, float, list)):
        return None
    for prompt_key, completion_key in (("prompt_tokens", "completion_tokens"),
                                       ("input_tokens", "output_tokens")):
        prompt = _tokens(_get(usage, prompt_key))
        completion = _tokens(_get(usage, completion_key))
        if prompt is None or completion is None:
            continue
        cached = _tokens(_get(_get(usage, f"{prompt_key}_details"), "cached_tokens")) or 0
        reasoning = _tokens(_get(_get(usage, f"{completion_key}_details"),
                                 "reasoning_tokens")) or 0
        return Usage(prompt_tokens=prompt, completion_tokens=completion,
                     cached_tokens=min(cached, prompt),
                     reasoning_tokens=min(reasoning, completion))
    return None


def report_app_usage(usage: Usage | None, model: str | None = None) -> None:
    """Say what the app's answer to the call under way used (``None``: it reported nothing),
    and on which model (``None``: priced as the target's id). Outside a metered call it
    does nothing. A target calls it once per answer it got from its app."""
    reports = _REPORTS.get()
    if reports is not None:  # the model's name is the app's text: kept short, masked of keys
        from .._secrets import mask_secrets
        reports.append((mask_secrets(model[:200]) if model else None, usage))


class AppMeter(AppUsage):
    """The app's calls made through :meth:`call` and what they reported (an
    :class:`~assay.costs.AppUsage`; ``target``: the app's id)."""

    async def call(self, work: Callable[[], Awaitable[T]]) -> T:
        """``await work()`` (one call of the app, with its retries) counted: an answer that
        reported usage adds it, one that reported none counts as a call without usage. A
        call that fails adds what its app reported before failing (it was spent), nothing
        else."""
        reports: list[tuple[str | None, Usage | None]] = []
        token = _REPORTS.set(reports)
        try:
            result = await work()
        except BaseException:
            self._count(reports, answered=False)
            raise
        finally:
            _REPORTS.reset(token)
        self._count(reports, answered=True)
        return result

    def _count(self, reports: list[tuple[str | None, Usage | None]], *, answered: bool) -> None:
        for model, usage in reports:
            if usage is not None or answered:
                self.add_call(model or self.target, usage)
        if answered and not reports:  # a target that reports nothing: no usage known
            self.add_call(self.target, None)


#: The meter of the piece of work under way (a conversation), for :func:`app_call`.
_WORK: ContextVar[AppMeter | None] = ContextVar("assay_app_meter", default=None)


async def metered_app(target: str, work: Callable[[], Awaitable[T]]) -> tuple[T, AppMeter]:
    """``await work()`` under a new meter for the app ``target``: its result and what the app
    calls it made through :func:`app_call` used (for work that asks the app in many places,
    such as an attack's conversation).

    Example:
        >>> import asyncio
        >>> async def talk() -> str:
        ...     return await app_call(lambda: asyncio.sleep(0, "Hi."))
        >>> text, meter = asyncio.run(metered_app("python:m:f", talk))
        >>> text, meter.calls, meter.without_usage
        ('Hi.', 1, 1)
    """
    meter = AppMeter(target)
    token = _WORK.set(meter)
    try:
        return await work(), meter
    finally:
        _WORK.reset(token)


async def app_call(work: Callable[[], Awaitable[T]]) -> T:
    """One call of the app, counted in the meter :func:`metered_app` set (awaited as it is
    without one)."""
    meter = _WORK.get()
    return await (work() if meter is None else meter.call(work))
