"""OpenAI-compatible judges (OpenAI, Azure OpenAI, vLLM, Ollama, llama.cpp server): chat
completions over assay's own HTTP client (:mod:`assay.judges._chat_http`), or through an
``openai`` SDK client a caller hands in.

Example:
    >>> judge = OpenAIJudge("gpt-4o-mini", base_url="http://127.0.0.1:9/v1", api_key="sk-x")
    >>> judge.id, judge.capabilities.context_window, judge.capabilities.local
    ('openai:gpt-4o-mini', 128000, False)
    >>> judge.endpoint
    'http://127.0.0.1:9/v1'
"""

from __future__ import annotations

import os
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from .._secrets import remember_secret
from ..errors import ConfigError, JudgeError, option
from ._base import Accept, JudgeCapabilities, JudgeRequest, JudgeResponse
from ._chat_http import ChatHttp
from ._completion import completion_response
from ._endpoint import basic_auth_header, client_endpoint, public_url, split_model_url
from ._factory import register_judge
from ._http_errors import RejectedRequestError
from ._known import known_capabilities
from ._openai_calls import call_openai
from ._ratelimit import rate_limits

if TYPE_CHECKING:  # neither ``openai`` nor httpx is imported with assay
    import httpx
    import openai

__all__ = ["OpenAIJudge", "azure_judge", "openai_client"]

#: Where OpenAI's API is when no base URL is given (the ``openai`` SDK's default too).
OPENAI_BASE_URL = "https://api.openai.com/v1"

class OpenAIJudge:
    """A judge behind any OpenAI-compatible chat-completions endpoint.

    The API key is read from the argument or ``OPENAI_API_KEY`` and is never part of ``id``,
    logs, caches or results (its value is masked in any error that repeats it). Retries are
    the runner's job: the judge sends each request once. ``endpoint`` is the base URL the
    requests go to, without credentials: the run's cache keeps answers apart per endpoint.

    The requests go over assay's own HTTP client (``transport`` replaces its network, for
    tests); ``client`` is an ``openai`` SDK client to send them through instead (e.g. an
    ``AsyncAzureOpenAI`` with Entra ID tokens), its own retries best turned off. Both paths
    map failures onto assay's errors the same way (:mod:`assay.judges._http_errors`).

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
                 capabilities: JudgeCapabilities | None = None,
                 transport: httpx.AsyncBaseTransport | None = None) -> None:
        self.model = model
        self.id = f"{id_prefix}:{model}"
        self._declared = capabilities or known_capabilities(model)
        self._logprobs_ok = self._declared.token_logprobs
        self._sdk_rate_limits: dict[str, float] = {}
        if client is None:
            client = _chat_http(base_url=base_url, api_key=api_key, timeout=timeout,
                                transport=transport, option=option("judge", "openai:MODEL"))
        self._client: Any = client
        self._http = client if isinstance(client, ChatHttp) else None
        self.endpoint: str | None = (self._http.endpoint if self._http is not None
                                     else client_endpoint(client))
        if isinstance(key := getattr(client, "api_key", None), str):
            remember_secret(key)  # a client made elsewhere (Azure, a caller's): mask its key too

    @property
    def rate_limits(self) -> dict[str, float]:
        """The provider's rate-limit figures from its last answer (empty when it sends none)."""
        return self._http.rate_limits if self._http is not None else self._sdk_rate_limits

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
        body: dict[str, Any] = {
            "model": self.model,
            "messages": request.messages,
            "temperature": request.temperature,
            "max_tokens": request.max_tokens,
        }
        if request.json_schema is not None:
            body["response_format"] = {"type": "json_schema", "json_schema": {
                "name": request.schema_name, "schema": request.json_schema, "strict": True}}
        if request.logprobs and self._logprobs_ok:
            body["logprobs"] = True
            body["top_logprobs"] = request.top_logprobs
        try:
            if self._http is not None:
                resp = await self._http.post(body)
            else:
                resp = await call_openai(self._create, **body)
        except JudgeError as e:
            headers = getattr(getattr(e.__cause__, "response", None), "headers", None)
            if self._http is None and headers is not None:
                self._sdk_rate_limits = rate_limits(headers)
            if (isinstance(e, RejectedRequestError) and e.status == 400 and "logprobs" in body
                    and "logprob" in str(e).lower()):
                self._logprobs_ok = False  # endpoint cannot return logprobs: ask without them
                return await self.complete(request)
            raise
        return completion_response(resp, request)

    async def _create(self, **kwargs: Any) -> Any:
        """``chat.completions.create``, through ``with_raw_response`` where the client has it,
        to keep the rate-limit headers."""
        completions = self._client.chat.completions
        raw_api = getattr(completions, "with_raw_response", None)
        if raw_api is None:
            return await completions.create(**kwargs)
        raw = await raw_api.create(**kwargs)
        self._sdk_rate_limits = rate_limits(raw.headers)
        return raw.parse()

    async def aclose(self) -> None:
        if self._http is not None:
            await self._http.aclose()
        else:
            await self._client.close()


def _key_and_base(base_url: str | None, api_key: str | None,
                  option: str) -> tuple[str, str | None, dict[str, str]]:
    """``(key, base URL without credentials, Basic-auth headers)`` from the arguments or
    ``OPENAI_API_KEY`` / ``OPENAI_BASE_URL``; a ConfigError when OpenAI's own API has no key."""
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
    return key, base, headers


def _chat_http(*, base_url: str | None, api_key: str | None, timeout: float,
               transport: httpx.AsyncBaseTransport | None, option: str) -> ChatHttp:
    """The HTTP client of an ``openai:`` judge: ``Authorization: Bearer KEY`` (or a URL's
    Basic auth), and ``OPENAI_ORG_ID`` / ``OPENAI_PROJECT_ID`` as the SDK sends them."""
    key, base, basic = _key_and_base(base_url, api_key, option)
    base = (base or OPENAI_BASE_URL).rstrip("/")
    headers = {"Authorization": f"Bearer {key}", **basic}
    for env, header in (("OPENAI_ORG_ID", "OpenAI-Organization"),
                        ("OPENAI_PROJECT_ID", "OpenAI-Project")):
        if value := os.environ.get(env):
            headers[header] = value
    return ChatHttp(f"{base}/chat/completions", endpoint=base.split("?")[0], timeout=timeout,
                    headers=headers, transport=transport)


def openai_client(*, base_url: str | None = None, api_key: str | None = None,
                  timeout: float = 120.0, option: str = "openai:MODEL") -> openai.AsyncOpenAI:
    """An ``AsyncOpenAI`` client from arguments or ``OPENAI_BASE_URL`` / ``OPENAI_API_KEY``,
    with the client's own retries off (the runner retries): the embedder's and the
    ``openai:`` target's.

    A key passed here is remembered as a secret (masked wherever a server repeats it); a base
    URL with ``user:password@`` sends them as HTTP Basic auth and the client holds the URL
    without them (see :mod:`assay.judges._endpoint`).

    Example:
        >>> client = openai_client(base_url="https://bob:hunter2@h.example/v1", api_key="k")
        >>> str(client.base_url), client.default_headers["Authorization"]
        ('https://h.example/v1/', 'Basic Ym9iOmh1bnRlcjI=')
    """
    import openai

    key, base, headers = _key_and_base(base_url, api_key, option)
    return openai.AsyncOpenAI(api_key=key, base_url=base, timeout=timeout, max_retries=0,
                              default_headers=headers or None)


def azure_judge(deployment: str, *, timeout: float = 120.0,
                transport: httpx.AsyncBaseTransport | None = None) -> OpenAIJudge:
    """A judge on an Azure OpenAI deployment (``AZURE_OPENAI_ENDPOINT``,
    ``AZURE_OPENAI_API_KEY``, ``OPENAI_API_VERSION``): POSTs to
    ``{endpoint}/openai/deployments/{deployment}/chat/completions?api-version=...`` with the
    key in the ``api-key`` header. ``transport`` replaces the network (tests).

    Example:
        >>> from unittest import mock
        >>> with mock.patch.dict("os.environ", AZURE_OPENAI_ENDPOINT="https://x.openai.azure.com/",
        ...                      AZURE_OPENAI_API_KEY="az-key-1234", OPENAI_API_VERSION="2024-10-21"):
        ...     judge = azure_judge("gpt-4o")
        >>> judge.id, judge.endpoint
        ('azure:gpt-4o', 'https://x.openai.azure.com/openai')
    """
    endpoint = os.environ.get("AZURE_OPENAI_ENDPOINT")
    key = os.environ.get("AZURE_OPENAI_API_KEY")
    version = os.environ.get("OPENAI_API_VERSION")
    missing = [n for n, v in (("AZURE_OPENAI_ENDPOINT", endpoint), ("AZURE_OPENAI_API_KEY", key),
                              ("OPENAI_API_VERSION", version)) if not v]
    if missing or not endpoint or not key or not version:
        raise ConfigError(f"{option('judge', f'azure:{deployment}')} needs {', '.join(missing)} set in the "
                          "environment (e.g. OPENAI_API_VERSION=2024-10-21).")
    remember_secret(key)
    bare, basic = basic_auth_header(endpoint)
    base = f"{bare.rstrip('/')}/openai"
    chat = ChatHttp(f"{base}/deployments/{deployment}/chat/completions", endpoint=base,
                    timeout=timeout, headers={"api-key": key, **basic},
                    params={"api-version": version}, transport=transport)
    return OpenAIJudge(deployment, client=chat, id_prefix="azure")


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
