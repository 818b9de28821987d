"""Turn a ``--judge`` spec into a judge backend: the table of judge kinds by prefix.

Each built-in backend registers its prefix where it is defined, with :func:`register_judge`
(``fake`` in ``_fake``, ``local`` in ``_local``, ``openai`` and ``azure`` in ``_openai``).
Other distributions add judges through the ``assay.judges`` entry-point group: the entry
point named ``PREFIX`` is a factory that gets the rest of a ``PREFIX:REST`` spec and returns
a Judge; it cannot claim a registered prefix.

Example:
    >>> make_judge("fake").id
    'fake'
    >>> list(JUDGE_KINDS.registered())
    ['fake', 'local', 'openai', 'azure']
"""

from __future__ import annotations

import inspect
from collections.abc import Mapping

from .._spec_kinds import KindFactory, SpecKinds
from ._base import Judge

__all__ = ["JUDGES_GROUP", "JUDGE_KINDS", "check_judge_spec", "judge_protocol_gaps", "make_judge",
           "register_judge"]

#: The entry-point group of judge plugins; a registered prefix cannot be claimed.
JUDGES_GROUP = "assay.judges"


def judge_protocol_gaps(judge: object) -> list[str]:
    """What ``judge`` lacks of the :class:`Judge` protocol (empty when it is a judge).

    Example:
        >>> from assay.judges import FakeJudge
        >>> judge_protocol_gaps(FakeJudge("x"))
        []
        >>> class Bare:
        ...     id = "bare"
        ...     async def complete(self, request): ...
        >>> judge_protocol_gaps(Bare())
        ['max_concurrency', 'capabilities', 'aclose()', "the keyword 'accept' of complete()"]
    """
    gaps = [] if isinstance(getattr(judge, "id", None), str) else ["a string id"]
    gaps += [name for name in ("max_concurrency", "capabilities") if not hasattr(judge, name)]
    gaps += [f"{name}()" for name in ("complete", "aclose")
             if not callable(getattr(judge, name, None))]
    complete = getattr(judge, "complete", None)
    if callable(complete):
        try:
            params: Mapping[str, inspect.Parameter] = inspect.signature(complete).parameters
        except (TypeError, ValueError):
            params = {}
        takes_kwargs = any(p.kind is p.VAR_KEYWORD for p in params.values())
        if "accept" not in params and not takes_kwargs:
            gaps.append("the keyword 'accept' of complete()")
    return gaps



#: Every judge kind by prefix: the built-ins (each registered in its backend's module) and
#: the plugins of :data:`JUDGES_GROUP`.
JUDGE_KINDS: SpecKinds[Judge] = SpecKinds("judge", option="judge", group=JUDGES_GROUP,
                                          gaps=judge_protocol_gaps, protocol="assay.judges.Judge")


def register_judge(prefix: str, factory: KindFactory[Judge], *, specs: tuple[str, ...],
                   needs_rest: bool = True) -> None:
    """Add a judge kind: ``--judge PREFIX:REST`` is made by ``factory(REST, timeout=...)``.

    ``specs`` are the forms error messages list (empty: left out of them); ``needs_rest``
    refuses a bare ``PREFIX``. A prefix already registered is a ConfigError.

    Example:
        >>> JUDGE_KINDS.registered()["openai"].specs  # registered in assay.judges._openai
        ('openai:MODEL', 'openai:MODEL@URL')
    """
    JUDGE_KINDS.register(prefix, factory, specs=specs, needs_rest=needs_rest)


def check_judge_spec(spec: str | Judge) -> None:
    """Raise ConfigError unless ``spec`` names a known kind of judge (builds nothing).

    Example:
        >>> check_judge_spec("openai:gpt-4o-mini")
    """
    if isinstance(spec, str):
        JUDGE_KINDS.check(spec)


def make_judge(spec: str | Judge, *, timeout: float = 120.0) -> Judge:
    """``local`` (the embedded model), ``local:PATH.gguf``, ``openai:MODEL``, ``azure:DEPLOYMENT``.

    ``openai:MODEL@URL`` names the endpoint too (instead of ``OPENAI_BASE_URL``), and is the
    judge's id: two endpoints serving the same model are two judges (e.g. in a panel). The URL
    starts at the first ``@http://`` or ``@https://``; its ``user:password@`` is sent as HTTP
    Basic auth and shows as ``user:***@`` in the id (see :mod:`assay.judges._endpoint`). A Judge
    instance is returned unchanged; ``fake`` is the scripted test judge, ``fake:NAME`` one
    with the id ``fake:NAME``. ``PREFIX:REST`` with a judge plugin named ``PREFIX`` calls its
    factory with ``REST``.

    Example:
        >>> make_judge("openai:gpt-4o-mini@http://127.0.0.1:8101/v1", timeout=5).id
        'openai:gpt-4o-mini@http://127.0.0.1:8101/v1'
        >>> make_judge("openai:gpt-4o-mini@https://bob:hunter2@h.example/v1").id
        'openai:gpt-4o-mini@https://bob:***@h.example/v1'
        >>> make_judge("fake:strict").id
        'fake:strict'
    """
    if not isinstance(spec, str):
        return spec
    return JUDGE_KINDS.make(spec, timeout=timeout)
