"""RAG metrics: claim-level groundedness, faithfulness, context precision / recall, answer
correctness, all on one shared statement decomposition per text; negative rejection on
questions the documents cannot answer.

Example:
    >>> from assay.metrics.rag import average_precision
    >>> average_precision([False, True])
    0.5
"""

from ._correctness import AnswerCorrectness
from ._diagnosis import (
    DIAGNOSIS_METRICS,
    RAG_FAMILY,
    STAGES,
    RagFamily,
    count_diagnoses,
    diagnose,
)
from ._metrics import (
                       ContextPrecision,
                       ContextRecall,
                       Faithfulness,
                       GroundednessClaims,
                       average_precision,
)
from ._rejection import NEGATIVE_REJECTION, REJECTION_PHRASES, NegativeRejection, is_rejection
from ._retrieval import RetrievalScore, retrieval_value
from ._statements import decompose, verify

__all__ = ["DIAGNOSIS_METRICS", "NEGATIVE_REJECTION", "RAG_FAMILY", "REJECTION_PHRASES", "STAGES",
           "AnswerCorrectness", "ContextPrecision", "ContextRecall", "Faithfulness",
           "GroundednessClaims", "NegativeRejection", "RagFamily", "RetrievalScore",
           "average_precision", "count_diagnoses", "decompose", "diagnose", "is_rejection",
           "retrieval_value", "verify"]
