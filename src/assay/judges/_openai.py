"""OpenAI-compatible judges (OpenAI, Azure OpenAI, vLLM, Ollama, llama.cpp server) via ``openai``.

Example:
    >>> judge = OpenAIJudge("gpt-4o-mini", base_url="http://127.0.0.1:9/v1", api_key="sk-x")
    >>> judge.id, judge.capabilities.context_window, judge.capabilities.local
    ('openai:gpt-4o-mini', 128000, False)
"""

from __future__ import annotations

import os
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from .._secrets import remember_secret
from ..errors import ConfigError, JudgeError, RetryableJudgeError, option
from ._base import Accept, JudgeCapabilities, JudgeRequest, JudgeResponse, TokenLogprob
from ._endpoint import basic_auth_header, client_endpoint, public_url, split_model_url
from ._factory import register_judge
from ._known import known_capabilities
from ._openai_calls import call_openai
from ._ratelimit import rate_limits

if TYPE_CHECKING:  # ``openai`` (and httpx under it) is imported on first use, not with assay
    import openai

__all__ = ["OpenAIJudge", "azure_judge", "openai_client"]


class OpenAIJudge:
    """A judge behind any OpenAI-compatible chat-completions endpoint.

    The API key is read from the argument or ``OPENAI_API_KEY`` and is never part of ``id``,
    logs, caches or results (its value is masked in any error that repeats it). Retries are
    the runner's job: the client's own are turned off. ``endpoint`` is the base URL the
    requests go to, without credentials: the run's cache keeps answers apart per endpoint.

    ``capabilities`` come from a table of well-known models (context window, price, whether
    it gives log-probabilities), else the remote defaults; pass them for another endpoint
    (e.g. ``JudgeCapabilities(context_window=32768)`` for a vLLM server). An endpoint that
    refuses log-probabilities is asked without them from then on, and says so in
    ``capabilities``.

    ``rate_limits`` holds what the provider's last answer said is left of its window (from
    the ``x-ratelimit-remaining-*`` / ``x-ratelimit-limit-*`` headers, where it sends them):
    the runner stops raising its concurrency when it runs low.
    """

    max_concurrency: int | None = None

    def __init__(self, model: str, *, base_url: str | None = None, api_key: str | None = None,
                 timeout: float = 120.0, client: Any | None = None, id_prefix: str = "openai",
                 capabilities: JudgeCapabilities | None = None) -> None:
        self.model = model
        self.id = f"{id_prefix}:{model}"
        self._declared = capabilities or known_capabilities(model)
        self._logprobs_ok = self._declared.token_logprobs
        self.rate_limits: dict[str, float] = {}
        if client is None:
            client = openai_client(base_url=base_url, api_key=api_key, timeout=timeout,
                                   option=option("judge", "openai:MODEL"))
        self._client = client
        self.endpoint: str | None = client_endpoint(client)
        if isinstance(key := getattr(client, "api_key", None), str):
            remember_secret(key)  # a client made elsewhere (Azure, a caller's): mask its key too

    @property
    def capabilities(self) -> JudgeCapabilities:
        """What this judge can do (log-probabilities turn off once the endpoint refuses them)."""
        if self._logprobs_ok == self._declared.token_logprobs:
            return self._declared
        return replace(self._declared, token_logprobs=self._logprobs_ok)

    async def complete(self, request: JudgeRequest, *,
                       accept: Accept | None = None) -> JudgeResponse:
        """Send one chat completion; map failures to retryable or final judge errors
        (``accept`` is ignored: caching is the managed judge's)."""
        import openai

        kwargs: dict[str, Any] = {
            "model": self.model,
            "messages": request.messages,
            "temperature": request.temperature,
            "max_tokens": request.max_tokens,
        }
        if request.json_schema is not None:
            kwargs["response_format"] = {"type": "json_schema", "json_schema": {
                "name": request.schema_name, "schema": request.json_schema, "strict": True}}
        if request.logprobs and self._logprobs_ok:
            kwargs["logprobs"] = True
            kwargs["top_logprobs"] = request.top_logprobs
        try:
            resp = await call_openai(self._create, **kwargs)
        except JudgeError as e:
            cause = e.__cause__
            headers = getattr(getattr(cause, "response", None), "headers", None)
            if headers is not None:
                self.rate_limits = rate_limits(headers)
            if (isinstance(cause, openai.BadRequestError) and "logprobs" in kwargs
                    and "logprob" in str(cause).lower()):
                self._logprobs_ok = False  # endpoint cannot return logprobs: ask without them
                return await self.complete(request)
            raise
        if not getattr(resp, "choices", None):
            body = resp if isinstance(resp, str) else "no choices"
            raise RetryableJudgeError("judge answered HTTP 200 with a body that is not a chat "
                                      f"completion: {str(body)[:120]!r}")
        choice = resp.choices[0]
        text = choice.message.content or ""  # a refusal has no content: the metric's unscored
        logprobs = None
        lp = getattr(choice, "logprobs", None)
        if lp is not None and getattr(lp, "content", None):
            logprobs = [TokenLogprob(token=t.token, logprob=t.logprob,
                                     top={a.token: a.logprob for a in (t.top_logprobs or [])})
                        for t in lp.content]
        usage = resp.usage
        cached = getattr(getattr(usage, "prompt_tokens_details", None), "cached_tokens", None)
        return JudgeResponse(
            text=text, logprobs=logprobs, model=resp.model,
            truncated=getattr(choice, "finish_reason", None) == "length",
            prompt_tokens=usage.prompt_tokens if usage else request.estimate_prompt_tokens(),
            completion_tokens=usage.completion_tokens if usage else 0,
            processed_prompt_tokens=None if cached is None else usage.prompt_tokens - cached)

    async def _create(self, **kwargs: Any) -> Any:
        """``chat.completions.create``, through ``with_raw_response`` where the client has it,
        to keep the rate-limit headers."""
        completions = self._client.chat.completions
        raw_api = getattr(completions, "with_raw_response", None)
        if raw_api is None:
            return await completions.create(**kwargs)
        raw = await raw_api.create(**kwargs)
        self.rate_limits = rate_limits(raw.headers)
        return raw.parse()

    async def aclose(self) -> None:
        await self._client.close()


def openai_client(*, base_url: str | None = None, api_key: str | None = None,
                  timeout: float = 120.0, option: str = "openai:MODEL") -> openai.AsyncOpenAI:
    """An ``AsyncOpenAI`` client from arguments or ``OPENAI_BASE_URL`` / ``OPENAI_API_KEY``,
    with the client's own retries off (the runner retries).

    A key passed here is remembered as a secret (masked wherever a server repeats it); a base
    URL with ``user:password@`` sends them as HTTP Basic auth and the client holds the URL
    without them (see :mod:`assay.judges._endpoint`).

    Example:
        >>> client = openai_client(base_url="https://bob:hunter2@h.example/v1", api_key="k")
        >>> str(client.base_url), client.default_headers["Authorization"]
        ('https://h.example/v1/', 'Basic Ym9iOmh1bnRlcjI=')
    """
    import openai

    key = api_key or os.environ.get("OPENAI_API_KEY")
    base = base_url or os.environ.get("OPENAI_BASE_URL")
    remember_secret(api_key)
    headers: dict[str, str] = {}
    if base:
        base, headers = basic_auth_header(base)
    if not key:
        if base:  # local servers (vLLM, Ollama, llama.cpp) usually need no key
            key = "no-key"
        else:
            raise ConfigError(f"{option} needs OPENAI_API_KEY (and OPENAI_BASE_URL for a "
                              "self-hosted endpoint such as vLLM, Ollama or llama.cpp's server).")
    return openai.AsyncOpenAI(api_key=key, base_url=base, timeout=timeout, max_retries=0,
                              default_headers=headers or None)


def azure_judge(deployment: str, *, timeout: float = 120.0) -> OpenAIJudge:
    """A judge on an Azure OpenAI deployment (``AZURE_OPENAI_ENDPOINT``,
    ``AZURE_OPENAI_API_KEY``, ``OPENAI_API_VERSION``)."""
    endpoint = os.environ.get("AZURE_OPENAI_ENDPOINT")
    key = os.environ.get("AZURE_OPENAI_API_KEY")
    version = os.environ.get("OPENAI_API_VERSION")
    missing = [n for n, v in (("AZURE_OPENAI_ENDPOINT", endpoint), ("AZURE_OPENAI_API_KEY", key),
                              ("OPENAI_API_VERSION", version)) if not v]
    if missing or not endpoint:
        raise ConfigError(f"{option('judge', f'azure:{deployment}')} needs {', '.join(missing)} set in the "
                          "environment (e.g. OPENAI_API_VERSION=2024-10-21).")
    import openai

    client = openai.AsyncAzureOpenAI(azure_endpoint=endpoint, api_key=key, api_version=version,
                                     timeout=timeout, max_retries=0)
    return OpenAIJudge(deployment, client=client, id_prefix="azure")


def _openai_judge(rest: str, *, timeout: float) -> OpenAIJudge:
    """``openai:MODEL`` (``OPENAI_BASE_URL``) or ``openai:MODEL@URL``, whose id names the
    endpoint, credentials masked: its results stay apart from other endpoints'."""
    model, url = split_model_url(rest, option=option("judge", "openai:MODEL@URL"))
    if url is None:
        return OpenAIJudge(rest, timeout=timeout)
    judge = OpenAIJudge(model, base_url=url, timeout=timeout)
    judge.id = f"openai:{model}@{public_url(url)}"
    return judge


def _azure_judge(rest: str, *, timeout: float) -> OpenAIJudge:
    return azure_judge(rest, timeout=timeout)


register_judge("openai", _openai_judge, specs=("openai:MODEL", "openai:MODEL@URL"))
register_judge("azure", _azure_judge, specs=("azure:DEPLOYMENT",))
