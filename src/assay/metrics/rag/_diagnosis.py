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

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from .._base import Metric
from .._family import BaseFamily, RowNote, register_family

__all__ = ["DIAGNOSIS_METRICS", "RAG_FAMILY", "STAGES", "RagFamily", "count_diagnoses", "diagnose"]

RETRIEVAL = ("context_recall", "context_precision", "retrieval_score")
GENERATION = ("faithfulness",)
DIAGNOSIS_METRICS = frozenset(RETRIEVAL + GENERATION + ("answer_correctness",))
#: The stages a row's diagnosis names, then ``undiagnosed`` (no stage metric scored).
STAGES = ("retrieval", "generation", "both", "none", "undiagnosed")


def diagnose(record: Mapping[str, Any], threshold: float = 0.5) -> dict[str, Any] | None:
    """The weakest stage of one result record, or ``None`` when no stage metric was scored."""
    nums = {k: record[k]["value"] for k in ("faithfulness", *RETRIEVAL, "answer_correctness")
            if isinstance(record.get(k), Mapping) and record[k].get("value") is not None}
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


def count_diagnoses(records: Iterable[Mapping[str, Any]]) -> dict[str, int]:
    """Rows per stage (``undiagnosed``: rows where no stage metric was scored).

    Example:
        >>> count_diagnoses([{"diagnosis": {"stage": "both"}}, {"diagnosis": None}])["both"]
        1
    """
    tally = _DiagnosisTally()
    for rec in records:
        tally.add(rec)
    return dict(tally.counts)


class _DiagnosisTally:
    """Rows per diagnosed stage."""

    def __init__(self) -> None:
        self.counts = dict.fromkeys(STAGES, 0)

    def add(self, record: Mapping[str, Any]) -> None:
        d = record.get("diagnosis")
        self.counts[d["stage"] if isinstance(d, Mapping) else "undiagnosed"] += 1

    def metric_sections(self, options: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
        return {}

    def summary_section(self, options: Mapping[str, Any]) -> dict[str, Any]:
        return {"diagnosis": dict(self.counts)}


class RagFamily(BaseFamily):
    """The RAG stage metrics: each row's weakest stage (``record["diagnosis"]``) and the rows
    per stage (``summary["diagnosis"]``).

    Example:
        >>> RAG_FAMILY.row_details({"faithfulness": {"value": 0.2}})["diagnosis"]["stage"]
        'generation'
        >>> RAG_FAMILY.notes({"diagnosis": {"retrieval": 2, "none": 1}})
        {'Diagnosis': 'retrieval 2, none 1 (weakest RAG stage per row)'}
        >>> RAG_FAMILY.row_notes({"diagnosis": {"stage": "both", "threshold": 0.5}})
        {'diagnosis': RowNote(text='both', values={'threshold': 0.5})}
    """

    name = "rag"

    def covers(self, metric: Metric) -> bool:
        """Whether ``metric`` is one of the stage metrics (:data:`DIAGNOSIS_METRICS`)."""
        return metric.name in DIAGNOSIS_METRICS

    def row_details(self, record: Mapping[str, Any]) -> dict[str, Any]:
        """``{"diagnosis": <weakest stage, or None>}``."""
        return {"diagnosis": diagnose(record)}

    def tally(self, metrics: Sequence[Metric]) -> _DiagnosisTally:
        """A count of rows per diagnosed stage."""
        return _DiagnosisTally()

    def notes(self, summary: Mapping[str, Any]) -> dict[str, str]:
        """The rows per stage, when the run diagnosed them."""
        counts = summary.get("diagnosis")
        if not isinstance(counts, Mapping):
            return {}
        text = ", ".join(f"{k} {v}" for k, v in counts.items())
        return {"Diagnosis": f"{text} (weakest RAG stage per row)"}

    def row_notes(self, record: Mapping[str, Any]) -> dict[str, RowNote]:
        """The row's weakest stage and the numbers behind it, when it was diagnosed."""
        d = record.get("diagnosis")
        if not isinstance(d, Mapping):
            return {}
        return {"diagnosis": RowNote(str(d.get("stage")),
                                     {k: v for k, v in d.items() if k != "stage"})}


RAG_FAMILY = register_family(RagFamily())
