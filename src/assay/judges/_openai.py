"""OpenAI-compatible judges (OpenAI, Azure OpenAI, vLLM, Ollama, llama.cpp server) via ``openai``.

Example:
    >>> judge = OpenAIJudge("gpt-4o-mini", base_url="http://127.0.0.1:9/v1", api_key="sk-x")
    >>> judge.id, judge.capabilities.context_window, judge.capabilities.local
    ('openai:gpt-4o-mini', 128000, False)
"""

from __future__ import annotations

import email.utils
import json
import os
import time
from collections.abc import Awaitable, Callable
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from .._secrets import remember_secret
from ..errors import (
    CallTimeoutError,
    ConfigError,
    JudgeError,
    JudgeUnavailableError,
    RetryableJudgeError,
    option,
)
from ._base import Accept, JudgeCapabilities, JudgeRequest, JudgeResponse, TokenLogprob
from ._endpoint import basic_auth_header, client_endpoint
from ._known import known_capabilities
from ._ratelimit import rate_limits

if TYPE_CHECKING:  # ``openai`` (and httpx under it) is imported on first use, not with assay
    import openai

__all__ = ["OpenAIJudge", "azure_judge", "call_openai", "openai_client"]


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


async def call_openai(method: Callable[..., Awaitable[Any]], **kwargs: Any) -> Any:
    """Call an ``openai`` client method, mapping its errors onto assay's.

    - Worth retrying (``RetryableJudgeError``, with the server's ``Retry-After``): 429, 5xx,
      408/409, timeouts, connection resets, and a body that is not JSON.
    - The judge cannot answer at all (``JudgeUnavailableError``, with the endpoint, the status,
      the provider's message and the likely fix): 401, 403, 404; a refused connection or a
      failed DNS lookup is retried a few times first.
    - Anything else the API rejects (400, 422, ...) is a final ``JudgeError``.
    """
    import openai

    try:
        return await method(**kwargs)
    except openai.RateLimitError as e:
        raise RetryableJudgeError(f"rate limited (429): {_short(e)}", status=429,
                                  retry_after=_retry_after(e.response), rate_limited=True) from e
    except openai.InternalServerError as e:
        raise RetryableJudgeError(f"server error ({e.status_code}): {_short(e)}",
                                  status=e.status_code, retry_after=_retry_after(e.response)) from e
    except openai.APITimeoutError as e:
        raise CallTimeoutError(f"timed out: {_short(e)}") from e
    except openai.APIConnectionError as e:
        url = _endpoint(getattr(e, "request", None))
        if _is_connect_error(e.__cause__):  # refused, DNS, unroutable
            cause = _short(e.__cause__) or "connection failed"
            hard = JudgeUnavailableError(
                f"cannot connect: {cause}", kind="connection", endpoint=url,
                fix="nothing answers at this address: check OPENAI_BASE_URL (it should end in "
                    "/v1 for most servers) and that the server is running")
            raise RetryableJudgeError(f"cannot connect to {url}: {cause}",
                                      unreachable=hard) from e
        raise RetryableJudgeError(f"connection error: {_short(e.__cause__ or e)}") from e
    except openai.AuthenticationError as e:
        raise _unavailable(e, "auth", "the key was refused: check OPENAI_API_KEY (or "
                                      "AZURE_OPENAI_API_KEY for azure:)") from e
    except openai.PermissionDeniedError as e:
        raise _unavailable(e, "forbidden", "the key may not use this model or endpoint: check "
                                           "the key's permissions and the model name") from e
    except openai.NotFoundError as e:
        raise _unavailable(e, "not_found", "the model or the path is unknown there: check "
                                           f"MODEL in {option('judge', 'openai:MODEL')} "
                                           "and that "
                                           "OPENAI_BASE_URL ends in /v1") from e
    except openai.BadRequestError as e:
        raise JudgeError(f"judge rejected the request: {_short(e)}") from e
    except openai.APIStatusError as e:
        if e.status_code in (408, 409):
            raise RetryableJudgeError(f"HTTP {e.status_code}: {_short(e)}", status=e.status_code,
                                      retry_after=_retry_after(e.response)) from e
        raise JudgeError(f"HTTP {e.status_code}: {_short(e)}") from e
    except (openai.APIResponseValidationError, json.JSONDecodeError) as e:
        raise RetryableJudgeError(f"judge answered with a body that is not the JSON the API "
                                  f"promises: {_short(e)}") from e


def _unavailable(e: openai.APIStatusError, kind: str, fix: str) -> JudgeUnavailableError:
    return JudgeUnavailableError(f"HTTP {e.status_code}: {_short(e)}", kind=kind,
                                 status=e.status_code,
                                 endpoint=_endpoint(getattr(e.response, "request", None)),
                                 fix=fix)


def _is_connect_error(error: BaseException | None) -> bool:
    """Whether the transport could not connect at all (refused, DNS, unroutable): an
    ``httpx.ConnectError``, or the same class of ``httpx2``, which newer ``openai`` uses.

    Example:
        >>> import httpx
        >>> _is_connect_error(httpx.ConnectError("refused")), _is_connect_error(TimeoutError())
        (True, False)
    """
    return error is not None and any(
        c.__name__ == "ConnectError" and c.__module__.split(".")[0] in ("httpx", "httpx2")
        for c in type(error).__mro__)


def _endpoint(request: Any) -> str | None:
    """The URL a request went to, without credentials or query string (an Azure key may ride
    in the query).

    Example:
        >>> import httpx
        >>> _endpoint(httpx.Request("POST", "https://u:p@h.example/v1/chat/completions?key=s"))
        'https://h.example/v1/chat/completions'
    """
    url = getattr(request, "url", None)
    if url is None:
        return None
    try:
        return str(url.copy_with(userinfo=b"", query=None, fragment=None))
    except (AttributeError, TypeError, ValueError):
        return str(url).split("?")[0].split("#")[0]


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


def _retry_after(response: Any) -> float | None:
    """Seconds to wait from ``retry-after-ms`` / ``Retry-After`` (seconds or an HTTP date)."""
    headers = getattr(response, "headers", None)
    if headers is None:
        return None
    ms = headers.get("retry-after-ms")
    if ms:
        try:
            return float(ms) / 1000.0
        except ValueError:
            pass
    ra = headers.get("retry-after")
    if not ra:
        return None
    try:
        return float(ra)
    except ValueError:
        pass
    try:  # an HTTP date; anything unparsable falls back to the backoff
        parsed = email.utils.parsedate_to_datetime(ra)
    except (TypeError, ValueError, IndexError):
        return None
    if parsed.tzinfo is None:
        return None
    return max(0.0, parsed.timestamp() - time.time())


def _short(e: BaseException | None) -> str:
    return "" if e is None else str(e).replace("\n", " ")[:300]
