"""Making a target from its spec, and closing it: whoever makes a target owns its
connections and closes them once, at the end.

Example:
    >>> make_target("python:examples.apps:echo_first_passage").id
    'python:examples.apps:echo_first_passage'
"""

from __future__ import annotations

from ..calls import DEFAULT_TIMEOUT, check_timeout
from ..errors import ConfigError, option
from ._http import HttpTarget
from ._kinds import TARGET_SPECS
from ._local import LocalTarget
from ._openai import OpenAITarget
from ._python import PythonTarget

__all__ = ["close_target", "make_target"]


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
