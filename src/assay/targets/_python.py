"""``python:package.module:function``: the app under test as a Python callable (sync or async),
run under its deadline (a plain function in a daemon thread, abandoned at the deadline).

Example:
    >>> import asyncio
    >>> target = PythonTarget("examples.apps:echo_first_passage")
    >>> asyncio.run(target.answer("Where?", ["Paris is in France."], "en"))
    'Paris is in France.'
"""

from __future__ import annotations

import importlib
import inspect
import os
import sys
from collections.abc import Callable
from typing import Any

from ..calls import DEFAULT_TIMEOUT, in_daemon_thread, within
from ..errors import ConfigError, option
from ._kinds import Messages

__all__ = ["PythonTarget", "reply_text", "takes_tools"]


def reply_text(result: Any) -> str:
    """The reply of an agent asked without tools: its text, or the text of the last assistant
    message it returned (a message or a list of them). Tool calls alone are no reply: a
    ValueError says so (the commands that take a chat reply run no tools).

    Example:
        >>> reply_text([{"role": "assistant", "content": "Hello."}]), reply_text("Hi.")
        ('Hello.', 'Hi.')
        >>> reply_text({"role": "assistant", "content": None, "tool_calls": [{"id": "1"}]})
        Traceback (most recent call last):
        ...
        ValueError: the agent answered with tool calls only, and no text: this command runs no tools, so it needs a text reply
    """
    if isinstance(result, str):
        return result
    messages = [result] if isinstance(result, dict) else result
    if isinstance(messages, list):
        texts = [m.get("content") for m in messages
                 if isinstance(m, dict) and m.get("role", "assistant") == "assistant"
                 and isinstance(m.get("content"), str) and m.get("content")]
        if texts:
            return str(texts[-1])
        raise ValueError("the agent answered with tool calls only, and no text: this command "
                         "runs no tools, so it needs a text reply")
    return str(result)


def takes_tools(fn: Callable[..., Any]) -> bool:
    """Whether ``fn`` can be called as ``fn(messages, tools)``: two positional parameters or
    more, or ``*args`` (an agent), rather than one (a plain chat function, ``fn(messages)``).
    A callable whose signature cannot be read is taken to be an agent.

    Example:
        >>> takes_tools(lambda messages, tools: ""), takes_tools(lambda messages: "")
        (True, False)
        >>> takes_tools(lambda messages, tools=None: ""), takes_tools(lambda *a: "")
        (True, True)
    """
    try:
        params = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        return True
    kinds = [p.kind for p in params]
    if inspect.Parameter.VAR_POSITIONAL in kinds:
        return True
    positional = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    return sum(kind in positional for kind in kinds) >= 2


class PythonTarget:
    """``python:package.module:function``; the function may be async and returns text. The
    robustness suites call it with ``(question, passages)``; simulate and jailbreak call it with
    ``(messages)``, the conversation so far (an agent: ``(messages, None)``, its last text is
    the reply); ``assay run --target`` with ``(messages, tools)``,
    or ``(messages)`` when it takes one parameter (:func:`takes_tools`). The current directory
    is importable. A plain function runs in a daemon thread (see the module's note on
    deadlines)."""

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
        #: Whether ``assay run --target`` offers it the row's tools (``fn(messages, tools)``).
        self.takes_tools = takes_tools(self._fn)

    async def answer(self, question: str, passages: list[str], lang: str) -> str:
        return str(await self._call(question, passages))

    async def reply(self, messages: Messages) -> str:
        """The function's reply to ``messages``; an agent (``fn(messages, tools)``) is called
        with no tools, and the text of its last assistant message is the reply."""
        if not self.takes_tools:
            return str(await self._call(messages))
        return reply_text(await self._call(messages, None))

    async def complete(self, messages: list[dict[str, Any]],
                       tools: list[dict[str, Any]] | None) -> Any:
        """``fn(messages, tools)`` as it returned (awaited when it is async); the caller
        checks the shape. A plain chat function, ``fn(messages)`` (one positional
        parameter), is called without the tools."""
        if not self.takes_tools:
            return await self._call(messages)
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
