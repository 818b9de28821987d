"""Embedding metrics: similarity of sentence embeddings, no judge call.

Example:
    >>> from assay.metrics.embedding import SemanticSimilarity
    >>> SemanticSimilarity().value_range
    (0.0, 1.0)
"""

from ._semantic import SemanticSimilarity

__all__ = ["SemanticSimilarity"]
