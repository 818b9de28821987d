"""Lexical metrics against the ground truth: token F1, exact match, BLEU, ROUGE-L.

Example:
    >>> from assay.metrics.lexical import token_f1
    >>> token_f1("a red tent", "the red tent")
    1.0
"""

from ._overlap import ExactMatch, F1Score, token_f1
from ._sacre import BleuScore, RougeL

__all__ = ["BleuScore", "ExactMatch", "F1Score", "RougeL", "token_f1"]
