"""Making a target from its spec, and closing it: whoever makes a target owns its
connections and closes them once, at the end.

Example:
    >>> make_target("python:examples.apps:echo_first_passage").id
    'python:examples.apps:echo_first_passage'
"""

from __future__ import annotations

from .._spec_kinds import KindFactory, SpecKinds
from ..calls import DEFAULT_TIMEOUT, check_timeout
from ._kinds import AppTarget, target_protocol_gaps

__all__ = ["TARGETS_GROUP", "TARGET_KINDS", "close_target", "make_target", "register_target"]

#: The entry-point group of target plugins; a registered prefix cannot be claimed.
TARGETS_GROUP = "assay.targets"
#: Every target kind by prefix: the built-ins (each registered in its module: ``python`` in
#: ``_python``, ``openai`` in ``_openai``, ``http`` and ``https`` in ``_http``, ``local`` in
#: ``_local``) and the plugins of :data:`TARGETS_GROUP`.
TARGET_KINDS: SpecKinds[AppTarget] = SpecKinds(
    "target", option="target", group=TARGETS_GROUP, gaps=target_protocol_gaps,
    protocol="assay.targets.Target and ChatTarget")


def register_target(prefix: str, factory: KindFactory[AppTarget], *, specs: tuple[str, ...],
                    needs_rest: bool = True) -> None:
    """Add a target kind: ``--target PREFIX:REST`` is made by ``factory(REST, timeout=...)``.

    ``specs`` are the forms error messages list (empty: left out of them); ``needs_rest``
    refuses a bare ``PREFIX``. A prefix already registered is a ConfigError.

    Example:
        >>> TARGET_KINDS.registered()["python"].specs  # registered in assay.targets._python
        ('python:package.module:function',)
    """
    TARGET_KINDS.register(prefix, factory, specs=specs, needs_rest=needs_rest)


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


def make_target(spec: str, *, timeout: float = DEFAULT_TIMEOUT) -> AppTarget:
    """A target from ``python:...``, ``openai:MODEL``, ``http:URL`` or ``local`` (or a kind
    registered by code or a plugin); each is both a :class:`Target` and a :class:`ChatTarget`.
    ``timeout``: seconds one call may take in all (a positive finite number)."""
    return TARGET_KINDS.make(spec, timeout=check_timeout(timeout))
