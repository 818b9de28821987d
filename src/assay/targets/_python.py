"""``python:package.module:function``: the app under test as a Python callable (sync or async),
run under its deadline (a plain function in a daemon thread, abandoned at the deadline).

An app that does not give its reply as text (returns ``None``, a number, bytes) or ends the
call itself (``sys.exit()``, any ``BaseException`` but Ctrl-C) failed that call: a
:class:`~assay.errors.JudgeError` says why, and the command records the conversation as an
app failure, as it does for an ``http:`` app that answers HTTP 500.

Example:
    >>> import asyncio
    >>> target = PythonTarget("examples.apps:echo_first_passage")
    >>> asyncio.run(target.answer("Where?", ["Paris is in France."], "en"))
    'Paris is in France.'
    >>> reply_or_failure(None, "python:m:f")
    Traceback (most recent call last):
    ...
    assay.errors.JudgeError: the app python:m:f returned None, not its reply as text (a str). Fix: return the reply's text.
"""

from __future__ import annotations

import asyncio
import importlib
import inspect
import os
import reprlib
import sys
from collections.abc import Callable
from typing import Any

from ..calls import DEFAULT_TIMEOUT, in_daemon_thread, within
from ..errors import ConfigError, JudgeError, option
from ._kinds import Messages
from ._make import register_target
from ._usage import read_usage, report_app_usage

__all__ = ["PythonTarget", "reply_or_failure", "reply_text", "takes_tools", "unwrap_usage"]


def unwrap_usage(result: Any) -> Any:
    """What the app returned, its usage reported: ``{"reply": X, "usage": {...}}`` (and an
    optional ``"model"``: the model its tokens are priced as) gives ``X``, its usage read as
    :func:`~assay.targets._usage.read_usage` does; anything else is returned as it is.

    Example:
        >>> unwrap_usage({"reply": "Paris.", "usage": {"prompt_tokens": 9,
        ...               "completion_tokens": 2}, "model": "gpt-4o-mini"})
        'Paris.'
        >>> unwrap_usage("Paris.")
        'Paris.'
    """
    if isinstance(result, dict) and "reply" in result and "usage" in result:
        model = result.get("model")
        report_app_usage(read_usage(result["usage"]), model if isinstance(model, str) else None)
        return result["reply"]
    return result


def reply_or_failure(value: Any, target: str) -> str:
    """``value`` if the app returned text, else a JudgeError naming what it returned.

    Example:
        >>> reply_or_failure("Hi.", "python:m:f")
        'Hi.'
        >>> try:
        ...     reply_or_failure(b"Hi.", "python:m:f")
        ... except JudgeError as e:
        ...     print(e)
        the app python:m:f returned bytes (b'Hi.'), not its reply as text (a str). Fix: return the reply's text.
    """
    if isinstance(value, str):
        return value
    what = "None" if value is None else f"{type(value).__name__} ({reprlib.repr(value)})"
    raise JudgeError(f"the app {target} returned {what}, not its reply as text (a str). Fix: "
                     "return the reply's text.")


def _ended(error: BaseException, target: str) -> JudgeError:
    """The failure of an app that ended the call with ``error`` (not an Exception)."""
    if isinstance(error, SystemExit):
        return JudgeError(f"the app {target} called sys.exit({error.code!r}) (SystemExit) "
                          "instead of returning its reply. Fix: return the reply; an app "
                          "under test must not end the process.")
    return JudgeError(f"the app {target} raised {type(error).__name__}: {error}")


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
    """``python:package.module:function``, or the function itself (the pytest plugin's
    ``target=my_app``); the function may be async and returns text. The
    robustness suites call it with ``(question, passages)``; simulate and jailbreak call it with
    ``(messages)``, the conversation so far (an agent: ``(messages, None)``, its last text is
    the reply); ``assay run --target`` with ``(messages, tools)``,
    or ``(messages)`` when it takes one parameter (:func:`takes_tools`). The current directory
    is importable. A plain function runs in a daemon thread (see the module's note on
    deadlines). A function that reports its token usage returns ``{"reply": <its reply>,
    "usage": {...}, "model": "..."}`` (see :func:`unwrap_usage`).

    Example:
        >>> def app(messages):
        ...     return "Paris."
        >>> PythonTarget(app).id.endswith(":app")
        True
    """

    def __init__(self, ref: str | Callable[..., Any], *,
                 timeout: float = DEFAULT_TIMEOUT) -> None:
        self.timeout = timeout
        self._fn: Callable[..., Any]
        if callable(ref):
            self._fn = ref
            self.id = f"python:{getattr(ref, '__module__', '?')}:{getattr(ref, '__qualname__', '?')}"
            self.takes_tools = takes_tools(ref)
            return
        self.id = f"python:{ref}"
        module_name, _, func = ref.partition(":")
        if not module_name or not func:
            raise ConfigError(f"Got {option('target', 'python:' + ref)}: expected "
                              "python:package.module:function")
        if os.getcwd() not in sys.path:
            sys.path.insert(0, os.getcwd())
        try:
            self._fn = getattr(importlib.import_module(module_name), func)
        except (ImportError, AttributeError) as e:
            raise ConfigError(f"Got {option('target', 'python:' + ref)}: cannot import it "
                              f"({e}).") from e
        #: Whether ``assay run --target`` offers it the row's tools (``fn(messages, tools)``).
        self.takes_tools = takes_tools(self._fn)

    async def answer(self, question: str, passages: list[str], lang: str) -> str:
        return reply_or_failure(await self._call(question, passages), self.id)

    async def reply(self, messages: Messages) -> str:
        """The function's reply to ``messages``; an agent (``fn(messages, tools)``) is called
        with no tools, and the text of its last assistant message is the reply. A reply that
        is not text is a JudgeError (see :func:`reply_or_failure`)."""
        if not self.takes_tools:
            return reply_or_failure(await self._call(messages), self.id)
        result = await self._call(messages, None)
        return (reply_text(result) if isinstance(result, (dict, list))
                else reply_or_failure(result, self.id))

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
        deadline; a plain function in a daemon thread. An app that ends the call with a
        ``BaseException`` (``sys.exit()``; Ctrl-C and cancellation excepted) failed it: a
        JudgeError says so (caught here, before it could end the event loop)."""
        async def call() -> Any:
            try:
                if inspect.iscoroutinefunction(self._fn):
                    result = await self._fn(*args)
                else:
                    result = await in_daemon_thread(self._fn, *args)
                return unwrap_usage(await result if inspect.isawaitable(result) else result)
            except (KeyboardInterrupt, asyncio.CancelledError, GeneratorExit):
                raise
            except Exception:
                raise
            except BaseException as e:  # noqa: BLE001 - sys.exit() in the app: its failure
                raise _ended(e, self.id) from None

        return await within(self.timeout, call())

    async def aclose(self) -> None:
        """Nothing to close: the function holds no connection of ours."""


register_target("python", PythonTarget, specs=("python:package.module:function",))
