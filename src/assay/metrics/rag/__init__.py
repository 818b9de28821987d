"""RAG metrics: claim-level groundedness, faithfulness, context precision / recall, answer
correctness, all on one shared statement decomposition per text.

Example:
    >>> from assay.metrics.rag import average_precision
    >>> average_precision([False, True])
    0.5
"""

from ._correctness import AnswerCorrectness
from ._metrics import (
                       ContextPrecision,
                       ContextRecall,
                       Faithfulness,
                       GroundednessClaims,
                       average_precision,
)
from ._retrieval import RetrievalScore, retrieval_value
from ._statements import decompose, verify

__all__ = ["AnswerCorrectness", "ContextPrecision", "ContextRecall", "Faithfulness",
           "GroundednessClaims", "RetrievalScore", "average_precision", "decompose",
           "retrieval_value", "verify"]
