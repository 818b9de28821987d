"""Turn a ``--judge`` spec into a judge backend.

Example:
    >>> make_judge("fake").id
    'fake'
"""

from __future__ import annotations

from ..errors import ConfigError
from ._base import Judge
from ._fake import FakeJudge

__all__ = ["JUDGE_SPECS", "make_judge"]

JUDGE_SPECS = ("local", "local:/path/to/model.gguf", "openai:MODEL", "azure:DEPLOYMENT")


def check_judge_spec(spec: str | Judge) -> None:
    """Raise ConfigError unless ``spec`` names a known kind of judge (builds nothing).

    Example:
        >>> check_judge_spec("openai:gpt-4o-mini")
    """
    if not isinstance(spec, str):
        return
    kind, _, arg = spec.partition(":")
    if kind in ("local", "fake") or (kind in ("openai", "azure") and arg):
        return
    raise ConfigError(f"Got --judge {spec!r}. Must be one of: {', '.join(JUDGE_SPECS)}.")


def make_judge(spec: str | Judge, *, timeout: float = 120.0) -> Judge:
    """``local`` (the embedded model), ``local:PATH.gguf``, ``openai:MODEL``, ``azure:DEPLOYMENT``.

    A Judge instance is returned unchanged; ``fake`` is the scripted test judge.
    """
    if not isinstance(spec, str):
        return spec
    kind, _, arg = spec.partition(":")
    if kind == "local":
        from ._local import LocalJudge
        return LocalJudge(arg or None)
    if kind == "openai" and arg:
        from ._openai import OpenAIJudge
        return OpenAIJudge(arg, timeout=timeout)
    if kind == "azure" and arg:
        from ._openai import azure_judge
        return azure_judge(arg, timeout=timeout)
    if kind == "fake":
        return FakeJudge()
    raise ConfigError(f"Got --judge {spec!r}. Must be one of: {', '.join(JUDGE_SPECS)}.")
