"""The Embedder protocol and cosine similarity.

Example:
    >>> round(cosine([1.0, 0.0], [1.0, 1.0]), 4)
    0.7071
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Protocol, runtime_checkable

__all__ = ["Embedder", "cosine"]


def cosine(a: Sequence[float], b: Sequence[float]) -> float:
    """Cosine similarity of two vectors (0 when either is all zeros)."""
    dot = sum(x * y for x, y in zip(a, b))
    na = math.sqrt(sum(x * x for x in a))
    nb = math.sqrt(sum(y * y for y in b))
    return dot / (na * nb) if na and nb else 0.0


@runtime_checkable
class Embedder(Protocol):
    """Turns texts into vectors. ``id`` is part of every cache key; ``max_batch`` is the most
    texts one call takes. Backends raise ``RetryableJudgeError`` / ``JudgeError`` like judges."""

    id: str

    @property
    def max_batch(self) -> int: ...

    async def embed(self, texts: list[str]) -> list[list[float]]: ...

    async def aclose(self) -> None: ...
