"""``http:URL``: the app under test behind an HTTP endpoint that takes JSON and answers with
text or JSON, under one deadline for the whole call.

Example:
    >>> HttpTarget("http://127.0.0.1:8000/chat").id
    'http:http://127.0.0.1:8000/chat'
"""

from __future__ import annotations

import json
import os
from typing import TYPE_CHECKING, Any

from ..calls import DEFAULT_TIMEOUT, within
from ..errors import JudgeError, RetryableJudgeError
from ._kinds import Messages
from ._make import register_target
from ._usage import read_usage, report_app_usage

if TYPE_CHECKING:  # imported when an HTTP target first posts, not with assay
    import httpx

__all__ = ["HttpTarget"]


class HttpTarget:
    """``http:URL``: POSTs ``{"question": ..., "passages": [...]}`` (``{"messages": [...]}`` for
    simulate and jailbreak), or the JSON template in ``ASSAY_TARGET_TEMPLATE`` with
    ``{question}``/``{passages}`` (``{messages}``) placeholders, and reads the ``answer`` field of
    the JSON reply (``ASSAY_TARGET_FIELD`` for another one, dotted for a nested one), and the
    app's token usage from the reply's top-level ``usage`` (OpenAI-style) and ``model``, when
    it has them (see :mod:`assay.targets._usage`). A URL's
    ``user:password@`` is sent as HTTP Basic auth (as httpx does) and shows masked in the id;
    errors are masked of it.

    Example:
        >>> HttpTarget("https://bob:hunter2@h.example/answer").id
        'http:https://bob:***@h.example/answer'
    """

    def __init__(self, url: str, *, timeout: float = DEFAULT_TIMEOUT) -> None:
        from .._secrets import remember_url_credentials, url_with_masked_userinfo
        remember_url_credentials(url)
        self.id = f"http:{url_with_masked_userinfo(url)}"
        self.url = url
        self.timeout = timeout
        self.template = os.environ.get("ASSAY_TARGET_TEMPLATE")
        self.field = os.environ.get("ASSAY_TARGET_FIELD", "answer")
        self._client: httpx.AsyncClient | None = None  # opened on first use, kept alive

    async def answer(self, question: str, passages: list[str], lang: str) -> str:
        if self.template:
            body = json.loads(self.template.replace("{question}", json.dumps(question)[1:-1])
                              .replace('"{passages}"', json.dumps(passages)))
        else:
            body = {"question": question, "passages": passages}
        return await self._post(body)

    async def reply(self, messages: Messages) -> str:
        body = (json.loads(self.template.replace('"{messages}"', json.dumps(messages)))
                if self.template else {"messages": messages})
        return await self._post(body)

    async def aclose(self) -> None:
        """Close the kept-alive connections (once; a later call opens a new client)."""
        client, self._client = self._client, None
        if client is not None:
            await client.aclose()

    async def _post(self, body: Any) -> str:
        import httpx

        if self._client is None:
            self._client = httpx.AsyncClient(timeout=self.timeout)
        try:  # the deadline covers the whole answer: a body that trickles in is cut off
            resp = await within(self.timeout, self._client.post(self.url, json=body))
        except httpx.HTTPError as e:
            raise RetryableJudgeError(f"target unreachable: {e}") from e
        if resp.status_code == 429 or resp.status_code >= 500:
            raise RetryableJudgeError(f"target answered HTTP {resp.status_code}",
                                      status=resp.status_code)
        if resp.status_code >= 400:
            raise JudgeError(f"target answered HTTP {resp.status_code}: {resp.text[:200]}")
        value: Any = resp.json()
        if isinstance(value, dict):  # its usage was spent, whether the text is there or not
            model = value.get("model")
            report_app_usage(read_usage(value.get("usage")),
                             model if isinstance(model, str) else None)
        for key in self.field.split("."):
            value = value.get(key) if isinstance(value, dict) else None
        if not isinstance(value, str):
            raise JudgeError(f"target reply has no text field {self.field!r}")
        return value


def _http_target(rest: str, *, timeout: float) -> HttpTarget:
    """``http://HOST/...`` (read as the prefix ``http`` and ``//HOST/...``) or ``http:URL``."""
    return HttpTarget(f"http:{rest}" if rest.startswith("//") else rest, timeout=timeout)


def _https_target(rest: str, *, timeout: float) -> HttpTarget:
    """``https://HOST/...``, read as the prefix ``https`` and ``//HOST/...``."""
    return HttpTarget(f"https:{rest}", timeout=timeout)


register_target("http", _http_target, specs=("http:URL",))
register_target("https", _https_target, specs=())  # an https:// URL, listed as http:URL
