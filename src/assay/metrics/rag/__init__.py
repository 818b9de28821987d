"""RAG metrics: claim-level groundedness, faithfulness, context precision / recall, answer
correctness, all on one shared statement decomposition per text.

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
from ._retrieval import RetrievalScore, retrieval_value
from ._statements import decompose, verify

__all__ = ["DIAGNOSIS_METRICS", "RAG_FAMILY", "STAGES", "AnswerCorrectness", "ContextPrecision", "ContextRecall", "Faithfulness",
           "GroundednessClaims", "RagFamily", "RetrievalScore", "average_precision",
           "count_diagnoses", "decompose", "diagnose",
           "retrieval_value", "verify"]
