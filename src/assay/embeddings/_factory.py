"""Turn an ``--embeddings`` spec into an embedder.

Example:
    >>> make_embedder("local").id
    'local:all-MiniLM-L6-v2-int8'
"""

from __future__ import annotations

from .._secrets import mask_secrets
from ..errors import ConfigError, option
from ._base import Embedder

__all__ = ["EMBEDDER_SPECS", "check_embedder_spec", "make_embedder"]

EMBEDDER_SPECS = ("local", "openai:MODEL", "openai:MODEL@URL")


def check_embedder_spec(spec: str | Embedder) -> None:
    """Raise ConfigError unless ``spec`` names a known embedder (builds nothing)."""
    if not isinstance(spec, str):
        return
    kind, _, arg = spec.partition(":")
    if spec == "local" or (kind == "openai" and arg):
        return
    raise ConfigError(f"Got {option('embeddings', mask_secrets(spec))}. Must be one of: "
                      f"{', '.join(EMBEDDER_SPECS)}.")


def make_embedder(spec: str | Embedder, *, timeout: float = 120.0) -> Embedder:
    """``local`` (all-MiniLM-L6-v2 int8, offline), ``openai:MODEL`` or ``openai:MODEL@URL``
    (its own endpoint instead of ``OPENAI_BASE_URL``, read as ``--judge openai:MODEL@URL`` is:
    credentials in the URL go as HTTP Basic auth and show masked in the id); instances pass
    through.

    Example:
        >>> make_embedder("openai:e5@https://bob:hunter2@h.example/v1").id
        'openai:e5@https://bob:***@h.example/v1'
    """
    check_embedder_spec(spec)
    if not isinstance(spec, str):
        return spec
    if spec == "local":
        from ._local import LocalEmbedder
        return LocalEmbedder()
    from ..judges import public_url, split_model_url
    from ._openai import OpenAIEmbedder
    model, url = split_model_url(spec.partition(":")[2],
                                 option=option("embeddings", "openai:MODEL@URL"))
    embedder = OpenAIEmbedder(model, base_url=url, timeout=timeout)
    if url is not None:
        embedder.id = f"openai:{model}@{public_url(url)}"
    return embedder
