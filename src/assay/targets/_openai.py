"""``openai:MODEL`` or ``openai:MODEL@URL``: the app under test as an OpenAI-compatible chat
model (the same client, error mapping and deadline as the judge); a login in the URL is
masked in its id.

Example:
    >>> OpenAITarget("m@https://bob:hunter2@h.example/v1").id
    'openai:m@https://bob:***@h.example/v1'
"""

from __future__ import annotations

from typing import Any

from ..calls import DEFAULT_TIMEOUT, within
from ..errors import option
from ._kinds import RAG_SYSTEM, Messages
from ._make import register_target
from ._usage import read_usage, report_app_usage

__all__ = ["OpenAITarget"]


class OpenAITarget:
    """A chat model behind an OpenAI-compatible endpoint, with a plain RAG prompt:
    ``openai:MODEL`` (``OPENAI_BASE_URL``) or ``openai:MODEL@URL``, read as
    ``--judge openai:MODEL@URL`` is (credentials in the URL go as HTTP Basic auth and show
    masked in the id).

    Example:
        >>> OpenAITarget("m@https://bob:hunter2@h.example/v1").id
        'openai:m@https://bob:***@h.example/v1'
    """

    def __init__(self, spec: str, *, timeout: float = DEFAULT_TIMEOUT) -> None:
        from ..judges import public_url, split_model_url
        self.model, self._url = split_model_url(spec, option=option("target", "openai:MODEL@URL"))
        self.id = f"openai:{self.model}" + (f"@{public_url(self._url)}" if self._url else "")
        self.timeout = timeout
        self._client: Any = None
        self._open()  # checks the settings

    def _open(self) -> Any:
        from ..judges import openai_client
        if self._client is None:  # closed earlier: a fresh client, never a closed one
            self._client = openai_client(base_url=self._url,
                                         option=option("target", "openai:MODEL"),
                                         timeout=self.timeout)
        return self._client

    async def _create(self, **kwargs: Any) -> Any:
        """One chat completion within the deadline, its errors mapped onto assay's; its
        ``usage`` reported (see :mod:`assay.targets._usage`)."""
        from ..judges import call_openai
        resp = await within(self.timeout, call_openai(self._open().chat.completions.create,
                                                      **kwargs))
        report_app_usage(read_usage(getattr(resp, "usage", None)))
        return resp

    async def answer(self, question: str, passages: list[str], lang: str) -> str:
        docs = "\n".join(passages)
        resp = await self._create(model=self.model, temperature=0.0, max_tokens=256, messages=[
            {"role": "system", "content": RAG_SYSTEM[lang]},
            {"role": "user", "content": f"Documents:\n{docs}\n\nQuestion: {question}"}])
        return resp.choices[0].message.content or ""

    async def reply(self, messages: Messages) -> str:
        resp = await self._create(model=self.model, temperature=0.0, max_tokens=512,
                                  messages=messages)
        return resp.choices[0].message.content or ""

    async def complete(self, messages: list[dict[str, Any]],
                       tools: list[dict[str, Any]] | None) -> list[dict[str, Any]]:
        """One model turn with the row's tools: the assistant message, its tool calls as the
        model wrote them (assay runs them only when given the tools' functions)."""
        offer = {"tools": tools} if tools else {}
        resp = await self._create(model=self.model, temperature=0.0, max_tokens=512,
                                  messages=messages, **offer)
        message = resp.choices[0].message
        calls = [{"id": c.id, "type": "function", "function": {
            "name": c.function.name, "arguments": c.function.arguments}}
            for c in message.tool_calls or []]
        return [{"role": "assistant", "content": message.content if calls else
                 message.content or "", **({"tool_calls": calls} if calls else {})}]

    async def aclose(self) -> None:
        """Close the client's connections (once; a later call opens a new client)."""
        client, self._client = self._client, None
        if client is not None:
            await client.close()


register_target("openai", OpenAITarget, specs=("openai:MODEL", "openai:MODEL@URL"))
