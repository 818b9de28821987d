"""The app under test: a Python callable, an OpenAI-compatible chat model or an HTTP endpoint.

Each target answers two ways: ``answer(question, passages, lang)`` for the RAG robustness suites,
and ``reply(messages)`` (the conversation so far, OpenAI-style ``{"role", "content"}`` dicts) for
``assay simulate`` and ``assay jailbreak``. The Python and OpenAI targets also take one agent
turn, ``complete(messages, tools)``, for ``assay run --target`` (see :mod:`assay.agents`).
Whoever makes a target owns its connections: it closes them once, at the end, with
:func:`close_target` (a target opens them again if it is used after that, never fails with a
closed client).

Every call has a deadline: ``timeout`` seconds for the whole call (connecting, waiting and
reading the answer), past which it fails with :class:`~assay.errors.CallTimeoutError`
("timed out after N s"; the caller's retry policy tries it once more). A plain (blocking)
Python function runs in a daemon thread, abandoned at its deadline or on Ctrl-C: a hung
function neither stalls the run nor keeps the process from ending. The embedded model
(``local``) computes in this process and has no deadline, as when it is the judge.

Example:
    >>> make_target("python:examples.apps:echo_first_passage").id
    'python:examples.apps:echo_first_passage'
"""

from __future__ import annotations

import importlib
import inspect
import json
import os
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

from .._deadline import DEFAULT_TIMEOUT, check_timeout, in_daemon_thread, within
from ..errors import ConfigError, JudgeError, RetryableJudgeError, option

if TYPE_CHECKING:  # imported when an HTTP target first posts, not with assay
    import httpx

__all__ = ["TARGET_SPECS", "AgentTarget", "ChatTarget", "Target", "close_target", "make_target"]

Messages = list[dict[str, str]]

TARGET_SPECS = ("python:package.module:function", "openai:MODEL", "openai:MODEL@URL", "http:URL",
                "local")

_RAG_SYSTEM = {
    "en": "Answer the question using the documents. If the documents do not contain the answer, "
          "say \"I can not answer the question because of the insufficient information in "
          "documents.\" If the documents contain factual errors, say so and give the correct "
          "answer.",
    "zh": "请根据文档回答问题。如果文档中没有答案，请回答\"文档信息不足，因此我无法基于提供的文档回答该问题。\""
          "如果文档中有事实性错误，请指出并给出正确答案。",
}


class Target(Protocol):
    """Answers a question from passages."""

    id: str

    async def answer(self, question: str, passages: list[str], lang: str) -> str: ...


class ChatTarget(Protocol):
    """Replies to a conversation."""

    id: str

    async def reply(self, messages: Messages) -> str: ...


class AgentTarget(Protocol):
    """Takes one agent turn: the new messages after ``messages`` (OpenAI-style dicts, with
    ``tool_calls`` and ``tool`` messages), given the row's OpenAI function ``tools`` or None."""

    id: str

    async def complete(self, messages: list[dict[str, Any]],
                       tools: list[dict[str, Any]] | None) -> Any: ...


class PythonTarget:
    """``python:package.module:function``; the function may be async and returns text. The
    robustness suites call it with ``(question, passages)``; simulate and jailbreak call it with
    ``(messages)``, the conversation so far. The current directory is importable. A plain
    function runs in a daemon thread (see the module's note on deadlines)."""

    def __init__(self, ref: str, *, timeout: float = DEFAULT_TIMEOUT) -> None:
        self.id = f"python:{ref}"
        self.timeout = timeout
        module_name, _, func = ref.partition(":")
        if not module_name or not func:
            raise ConfigError(f"Got {option('target', 'python:' + ref)}: expected "
                              "python:package.module:function")
        if os.getcwd() not in sys.path:
            sys.path.insert(0, os.getcwd())
        try:
            self._fn: Callable[..., Any] = getattr(importlib.import_module(module_name), func)
        except (ImportError, AttributeError) as e:
            raise ConfigError(f"Got {option('target', 'python:' + ref)}: cannot import it "
                              f"({e}).") from e

    async def answer(self, question: str, passages: list[str], lang: str) -> str:
        return str(await self._call(question, passages))

    async def reply(self, messages: Messages) -> str:
        return str(await self._call(messages))

    async def complete(self, messages: list[dict[str, Any]],
                       tools: list[dict[str, Any]] | None) -> Any:
        """``fn(messages, tools)`` as it returned (awaited when it is async); the caller
        checks the shape."""
        return await self._call(messages, tools)

    async def _call(self, *args: Any) -> Any:
        """``fn(*args)``, awaited when it is async or returns an awaitable, within the
        deadline; a plain function in a daemon thread."""
        async def call() -> Any:
            if inspect.iscoroutinefunction(self._fn):
                result = await self._fn(*args)
            else:
                result = await in_daemon_thread(self._fn, *args)
            return await result if inspect.isawaitable(result) else result

        return await within(self.timeout, call())

    async def aclose(self) -> None:
        """Nothing to close: the function holds no connection of ours."""


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
        """One chat completion within the deadline, its errors mapped onto assay's."""
        from ..judges import call_openai
        return await within(self.timeout, call_openai(self._open().chat.completions.create,
                                                      **kwargs))

    async def answer(self, question: str, passages: list[str], lang: str) -> str:
        docs = "\n".join(passages)
        resp = await self._create(model=self.model, temperature=0.0, max_tokens=256, messages=[
            {"role": "system", "content": _RAG_SYSTEM[lang]},
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


class LocalTarget:
    """The embedded model (or ``local:PATH.gguf``) as the app under test, with the RAG prompt."""

    def __init__(self, model_path: str | None = None) -> None:
        from ..judges import LocalJudge
        self._model = LocalJudge(model_path)
        self.id = self._model.id

    async def answer(self, question: str, passages: list[str], lang: str) -> str:
        from ..judges import JudgeRequest
        docs = "\n".join(passages)
        request = JudgeRequest(messages=[
            {"role": "system", "content": _RAG_SYSTEM[lang]},
            {"role": "user", "content": f"Documents:\n{docs}\n\nQuestion: {question}"}],
            schema_name="answer", json_schema=None, max_tokens=96, logprobs=False)
        return (await self._model.complete(request)).text

    async def reply(self, messages: Messages) -> str:
        from ..judges import JudgeRequest
        request = JudgeRequest(messages=messages, schema_name="reply", json_schema=None,
                               max_tokens=256, logprobs=False)
        return (await self._model.complete(request)).text

    async def aclose(self) -> None:
        await self._model.aclose()


class HttpTarget:
    """``http:URL``: POSTs ``{"question": ..., "passages": [...]}`` (``{"messages": [...]}`` for
    simulate and jailbreak), or the JSON template in ``ASSAY_TARGET_TEMPLATE`` with
    ``{question}``/``{passages}`` (``{messages}``) placeholders, and reads the ``answer`` field of
    the JSON reply (``ASSAY_TARGET_FIELD`` for another one, dotted for a nested one). A URL's
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
        for key in self.field.split("."):
            value = value.get(key) if isinstance(value, dict) else None
        if not isinstance(value, str):
            raise JudgeError(f"target reply has no text field {self.field!r}")
        return value


async def close_target(target: object) -> None:
    """Close a target's connections if it has any (``aclose``); a target without one, such as a
    plain function wrapper, has nothing to close.

    Example:
        >>> import asyncio
        >>> asyncio.run(close_target(make_target("python:examples.apps:toy_app")))
        >>> asyncio.run(close_target(object()))
    """
    aclose = getattr(target, "aclose", None)
    if aclose is not None:
        await aclose()


def make_target(spec: str, *, timeout: float = DEFAULT_TIMEOUT
                ) -> PythonTarget | OpenAITarget | LocalTarget | HttpTarget:
    """A target from ``python:...``, ``openai:MODEL``, ``http:URL`` or ``local``; each is both a
    :class:`Target` and a :class:`ChatTarget`. ``timeout``: seconds one call may take in all
    (a positive finite number)."""
    timeout = check_timeout(timeout)
    kind, _, arg = spec.partition(":")
    if kind == "python" and arg:
        return PythonTarget(arg, timeout=timeout)
    if kind == "openai" and arg:
        return OpenAITarget(arg, timeout=timeout)
    if kind == "local":
        return LocalTarget(arg or None)
    if kind in ("http", "https") and arg:
        return HttpTarget(spec if kind == "https" or arg.startswith("//") else arg,
                          timeout=timeout)
    from .._secrets import mask_secrets
    raise ConfigError(f"Got {option('target', mask_secrets(spec))}. Must be one of: "
                      f"{', '.join(TARGET_SPECS)}.")
