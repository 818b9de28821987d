"""The functions behind an agent's tools (``--tools python:module:TOOLS``), and running one call.

``TOOLS`` is a module attribute: a dict of tool name -> callable, or a list of callables (each
named by its ``__name__``). A call's JSON arguments are passed as keyword arguments; a
callable may be async. What it returns becomes the ``tool`` message's content: a string as it
is, anything else as JSON. A tool that raises, arguments that are not a JSON object and a tool
that does not exist are the agent's problem, not assay's: the tool message says so
(``error: ...``) and the agent goes on. So is a tool that runs past its deadline (``timeout``
seconds: ``error: timed out after N s``): a plain function runs in a daemon thread, left
behind at its deadline, so a hung tool neither stalls the run nor keeps the process alive.

Example:
    >>> import asyncio
    >>> tools = {"add": lambda a, b: a + b}
    >>> call = {"id": "c1", "function": {"name": "add", "arguments": '{"a": 2, "b": 3}'}}
    >>> asyncio.run(run_tool_call(call, tools))
    {'role': 'tool', 'tool_call_id': 'c1', 'content': '5'}
    >>> asyncio.run(run_tool_call({"id": "c2", "function": {"name": "sub"}}, tools))["content"]
    "error: no tool named 'sub' (tools: add)"
"""

from __future__ import annotations

import importlib
import inspect
import json
import os
import sys
from collections.abc import Callable, Mapping
from typing import Any

from ..calls import in_daemon_thread, within
from ..errors import CallTimeoutError, ConfigError, option

__all__ = ["load_tools", "run_tool_call"]

Tools = Mapping[str, Callable[..., Any]]


def load_tools(spec: str) -> dict[str, Callable[..., Any]]:
    """The tool functions of ``python:package.module:ATTR`` (the current directory is
    importable), by name.

    Example:
        >>> sorted(load_tools("python:examples.agent_app:TOOLS"))
        ['calculate', 'get_weather', 'lookup_order']
        >>> load_tools("examples.agent_app:TOOLS")
        Traceback (most recent call last):
        ...
        assay.errors.ConfigError: Got tools='examples.agent_app:TOOLS': expected python:package.module:ATTR, ...
    """
    kind, _, ref = spec.partition(":")
    module_name, _, attr = ref.partition(":")
    shape = ("python:package.module:ATTR, where ATTR is a dict of tool name -> function or a "
             "list of functions")
    if kind != "python" or not module_name or not attr:
        raise ConfigError(f"Got {option('tools', spec)}: expected {shape}.")
    if os.getcwd() not in sys.path:
        sys.path.insert(0, os.getcwd())
    try:
        value = getattr(importlib.import_module(module_name), attr)
    except (ImportError, AttributeError) as e:
        raise ConfigError(f"Got {option('tools', spec)}: cannot import it ({e}).") from e
    if isinstance(value, Mapping):
        tools = dict(value)
    elif isinstance(value, (list, tuple)):
        tools = {getattr(f, "__name__", ""): f for f in value}
    else:
        raise ConfigError(f"Got {option('tools', spec)}: a {type(value).__name__}, not {shape}.")
    bad = [str(name) for name, f in tools.items()
           if not (isinstance(name, str) and name) or not callable(f)]
    if bad or not tools:
        raise ConfigError(f"Got {option('tools', spec)}: "
                          + (f"{', '.join(bad)} not a named function" if bad else "no tools")
                          + f". Expected {shape}.")
    return tools


async def run_tool_call(call: Mapping[str, Any], tools: Tools, *,
                        timeout: float | None = None) -> dict[str, Any]:
    """Run one OpenAI-style tool call within ``timeout`` seconds (``None``: no deadline); the
    ``tool`` message that answers it."""
    function = call.get("function") or {}
    name, raw = function.get("name"), function.get("arguments", "{}")
    try:
        args = json.loads(raw) if isinstance(raw, str) else raw
    except ValueError as e:
        args, content = None, f"error: arguments are not valid JSON ({e})"
    else:
        content = "error: arguments are not a JSON object"
    if not isinstance(name, str) or name not in tools:
        content = f"error: no tool named {name!r} (tools: {', '.join(sorted(tools))})"
    elif isinstance(args, dict):
        content = await _call(tools[name], args, timeout)
    return {"role": "tool", "tool_call_id": call.get("id"), "content": content}


async def _call(fn: Callable[..., Any], args: dict[str, Any], timeout: float | None) -> str:
    async def call() -> Any:
        if inspect.iscoroutinefunction(fn):
            result = await fn(**args)
        else:
            result = await in_daemon_thread(fn, **args)
        return await result if inspect.isawaitable(result) else result

    try:
        result = await within(timeout, call())
    except CallTimeoutError as e:
        return f"error: {e}"
    except Exception as e:  # noqa: BLE001 - the tool's failure is the agent's to handle
        return f"error: {type(e).__name__}: {e}"
    return result if isinstance(result, str) else json.dumps(result, ensure_ascii=False,
                                                             default=str)
