"""Which stage of a RAG pipeline failed a row: retrieval, generation, both or none.

Retrieval is weak when context recall, context precision or the retrieval score (its 1-5 value
read on 0-1 as (value - 1) / 4) is below the threshold; generation is weak when faithfulness
is. The numbers behind the call are kept with it.

Example:
    >>> diagnose({"faithfulness": {"value": 0.9}, "context_recall": {"value": 0.25}})
    {'stage': 'retrieval', 'threshold': 0.5, 'faithfulness': 0.9, 'context_recall': 0.25}
    >>> diagnose({"f1_score": {"value": 1.0}}) is None
    True
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

__all__ = ["DIAGNOSIS_METRICS", "count_diagnoses", "diagnose"]

RETRIEVAL = ("context_recall", "context_precision", "retrieval_score")
GENERATION = ("faithfulness",)
DIAGNOSIS_METRICS = frozenset(RETRIEVAL + GENERATION + ("answer_correctness",))


def diagnose(record: dict[str, Any], threshold: float = 0.5) -> dict[str, Any] | None:
    """The weakest stage of one result record, or ``None`` when no stage metric was scored."""
    nums = {k: record[k]["value"] for k in ("faithfulness", *RETRIEVAL, "answer_correctness")
            if isinstance(record.get(k), dict) and record[k].get("value") is not None}
    retrieval = [(nums[k] - 1) / 4 if k == "retrieval_score" else nums[k]
                 for k in RETRIEVAL if k in nums]
    generation = [nums[k] for k in GENERATION if k in nums]
    if not retrieval and not generation:
        return None
    r_weak = bool(retrieval) and min(retrieval) < threshold
    g_weak = bool(generation) and min(generation) < threshold
    stage = "both" if r_weak and g_weak else "retrieval" if r_weak else \
        "generation" if g_weak else "none"
    return {"stage": stage, "threshold": threshold, **nums}


def count_diagnoses(records: Iterable[dict[str, Any]]) -> dict[str, int]:
    """Rows per stage (``undiagnosed``: rows where no stage metric was scored)."""
    counts = {"retrieval": 0, "generation": 0, "both": 0, "none": 0, "undiagnosed": 0}
    for rec in records:
        d = rec.get("diagnosis")
        counts[d["stage"] if d else "undiagnosed"] += 1
    return counts
