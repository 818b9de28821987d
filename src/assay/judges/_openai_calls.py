"""Calls to an OpenAI-compatible endpoint with its errors mapped onto assay's: what may be
retried (429, 5xx, timeouts, resets, a body that is not JSON), what stops the run (401, 403, 404,
nothing listening), and what is final (400, 422, ...).

Example:
    >>> import asyncio
    >>> async def ok(**kwargs): return kwargs["n"]
    >>> asyncio.run(call_openai(ok, n=3))
    3
"""

from __future__ import annotations

import email.utils
import json
import time
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from ..errors import (
    CallTimeoutError,
    JudgeError,
    JudgeUnavailableError,
    RetryableJudgeError,
    option,
)

if TYPE_CHECKING:  # ``openai`` is imported on first use, not with assay
    import openai

__all__ = ["call_openai"]


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
