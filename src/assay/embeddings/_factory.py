"""Turn an ``--embeddings`` spec into an embedder.

Example:
    >>> make_embedder("local").id
    'local:all-MiniLM-L6-v2-int8'
"""

from __future__ import annotations

from ..errors import ConfigError, option
from ._base import Embedder

__all__ = ["EMBEDDER_SPECS", "check_embedder_spec", "make_embedder"]

EMBEDDER_SPECS = ("local", "openai:MODEL")


def check_embedder_spec(spec: str | Embedder) -> None:
    """Raise ConfigError unless ``spec`` names a known embedder (builds nothing)."""
    if not isinstance(spec, str):
        return
    kind, _, arg = spec.partition(":")
    if spec == "local" or (kind == "openai" and arg):
        return
    raise ConfigError(f"Got {option('embeddings', spec)}. Must be one of: {', '.join(EMBEDDER_SPECS)}.")


def make_embedder(spec: str | Embedder, *, timeout: float = 120.0) -> Embedder:
    """``local`` (all-MiniLM-L6-v2 int8, offline) or ``openai:MODEL``; instances pass through."""
    check_embedder_spec(spec)
    if not isinstance(spec, str):
        return spec
    if spec == "local":
        from ._local import LocalEmbedder
        return LocalEmbedder()
    from ._openai import OpenAIEmbedder
    return OpenAIEmbedder(spec.partition(":")[2], timeout=timeout)
