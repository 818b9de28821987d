"""The per-row diagnosis of the weakest RAG stage, and the summary counts."""

from __future__ import annotations

import json

import pytest

from assay import JudgeOptions, evaluate
from assay.judges import FakeJudge, JudgeRequest
from assay.metrics.rag._diagnosis import count_diagnoses, diagnose


def rec(**values: float | None) -> dict:
    return {k: {"value": v} for k, v in values.items()}


@pytest.mark.parametrize(("values", "stage"), [
    ({"faithfulness": 0.9, "context_recall": 0.9, "context_precision": 0.8}, "none"),
    ({"faithfulness": 0.9, "context_recall": 0.2}, "retrieval"),
    ({"faithfulness": 0.9, "context_precision": 0.49}, "retrieval"),
    ({"faithfulness": 0.3, "context_recall": 0.9}, "generation"),
    ({"faithfulness": 0.3, "context_recall": 0.1}, "both"),
    ({"faithfulness": 0.9, "retrieval_score": 2.0}, "retrieval"),   # (2 - 1) / 4 = 0.25
    ({"faithfulness": 0.9, "retrieval_score": 4.0}, "none"),        # 0.75
    ({"context_recall": 0.5}, "none"),                              # at the threshold: fine
])
def test_stage(values: dict, stage: str) -> None:
    d = diagnose(rec(**values))
    assert d is not None and d["stage"] == stage
    for name, value in values.items():
        assert d[name] == value  # the numbers behind the call


def test_no_stage_metric_scored_means_no_diagnosis() -> None:
    assert diagnose(rec(answer_correctness=0.2)) is None
    assert diagnose(rec(faithfulness=None, context_recall=None)) is None


def test_counts() -> None:
    records = [{"diagnosis": {"stage": "retrieval"}}, {"diagnosis": {"stage": "retrieval"}},
               {"diagnosis": None}, {"diagnosis": {"stage": "both"}}]
    assert count_diagnoses(records) == {"retrieval": 2, "generation": 0, "both": 1, "none": 0,
                                        "undiagnosed": 1}


def test_evaluate_writes_diagnosis_and_summary_counts() -> None:
    """Row a: the context holds the answer and the ground truth (no weak stage). Row b: it
    holds neither, so the answer is unfaithful and recall is 0 (both stages)."""

    def script(req: JudgeRequest) -> str:
        user = req.messages[1]["content"]
        if req.schema_name == "statements":
            return '{"statements": ["The tent weighs 1.3 kg."]}'
        if req.schema_name == "verdicts":
            verdict = "supported" if "1.3 kg" in user.split("</source>")[0] else "not_verifiable"
            return json.dumps({"verdicts": [{"verdict": verdict, "reason": "r"}]})
        raise AssertionError(req.schema_name)

    rows = [{"id": "a", "question": "Weight?", "answer": "The tent weighs 1.3 kg.",
             "context": "The tent weighs 1.3 kg.", "ground_truth": "1.3 kg."},
            {"id": "b", "question": "Weight?", "answer": "The tent weighs 1.3 kg.",
             "context": "The tent is green.", "ground_truth": "1.3 kg."}]
    res = evaluate(rows, metrics="faithfulness,context_recall", judge=FakeJudge(script),
                   judging=JudgeOptions(cache=None))
    a, b = res.rows
    assert a["diagnosis"]["stage"] == "none"
    assert b["diagnosis"] == {"stage": "both", "threshold": 0.5, "faithfulness": 0.0,
                              "context_recall": 0.0}
    assert res.summary["diagnosis"] == {"retrieval": 0, "generation": 0, "both": 1, "none": 1,
                                        "undiagnosed": 0}
    only_lexical = evaluate(rows, metrics="f1_score", judging=JudgeOptions(cache=None))
    assert "diagnosis" not in only_lexical.rows[0] and "diagnosis" not in only_lexical.summary
