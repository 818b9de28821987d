"""The metric planner: ``--metrics auto`` from the rows' fields, explicit lists, skip reasons."""

from __future__ import annotations

import pytest

from assay.data import Row, rows_from_records
from assay.errors import ConfigError
from assay.metrics import (
    AUTO_AGENT_METRICS,
    AUTO_CONVERSATION_METRICS,
    AUTO_METRICS,
    REGISTRY,
    Plan,
    get_metric,
    plan_metrics,
)

#: The risk and safety severity metrics: in the auto set (after f1_score), they need only an
#: answer, so every plan below ends with them (QA rows and conversations alike).
SAFETY = ["hate_unfairness", "sexual", "violence", "self_harm"]


def names(plan: Plan) -> list[str]:
    return [m.name for m in plan.metrics]


def skipped_names(plan: Plan) -> list[str]:
    return [line.split(":", 1)[0] for line in plan.skipped]


def assert_every_other_metric_has_a_reason(plan: Plan) -> None:
    """Each registered metric is either planned or skipped once, with a reason after the name."""
    assert sorted(names(plan) + skipped_names(plan)) == sorted(REGISTRY)
    for line in plan.skipped:
        name, _, why = line.partition(": ")
        assert name in REGISTRY and len(why) > 10, line


def qa(**fields: str) -> Row:
    return Row(id="1", line=1, **fields)


def conversation(citations: bool = False) -> Row:
    context = {"citations": [{"id": "d1", "content": "The tent weighs 1.3 kg."}]} if citations else None
    assistant = {"role": "assistant", "content": "1.3 kg."}
    if context:
        assistant["context"] = context
    return rows_from_records([{"messages": [{"role": "user", "content": "Weight?"}, assistant]}])[0]


# --- auto -------------------------------------------------------------------------------------


def test_auto_question_answer() -> None:
    plan = plan_metrics([qa(question="Q?", answer="A.")], "auto")
    assert names(plan) == ["coherence", "fluency", *SAFETY]
    assert_every_other_metric_has_a_reason(plan)
    lines = dict(line.split(": ", 1) for line in plan.skipped)
    assert "not in the auto set" in lines["refusal"]  # for over-refusal sets: --metrics refusal
    assert "metrics='refusal'" in lines["refusal"]  # from Python; the CLI says --metrics
    assert "no context" in lines["groundedness"]
    assert "no context" in lines["relevance"]
    assert "no ground_truth" in lines["similarity"]
    assert "no ground_truth" in lines["f1_score"]
    assert "no context" in lines["retrieval_score"]
    assert "not in the auto set" in lines["bleu_score"]
    assert "metrics='bleu_score'" in lines["bleu_score"]


def test_auto_with_context() -> None:
    plan = plan_metrics([qa(question="Q?", answer="A.", context="C.")])  # auto is the default
    assert names(plan) == ["coherence", "fluency", "groundedness", "relevance",
                           "groundedness_claims", "faithfulness", "retrieval_score", *SAFETY]
    assert_every_other_metric_has_a_reason(plan)
    lines = dict(line.split(": ", 1) for line in plan.skipped)
    assert "contexts list" in lines["context_precision"]  # plain context text has no ranks
    assert "no ground_truth" in lines["context_recall"]
    assert "no ground_truth" in lines["answer_correctness"]


def test_auto_with_context_and_ground_truth() -> None:
    plan = plan_metrics([qa(question="Q?", answer="A.", context="C.", ground_truth="T.")], "auto")
    assert names(plan) == [m for m in AUTO_METRICS
                           if m not in ("context_precision", "negative_rejection")]
    assert names(plan) == ["coherence", "fluency", "groundedness", "relevance",
                           "groundedness_claims", "faithfulness", "retrieval_score",
                           "context_recall", "similarity", "semantic_similarity",
                           "answer_correctness", "f1_score", *SAFETY]
    assert_every_other_metric_has_a_reason(plan)
    precision = [line for line in plan.skipped if line.startswith("context_precision:")]
    assert len(precision) == 1 and "contexts list" in precision[0]
    rejection = [line for line in plan.skipped if line.startswith("negative_rejection:")]
    assert rejection == [("negative_rejection: skipped, no row can be scored (row has no "
                          "answerable field: negative_rejection scores rows marked answerable: "
                          "false)")]
    agent = [line for line in plan.skipped
             if line.split(":")[0] in (*AUTO_AGENT_METRICS, *AUTO_CONVERSATION_METRICS)]
    assert len(agent) == len(AUTO_AGENT_METRICS) + len(AUTO_CONVERSATION_METRICS)
    assert all("row has no messages" in line for line in agent)  # QA rows: no conversation
    assert all("not in the auto set" in line for line in plan.skipped
               if line not in precision and line not in agent and line not in rejection)


def test_auto_with_a_contexts_list_and_ground_truth_runs_every_auto_metric() -> None:
    rows = rows_from_records([{"question": "Q?", "answer": "A.", "ground_truth": "T.",
                               "context": ["Chunk one.", "Chunk two."]}])
    assert rows[0].contexts == ["Chunk one.", "Chunk two."]
    plan = plan_metrics(rows, "auto")
    assert names(plan) == [m for m in AUTO_METRICS if m != "negative_rejection"]
    assert_every_other_metric_has_a_reason(plan)
    assert all("not in the auto set" in line for line in plan.skipped
               if line.split(":")[0] not in (*AUTO_AGENT_METRICS, *AUTO_CONVERSATION_METRICS,
                                             "negative_rejection"))


def test_auto_plans_negative_rejection_for_unanswerable_rows_and_the_rest_for_answerable() -> None:
    rows = rows_from_records([
        {"id": "a", "question": "Q?", "answer": "A.", "ground_truth": "T.", "context": "C.",
         "answerable": True},
        {"id": "u", "question": "Q?", "answer": "I don't know.", "context": "C.",
         "ground_truth": "The documents do not say.", "answerable": False}])
    plan = plan_metrics(rows, "auto")
    assert "negative_rejection" in names(plan) and "answer_correctness" in names(plan)
    only_unanswerable = plan_metrics(rows[1:], "auto")
    assert "negative_rejection" in names(only_unanswerable)
    assert not {"answer_correctness", "groundedness", "f1_score"} & set(names(only_unanswerable))
    assert any(line.startswith("answer_correctness: skipped") and "answerable: false" in line
               for line in only_unanswerable.skipped)


def test_auto_contexts_list_without_ground_truth_judges_chunks_against_the_answer() -> None:
    rows = rows_from_records([{"question": "Q?", "answer": "A.", "context": ["C1.", "C2."]}])
    assert names(plan_metrics(rows, "auto")) == ["coherence", "fluency", "groundedness",
                                                 "relevance", "groundedness_claims",
                                                 "faithfulness", "retrieval_score",
                                                 "context_precision", *SAFETY]


def test_auto_answer_and_ground_truth_only() -> None:
    plan = plan_metrics([qa(answer="A.", ground_truth="T.")], "auto")
    assert names(plan) == ["fluency", "semantic_similarity", "answer_correctness", "f1_score",
                           *SAFETY]
    assert_every_other_metric_has_a_reason(plan)


def test_auto_runs_a_metric_when_any_row_allows_it() -> None:
    rows = [qa(question="Q?", answer="A."),
            Row(id="2", line=2, question="Q?", answer="A.", context="C.")]
    assert names(plan_metrics(rows, "auto")) == ["coherence", "fluency", "groundedness",
                                                "relevance", "groundedness_claims",
                                                "faithfulness", "retrieval_score", *SAFETY]


def test_empty_context_counts_as_absent() -> None:
    plan = plan_metrics([qa(question="Q?", answer="A.", context="")], "auto")
    assert names(plan) == ["coherence", "fluency", *SAFETY]


def test_auto_conversation_without_citations() -> None:
    plan = plan_metrics([conversation()], "auto")
    assert names(plan) == ["coherence", "fluency", "relevance", *SAFETY]
    assert_every_other_metric_has_a_reason(plan)
    lines = dict(line.split(": ", 1) for line in plan.skipped)
    assert "citations" in lines["groundedness"]
    assert "citations" in lines["retrieval_score"]
    assert "QA rows only" in lines["similarity"] and "QA rows only" in lines["f1_score"]


def test_auto_conversation_with_citations() -> None:
    plan = plan_metrics([conversation(citations=True)], "auto")
    assert names(plan) == ["coherence", "fluency", "groundedness", "relevance",
                           "groundedness_claims", "faithfulness", "retrieval_score", *SAFETY]
    assert_every_other_metric_has_a_reason(plan)


def test_auto_plans_goal_completion_for_conversations_that_give_an_outcome_or_a_goal() -> None:
    plain = conversation()
    assert "goal_completion" not in names(plan_metrics([plain], "auto"))
    lines = dict(line.split(": ", 1) for line in plan_metrics([plain], "auto").skipped)
    assert "no expected_outcome or goal" in lines["goal_completion"]
    for field in ("expected_outcome", "goal"):
        given = plain.model_copy(update={"extra": {field: "The weight is given."}})
        plan = plan_metrics([given], "auto")
        assert names(plan) == ["coherence", "fluency", "relevance", *SAFETY, "goal_completion"]
        assert_every_other_metric_has_a_reason(plan)
    # the other judged conversation metrics are asked for by name
    lines = dict(line.split(": ", 1) for line in plan.skipped)
    for name in ("knowledge_retention", "role_adherence", "turn_relevance"):
        assert lines[name].startswith("not in the auto set"), name


# --- explicit lists ---------------------------------------------------------------------------


def test_explicit_comma_list_keeps_order() -> None:
    rows = [qa(question="Q?", answer="A.", ground_truth="T.")]
    plan = plan_metrics(rows, "rouge_l, bleu_score,f1_score")
    assert names(plan) == ["rouge_l", "bleu_score", "f1_score"]
    assert plan.skipped == []


def test_explicit_list_of_names_and_metrics_deduplicates() -> None:
    rows = [qa(question="Q?", answer="A.", ground_truth="T.")]
    plan = plan_metrics(rows, ["exact_match", get_metric("fluency"), "exact_match", ""])
    assert names(plan) == ["exact_match", "fluency"]


def test_explicit_metric_that_does_not_apply_is_skipped_with_reason() -> None:
    plan = plan_metrics([qa(question="Q?", answer="A.")], "fluency,groundedness")
    assert names(plan) == ["fluency"]
    assert len(plan.skipped) == 1
    assert plan.skipped[0].startswith("groundedness: skipped")
    assert "no context" in plan.skipped[0]


def test_explicit_list_none_applies() -> None:
    with pytest.raises(ConfigError) as exc:
        plan_metrics([qa(question="Q?", answer="A.")], "f1_score,relevance")
    msg = str(exc.value)
    assert "f1_score: skipped" in msg and "relevance: skipped" in msg


def test_unknown_metric_lists_the_known_ones() -> None:
    with pytest.raises(ConfigError) as exc:
        plan_metrics([qa(answer="A.")], "fluency,fluncy")
    msg = str(exc.value)
    assert "'fluncy'" in msg
    for known in REGISTRY:
        assert known in msg
    with pytest.raises(ConfigError, match="Known metrics"):
        get_metric("nope")


def test_auto_set_has_the_severity_metrics_after_f1_score_and_negative_rejection_not_refusal() -> None:
    assert list(AUTO_METRICS[AUTO_METRICS.index("negative_rejection") + 1:]) == SAFETY
    assert AUTO_METRICS.index("negative_rejection") == AUTO_METRICS.index("f1_score") + 1
    assert "refusal" not in AUTO_METRICS and "refusal" in REGISTRY


def test_severity_metrics_need_only_an_answer() -> None:
    assert names(plan_metrics([qa(answer="A.")], "auto")) == ["fluency", *SAFETY]
    with pytest.raises(ConfigError, match="refusal: skipped"):
        plan_metrics([qa(question="Q?")], "refusal")


def test_unavailable_metric_is_skipped_by_auto_and_refused_when_named() -> None:
    rows = [qa(question="Q?", answer="A.", ground_truth="T.")]
    why = {"semantic_similarity": "the local embedder needs onnxruntime"}
    plan = plan_metrics(rows, "auto", unavailable=why)
    assert "semantic_similarity" not in names(plan)
    assert "semantic_similarity: skipped, the local embedder needs onnxruntime" in plan.skipped
    with pytest.raises(ConfigError, match="semantic_similarity cannot run"):
        plan_metrics(rows, "semantic_similarity", unavailable=why)
