"""Chat completions over one ``httpx.AsyncClient``, without the ``openai`` SDK (whose import,
0.6 s of pydantic models, was most of a run's fixed cost): a POST of the request's JSON, its
answer read as plain JSON, its failures mapped by :mod:`assay.judges._http_errors`.

Example:
    >>> import asyncio, httpx
    >>> def answer(request):
    ...     return httpx.Response(200, json={"model": "m", "choices": [
    ...         {"message": {"content": "hi"}, "finish_reason": "stop"}]})
    >>> chat = ChatHttp("http://h.example/v1/chat/completions", endpoint="http://h.example/v1",
    ...                 timeout=5, transport=httpx.MockTransport(answer))
    >>> asyncio.run(chat.post({"model": "m", "messages": []}))["choices"][0]["message"]
    {'content': 'hi'}
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from ._http_errors import (
    connection_error,
    endpoint_of,
    not_json_error,
    provider_message,
    status_error,
    timeout_error,
)
from ._ratelimit import rate_limits

if TYPE_CHECKING:  # httpx is imported on the first request, not with assay
    import httpx

__all__ = ["ChatHttp"]

#: The ``openai`` SDK's connection pool, so that a judge's concurrency meets the same limits.
MAX_CONNECTIONS = 1000
MAX_KEEPALIVE_CONNECTIONS = 100


class ChatHttp:
    """POSTs chat-completion requests to ``url`` and returns the parsed JSON answers.

    ``headers`` go with every request (the key, as ``Authorization: Bearer`` or Azure's
    ``api-key``; never logged), ``params`` are the query (Azure's ``api-version``), ``timeout``
    bounds each phase of a request (connecting, writing, reading), ``endpoint`` is the base
    URL caches name. ``rate_limits`` holds what the provider's last answer, failed ones too,
    said is left of its window (see :mod:`assay.judges._ratelimit`). The client is made on the
    first request, in the loop that sends it; ``transport`` replaces the network (tests).
    """

    def __init__(self, url: str, *, endpoint: str, timeout: float,
                 headers: Mapping[str, str] | None = None,
                 params: Mapping[str, str] | None = None,
                 transport: httpx.AsyncBaseTransport | None = None) -> None:
        self.url = url
        self.endpoint = endpoint
        self.timeout = timeout
        self._headers = dict(headers or {})
        self._params = dict(params or {})
        self.rate_limits: dict[str, float] = {}
        self._transport = transport
        self._client: httpx.AsyncClient | None = None

    def _open(self) -> httpx.AsyncClient:
        import httpx

        if self._client is None:
            self._client = httpx.AsyncClient(
                timeout=httpx.Timeout(self.timeout), transport=self._transport,
                # a plain-http endpoint (a local vLLM, Ollama, llama.cpp server) uses no TLS:
                # loading the CA bundle for it cost 0.05-0.2 s of every run's first request
                verify=not self.url.lower().startswith("http://"),
                headers={"Accept": "application/json", **self._headers},
                limits=httpx.Limits(max_connections=MAX_CONNECTIONS,
                                    max_keepalive_connections=MAX_KEEPALIVE_CONNECTIONS))
        return self._client

    async def post(self, body: Mapping[str, Any]) -> Any:
        """Send ``body``; the answer's JSON, or the judge error its failure means."""
        import httpx

        client = self._open()
        try:
            response = await client.post(self.url, json=body, params=self._params or None)
        except httpx.TimeoutException as e:
            raise timeout_error(e) from e
        except httpx.TransportError as e:
            raise connection_error(e, endpoint_of(e.request if _has_request(e) else None)) from e
        self.rate_limits = rate_limits(response.headers)
        try:
            data = json.loads(response.content)
        except (ValueError, UnicodeDecodeError) as e:
            if response.is_success:
                raise not_json_error(response.text[:120] or e) from e
            data = None
        if not response.is_success:
            message = provider_message(data) or response.text or response.reason_phrase
            raise status_error(response.status_code, response.headers, message,
                               endpoint_of(response.request))
        return data

    async def aclose(self) -> None:
        """Close the connections (a later request opens a new client)."""
        client, self._client = self._client, None
        if client is not None:
            await client.aclose()


def _has_request(error: httpx.TransportError) -> bool:
    try:
        return error.request is not None
    except RuntimeError:  # raised without one
        return False
