"""Turn a ``--judge`` spec into a judge backend.

Other distributions add judges through the ``assay.judges`` entry-point group: the entry point
named ``PREFIX`` is a factory that gets the rest of a ``PREFIX:REST`` spec and returns a Judge.

Example:
    >>> make_judge("fake").id
    'fake'
"""

from __future__ import annotations

import inspect
from collections.abc import Mapping

from .._entry_points import PLUGIN_FAILURES, Plugin, failure_text, scan_plugins
from .._secrets import mask_secrets
from ..errors import AssayError, ConfigError, option
from ._base import Judge
from ._endpoint import public_url, split_model_url
from ._fake import FakeJudge

__all__ = ["JUDGES_GROUP", "JUDGE_SPECS", "check_judge_spec", "judge_protocol_gaps", "make_judge"]

JUDGE_SPECS = ("local", "local:/path/to/model.gguf", "openai:MODEL", "openai:MODEL@URL",
               "azure:DEPLOYMENT")
#: The entry-point group of judge plugins; the built-in prefixes below cannot be claimed.
JUDGES_GROUP = "assay.judges"
_BUILTIN_PREFIXES = ("local", "openai", "azure", "fake")


def _judge_plugins() -> tuple[dict[str, Plugin], dict[str, tuple[str, str]]]:
    """The judge plugins by prefix (nothing imported), and the refused prefixes: one claiming
    a built-in prefix, or two claiming the same one."""
    return scan_plugins(JUDGES_GROUP, what="judge",
                        taken=dict.fromkeys(_BUILTIN_PREFIXES, "built-in"))


def _plugin_for(kind: str) -> Plugin | None:
    """The judge plugin for a spec's prefix, None if there is none; a ConfigError naming both
    claimants when the prefix is refused (a clash)."""
    plugins, refused = _judge_plugins()
    if kind in refused:
        raise ConfigError(refused[kind][1])
    return plugins.get(kind)


def _unknown_spec(spec: str) -> ConfigError:
    specs = JUDGE_SPECS + tuple(f"{name}:..." for name in sorted(_judge_plugins()[0]))
    return ConfigError(f"Got {option('judge', mask_secrets(spec))}. Must be one of: "
                       f"{', '.join(specs)}.")


def _plugin_judge(plugin: Plugin, arg: str) -> Judge:
    """What the plugin's factory builds for the rest of the spec, checked to be a judge."""
    factory = plugin.load()
    if not callable(factory):
        raise plugin.error(f"gives a {type(factory).__name__}, not a judge factory")
    try:
        judge = factory(arg)
    except AssayError:
        raise
    except PLUGIN_FAILURES as e:  # the plugin's own code failed (or called sys.exit)
        raise plugin.error(f"failed to build a judge for {arg!r} ({failure_text(e)})"
                           ) from None
    missing = judge_protocol_gaps(judge)
    if missing:
        raise plugin.error(f"gives a {type(judge).__name__}, not a judge: it lacks "
                           f"{', '.join(missing)} (see assay.judges.Judge)")
    return judge


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


def check_judge_spec(spec: str | Judge) -> None:
    """Raise ConfigError unless ``spec`` names a known kind of judge (builds nothing).

    Example:
        >>> check_judge_spec("openai:gpt-4o-mini")
    """
    if not isinstance(spec, str):
        return
    kind, _, arg = spec.partition(":")
    if _plugin_for(kind) is not None:
        return
    if kind in ("local", "fake") or (kind in ("openai", "azure") and arg):
        return
    raise _unknown_spec(spec)


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
    kind, _, arg = spec.partition(":")
    if (plugin := _plugin_for(kind)) is not None:
        return _plugin_judge(plugin, arg)
    if kind == "local":
        from ._local import LocalJudge
        return LocalJudge(arg or None)
    if kind == "openai" and arg:
        from ._openai import OpenAIJudge
        model, url = split_model_url(arg, option=option("judge", "openai:MODEL@URL"))
        if url is None:
            return OpenAIJudge(arg, timeout=timeout)
        judge = OpenAIJudge(model, base_url=url, timeout=timeout)
        # its own results, apart from other endpoints', credentials masked
        judge.id = f"openai:{model}@{public_url(url)}"
        return judge
    if kind == "azure" and arg:
        from ._openai import azure_judge
        return azure_judge(arg, timeout=timeout)
    if kind == "fake":
        return FakeJudge(id=spec) if arg else FakeJudge()
    raise _unknown_spec(spec)
