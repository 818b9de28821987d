"""Sentence embeddings: the protocol, the offline MiniLM embedder, OpenAI-compatible ones.

Example:
    >>> from assay.embeddings import cosine
    >>> cosine([1.0, 0.0], [0.0, 1.0])
    0.0
"""

from ._base import Embedder, cosine
from ._cache import EmbeddingCache
from ._factory import EMBEDDER_SPECS, check_embedder_spec, make_embedder
from ._local import LocalEmbedder, local_embedder_missing
from ._openai import OpenAIEmbedder

__all__ = [
    "EMBEDDER_SPECS",
    "Embedder",
    "EmbeddingCache",
    "LocalEmbedder",
    "OpenAIEmbedder",
    "check_embedder_spec",
    "cosine",
    "local_embedder_missing",
    "make_embedder",
]
