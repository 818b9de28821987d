"""What a failed call to an OpenAI-compatible endpoint means to assay, decided once for every
way of calling it (assay's own httpx client and the ``openai`` SDK a caller hands in): from the
HTTP status, the headers, the provider's message and the URL, or from what the transport says.

- Worth retrying (``RetryableJudgeError``, with the server's ``Retry-After``): 429, 5xx, 408/409,
  timeouts, connection resets, and a body that is not JSON.
- The judge cannot answer at all (``JudgeUnavailableError``, with the endpoint, the status, the
  provider's message and the likely fix): 401, 403, 404; a refused connection or a failed DNS
  lookup is retried a few times first.
- Anything else the API rejects (400, 422, ...) is a final :class:`RejectedRequestError`.

Example:
    >>> e = status_error(429, {"retry-after-ms": "1500"}, "Rate limit reached", None)
    >>> type(e).__name__, str(e), e.retry_after, e.rate_limited
    ('RetryableJudgeError', 'rate limited (429): Rate limit reached', 1.5, True)
    >>> e = status_error(401, {}, "Incorrect API key", "http://h.example/v1/chat/completions")
    >>> e.kind, e.endpoint
    ('auth', 'http://h.example/v1/chat/completions')
"""

from __future__ import annotations

import email.utils
import time
from collections.abc import Mapping
from typing import Any

from ..errors import (
    CallTimeoutError,
    JudgeError,
    JudgeUnavailableError,
    RetryableJudgeError,
    option,
)

__all__ = ["RejectedRequestError", "connection_error", "endpoint_of", "is_connect_error",
           "not_json_error", "provider_message", "retry_after", "short", "status_error",
           "timeout_error"]


class RejectedRequestError(JudgeError):
    """The API refused the request itself (400, 422, ...): sending it again changes nothing.

    ``status`` is the HTTP status; a 400 about log-probabilities makes the judge ask again
    without them.
    """

    def __init__(self, message: str, *, status: int) -> None:
        super().__init__(message)
        self.status = status


def _unavailable(status: int) -> tuple[str, str]:
    """``(kind, likely fix)`` of a status that says the judge cannot answer at all."""
    if status == 401:
        return "auth", ("the key was refused: check OPENAI_API_KEY (or AZURE_OPENAI_API_KEY "
                        "for azure:)")
    if status == 403:
        return "forbidden", ("the key may not use this model or endpoint: check the key's "
                             "permissions and the model name")
    return "not_found", (f"the model or the path is unknown there: check MODEL in "
                         f"{option('judge', 'openai:MODEL')} and that OPENAI_BASE_URL ends in /v1")


def status_error(status: int, headers: Mapping[str, str] | Any, message: str,
                 url: str | None) -> JudgeError:
    """The error for an HTTP error status, ``message`` being the provider's text.

    Example:
        >>> str(status_error(503, {"retry-after": "2"}, "overloaded", None))
        'server error (503): overloaded'
        >>> type(status_error(400, {}, "bad schema", None)).__name__
        'RejectedRequestError'
    """
    text = short(message)
    wait = retry_after(headers)
    if status == 429:
        return RetryableJudgeError(f"rate limited (429): {text}", status=429, retry_after=wait,
                                   rate_limited=True)
    if status >= 500:
        return RetryableJudgeError(f"server error ({status}): {text}", status=status,
                                   retry_after=wait)
    if status in (408, 409):
        return RetryableJudgeError(f"HTTP {status}: {text}", status=status, retry_after=wait)
    if status in (401, 403, 404):
        kind, fix = _unavailable(status)
        return JudgeUnavailableError(f"HTTP {status}: {text}", kind=kind, status=status,
                                     endpoint=url, fix=fix)
    if status == 400:
        return RejectedRequestError(f"judge rejected the request: {text}", status=400)
    return RejectedRequestError(f"HTTP {status}: {text}", status=status)


def timeout_error(cause: BaseException | None) -> CallTimeoutError:
    """The error for a call that passed its deadline (connecting, writing or reading).

    Example:
        >>> str(timeout_error(None))
        'timed out: Request timed out.'
    """
    return CallTimeoutError(f"timed out: {short(cause) or 'Request timed out.'}")


def connection_error(cause: BaseException | None, url: str | None) -> RetryableJudgeError:
    """The error for a call that got no answer: a refused connection or a failed DNS lookup
    carries the :class:`JudgeUnavailableError` to raise if the last try fails the same way; a
    reset is simply retried.

    Example:
        >>> import httpx
        >>> e = connection_error(httpx.ConnectError("refused"), "http://127.0.0.1:9/v1")
        >>> str(e), e.unreachable.kind
        ('cannot connect to http://127.0.0.1:9/v1: refused', 'connection')
        >>> connection_error(httpx.ReadError("reset"), None).unreachable is None
        True
    """
    if is_connect_error(cause):  # refused, DNS, unroutable
        text = short(cause) or "connection failed"
        hard = JudgeUnavailableError(
            f"cannot connect: {text}", kind="connection", endpoint=url,
            fix="nothing answers at this address: check OPENAI_BASE_URL (it should end in /v1 "
                "for most servers) and that the server is running")
        return RetryableJudgeError(f"cannot connect to {url}: {text}", unreachable=hard)
    return RetryableJudgeError(f"connection error: {short(cause) or 'connection lost'}")


def not_json_error(detail: object) -> RetryableJudgeError:
    """The error for an HTTP 200 whose body is not the JSON the API promises.

    Example:
        >>> str(not_json_error("<html>"))
        'judge answered with a body that is not the JSON the API promises: <html>'
    """
    return RetryableJudgeError("judge answered with a body that is not the JSON the API "
                               f"promises: {short(detail)}")


def provider_message(body: Any) -> str | None:
    """The provider's own words in an error body: ``{"error": {"message": ...}}`` (OpenAI,
    Azure, vLLM), ``{"error": "..."}`` (Ollama), ``{"message": ...}``; ``None`` otherwise.

    Example:
        >>> provider_message({"error": {"message": "Incorrect API key", "type": "x"}})
        'Incorrect API key'
        >>> provider_message({"error": "model not found"}), provider_message([1])
        ('model not found', None)
    """
    if isinstance(body, Mapping) and "error" in body:
        body = body["error"]
    if isinstance(body, Mapping):
        body = body.get("message")
    return body if isinstance(body, str) and body else None


def is_connect_error(error: BaseException | None) -> bool:
    """Whether the transport could not connect at all (refused, DNS, unroutable): an
    ``httpx.ConnectError``, or the same class of ``httpx2``, which newer ``openai`` uses.

    Example:
        >>> import httpx
        >>> is_connect_error(httpx.ConnectError("refused")), is_connect_error(TimeoutError())
        (True, False)
    """
    return error is not None and any(
        c.__name__ == "ConnectError" and c.__module__.split(".")[0] in ("httpx", "httpx2")
        for c in type(error).__mro__)


def endpoint_of(request: Any) -> str | None:
    """The URL a request went to, without credentials or query string (an Azure key may ride
    in the query).

    Example:
        >>> import httpx
        >>> endpoint_of(httpx.Request("POST", "https://u:p@h.example/v1/chat/completions?key=s"))
        'https://h.example/v1/chat/completions'
    """
    try:
        url = getattr(request, "url", None)
    except RuntimeError:  # an httpx response made without its request
        return None
    if url is None:
        return None
    try:
        return str(url.copy_with(userinfo=b"", query=None, fragment=None))
    except (AttributeError, TypeError, ValueError):
        return str(url).split("?")[0].split("#")[0]


def retry_after(headers: Mapping[str, str] | Any) -> float | None:
    """Seconds to wait from ``retry-after-ms`` / ``Retry-After`` (seconds or an HTTP date).

    Example:
        >>> retry_after({"retry-after-ms": "1500", "retry-after": "9"}), retry_after({})
        (1.5, None)
    """
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


def short(detail: object) -> str:
    """``detail`` on one line, at most 300 characters."""
    return "" if detail is None else str(detail).replace("\n", " ")[:300]
