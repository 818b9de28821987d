"""Calls through an ``openai`` SDK client (one a caller hands in: Azure with AAD tokens, a
proxy's client; and the embedder's), its exceptions mapped onto assay's errors by the same
rules as assay's own HTTP client (:mod:`assay.judges._http_errors`).

Example:
    >>> import asyncio
    >>> async def ok(**kwargs): return kwargs["n"]
    >>> asyncio.run(call_openai(ok, n=3))
    3
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from typing import Any

from ._http_errors import (
    connection_error,
    endpoint_of,
    not_json_error,
    provider_message,
    short,
    status_error,
    timeout_error,
)

__all__ = ["call_openai"]


async def call_openai(method: Callable[..., Awaitable[Any]], **kwargs: Any) -> Any:
    """Call an ``openai`` client method, mapping its errors onto assay's (see
    :mod:`assay.judges._http_errors` for what is retried, what stops the run and what is
    final)."""
    import openai

    try:
        return await method(**kwargs)
    except openai.APIStatusError as e:
        message = provider_message(e.body) or short(e)
        raise status_error(e.status_code, e.response.headers, message,
                           endpoint_of(e.response.request)) from e
    except openai.APITimeoutError as e:
        raise timeout_error(e) from e
    except openai.APIConnectionError as e:
        raise connection_error(e.__cause__ or e, endpoint_of(getattr(e, "request", None))) from e
    except (openai.APIResponseValidationError, json.JSONDecodeError) as e:
        raise not_json_error(e) from e
