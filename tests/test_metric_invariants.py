"""Checks every registered metric must pass (in the spirit of scikit-learn's check_estimator)."""

from __future__ import annotations

import asyncio
import json
import re

import pytest

from assay.data import Row, rows_from_records
from assay.judges import FakeJudge, JudgeRequest
from assay.metrics import AUTO_AGENT_METRICS, REGISTRY, Metric, MetricResult, ScoreContext
from assay.metrics.conversation import CONVERSATION_JUDGED
from assay.metrics.safety import CATEGORIES, SeverityMetric

#: The fields a metric may require: QA fields, and (agent metrics) a conversation's tool fields.
EVALUABLE = {"question", "context", "answer", "ground_truth", "messages", "tools",
             "reference_tool_calls"}
ALL_METRICS = sorted(REGISTRY)
AGENT = sorted(AUTO_AGENT_METRICS)
#: The judged conversation metrics: they read a whole conversation (and its scenario's fields).
CONVERSATION = sorted(m.name for m in CONVERSATION_JUDGED)
LEXICAL = sorted(name for name, m in REGISTRY.items()
                 if not m.uses_judge and not getattr(m, "uses_embedder", False)
                 and name not in AGENT)
JUDGED = sorted(name for name, m in REGISTRY.items() if m.uses_judge)

FULL_ROW = Row(id="full", line=1, question="How heavy is the tent?",
               context="It weighs 1.3 kg.\n\nIt is red.", contexts=["It weighs 1.3 kg.", "It is red."],
               answer="The tent weighs 1.3 kg.", ground_truth="1.3 kg")
#: A conversation with a tool call, the tools and the reference calls (for the agent metrics).
AGENT_ROW = rows_from_records([{"messages": [
    {"role": "user", "content": "Weather in Oslo?"},
    {"role": "assistant", "content": None, "tool_calls": [
        {"id": "c1", "function": {"name": "weather", "arguments": '{"city": "Oslo"}'}}]},
    {"role": "tool", "tool_call_id": "c1", "content": "4 C"},
    {"role": "assistant", "content": "It is 4 C in Oslo."}],
    "tools": [{"type": "function", "function": {"name": "weather", "parameters": {
        "type": "object", "properties": {"city": {"type": "string"}}}}}],
    "reference_tool_calls": [{"name": "weather", "arguments": {"city": "Oslo"}}]}])[0]

#: A simulated conversation (``assay simulate --scenarios``): a system message, two exchanges,
#: the scenario's goal and expected outcome.
CONVERSATION_ROW = rows_from_records([{
    "id": "s1", "goal": "Move booking 4417 to Friday.", "persona": "busy traveller",
    "facts": ["booking 4417"], "expected_outcome": "Booking 4417 is moved to Friday.",
    "max_turns": 6, "lang": "en", "stop_reason": "goal_met", "messages": [
        {"role": "system", "content": "You are a hotel booking assistant."},
        {"role": "user", "content": "Please move booking 4417 to Friday."},
        {"role": "assistant", "content": "Which hotel is it for?"},
        {"role": "user", "content": "The Lyon one."},
        {"role": "assistant", "content": "Done: booking 4417 is on Friday."}]}])[0]

#: A question its documents cannot answer (``assay generate``'s ``unanswerable`` rows).
UNANSWERABLE_ROW = FULL_ROW.model_copy(update={"id": "unanswerable",
                                               "extra": {"answerable": False}})
#: The metrics of rows marked ``answerable: false``.
UNANSWERABLE_METRICS = {"negative_rejection"}
#: The metrics that read the answer (or the retrieved context) against the ground truth or
#: the context, and relevance (how well the answer answers): on an unanswerable row the right
#: answer is a decline, so they do not apply. (Coherence, fluency, retrieval_score and the
#: safety metrics still do.)
COMPARE_WITH_REFERENCE = {
    "answer_correctness", "relevance", "bleu_score", "context_precision", "context_recall", "exact_match",
    "f1_score", "faithfulness", "groundedness", "groundedness_claims", "rouge_l",
    "semantic_similarity", "similarity"}


def _row_for(name: str) -> Row:
    """A row every required field of metric ``name`` is given on, that it applies to."""
    if name in AGENT:
        return AGENT_ROW
    if name in CONVERSATION:
        return CONVERSATION_ROW
    return UNANSWERABLE_ROW if name in UNANSWERABLE_METRICS else FULL_ROW


# (answer, ground_truth): identical, partial, disjoint, punctuation-only or empty answer, CJK,
# mixed, Cyrillic, accented, answer empty after normalisation, long and repetitive.
LEXICAL_CASES = [
    ("The tent weighs 1.3 kg.", "The tent weighs 1.3 kg."),
    ("The tent weighs 1.3 kg", "1.3 kg"),
    ("red green blue", "one two three"),
    ("!!!", "tent"),
    ("", "tent"),
    ("Le café est fermé", "Le café est ouvert"),
    ("帐篷很轻", "这个帐篷非常轻"),
    ("Tent 帐篷 1.3kg", "帐篷 weighs 1.3kg"),
    ("привет мир", "привет друг"),
    ("the", "tent"),
    ("go " * 50, "go"),
]


def test_registry_is_not_empty() -> None:
    assert LEXICAL and JUDGED
    assert {"f1_score", "exact_match", "bleu_score", "rouge_l"} <= set(LEXICAL)


@pytest.mark.parametrize("name", ALL_METRICS)
def test_metric_declaration(name: str) -> None:
    metric = REGISTRY[name]
    assert isinstance(metric, Metric)
    assert metric.name == name
    assert name.isidentifier()
    assert isinstance(metric.version, str) and metric.version.strip()
    low, high = metric.value_range
    assert isinstance(low, float) and isinstance(high, float)
    assert low < high
    assert isinstance(metric.higher_is_better, bool)
    assert isinstance(metric.uses_judge, bool)
    assert isinstance(metric.required, frozenset) and metric.required
    assert metric.required <= EVALUABLE
    assert not (metric.needs_citations and not metric.conversation)


@pytest.mark.parametrize("name", ALL_METRICS)
def test_applies_follows_required_fields(name: str) -> None:
    metric = REGISTRY[name]
    row = _row_for(name)
    assert metric.applies(row) is None
    for missing in metric.required:
        partial = row.model_copy(update={missing: None})
        why = metric.applies(partial)
        assert why is not None and missing in why


@pytest.mark.parametrize("name", ALL_METRICS)
def test_a_metric_that_compares_the_answer_with_a_reference_skips_unanswerable_rows(
        name: str) -> None:
    metric = REGISTRY[name]
    if name in AGENT or name in CONVERSATION:  # conversations: no answer to compare
        return
    why = metric.applies(UNANSWERABLE_ROW)
    if name in COMPARE_WITH_REFERENCE:
        assert why is not None and "answerable: false" in why, name
        assert metric.applies(FULL_ROW) is None
    elif name in UNANSWERABLE_METRICS:
        assert why is None
        assert "answerable" in (metric.applies(FULL_ROW) or "")
    else:
        assert why is None, name


@pytest.mark.parametrize("name", ALL_METRICS)
def test_aggregate_counts_unscored(name: str) -> None:
    metric = REGISTRY[name]
    low, high = metric.value_range
    agg = metric.aggregate([MetricResult(value=low), MetricResult(value=high),
                            MetricResult.unscored("no reason needed here")])
    assert agg["scored"] == 2 and agg["unscored"] == 1
    assert agg["mean"] == pytest.approx((low + high) / 2)


@pytest.mark.parametrize("answer, truth", LEXICAL_CASES)
@pytest.mark.parametrize("name", LEXICAL)
def test_lexical_values_are_in_range(name: str, answer: str, truth: str) -> None:
    metric = REGISTRY[name]
    low, high = metric.value_range
    row = Row(id="1", line=1, answer=answer, ground_truth=truth)
    result = asyncio.run(metric.score(row, ScoreContext()))
    assert result.error is None
    assert result.value is not None and low <= result.value <= high


@pytest.mark.parametrize("name", LEXICAL)
def test_lexical_identical_is_best_and_disjoint_is_worst(name: str) -> None:
    metric = REGISTRY[name]
    low, high = metric.value_range
    assert metric.higher_is_better

    def value(answer: str, truth: str) -> float | None:
        row = Row(id="1", line=1, answer=answer, ground_truth=truth)
        return asyncio.run(metric.score(row, ScoreContext())).value

    assert value("The tent weighs 1.3 kg.", "The tent weighs 1.3 kg.") == high
    assert value("red green blue", "one two three") == pytest.approx(low, abs=1e-3)


#: Ground truths with no tokens after normalisation: blank, punctuation, articles only.
NO_TOKENS = ["", "   ", ".", "the", "A!", "« — »", "。"]


@pytest.mark.parametrize("truth", NO_TOKENS)
@pytest.mark.parametrize("name", LEXICAL)
def test_lexical_reference_without_tokens_is_unscored(name: str, truth: str) -> None:
    metric = REGISTRY[name]
    for answer in (".", "the", "", "Paris"):  # "." against "the" scored 1.0 in f1 / EM
        row = Row(id="1", line=1, answer=answer, ground_truth=truth)
        assert metric.applies(row) is None  # given, but nothing to compare against
        result = asyncio.run(metric.score(row, ScoreContext()))
        assert result.value is None
        assert result.error == ("ground truth has no tokens after normalisation (blank, "
                                "punctuation or articles only)")
        assert result.details["ground_truth"] == truth


@pytest.mark.parametrize("answer", ["", "   ", "\n\t"])
@pytest.mark.parametrize("name", LEXICAL)
def test_lexical_empty_answer_is_an_answer_scoring_the_bottom(name: str, answer: str) -> None:
    metric = REGISTRY[name]
    row = Row(id="1", line=1, answer=answer, ground_truth="The tent weighs 1.3 kg.")
    assert metric.applies(row) is None
    result = asyncio.run(metric.score(row, ScoreContext()))
    assert result.error is None and result.value == metric.value_range[0]


@pytest.mark.parametrize("name", LEXICAL)
def test_lexical_missing_field_does_not_apply(name: str) -> None:
    metric = REGISTRY[name]
    assert metric.applies(Row(id="1", line=1, ground_truth="Paris")) == "row has no answer"
    assert metric.applies(Row(id="1", line=1, answer="Paris")) == "row has no ground_truth"


#: The 0-7 severity the scripted judge gives for each ``rating`` (severity: lower is better, so
#: the best answer, 5, is no harm at all and the worst, 1, the top of the scale).
SEVERITY_OF = {1: 7, 3: 3, 5: 0}
SEVERITY = sorted(name for name, m in REGISTRY.items() if isinstance(m, SeverityMetric))


def _scripted(rating: int):
    """A fake judge answer for every kind of request a judge metric makes.

    ``rating`` 5 is the best answer of each kind, 1 the worst, 3 in between: a rating of
    ``rating``; for lists (verdicts, chunk usefulness, intent support), every item positive
    (5), none (1), or only the even-numbered ones (3). Decompositions give two statements and
    intent lists two intents; supported intents cite the first document. Severities (one
    category, or all four combined) are ``SEVERITY_OF[rating]``; the Yes/No refusal verdict is
    Yes (refused) for the worst rating, 1, else No.
    """

    def positive(i: int) -> bool:
        return rating == 5 or (rating == 3 and i % 2 == 0)

    def script(req: JudgeRequest) -> str:
        user = req.messages[-1]["content"]
        if req.schema_name == "rating":
            return json.dumps({"score": rating, "reason": "scripted"})
        if req.schema_name == "statements":
            return json.dumps({"statements": ["s1", "s2"]})
        if req.schema_name == "verdicts":
            statements = user.split("<statements>", 1)[1]
            n = len(re.findall(r"^\d+\. ", statements, re.MULTILINE))
            return json.dumps({"verdicts": [
                {"verdict": "supported" if positive(i) else "not_verifiable", "reason": "r"}
                for i in range(1, n + 1)]})
        if req.schema_name == "usefulness":
            n = len(re.findall(r"^\[\d+\] ", user, re.MULTILINE))
            return json.dumps({"verdicts": [{"useful": positive(i), "reason": "r"}
                                            for i in range(1, n + 1)]})
        if req.schema_name == "intents":
            return json.dumps({"intents": ["i1", "i2"]})
        if req.schema_name == "intent_support":
            intents = user.split("<intents>", 1)[1]
            n = len(re.findall(r"^\d+\. ", intents, re.MULTILINE))
            return json.dumps({"verdicts": [
                {"supported": positive(i), "document_ids": ["1"] if positive(i) else [],
                 "reason": "r"} for i in range(1, n + 1)]})
        if req.schema_name == "severity":
            return json.dumps({"severity": SEVERITY_OF[rating], "reason": "scripted"})
        if req.schema_name == "safety":
            return json.dumps({c: {"severity": SEVERITY_OF[rating], "reason": "scripted"}
                               for c in CATEGORIES})
        if req.schema_name == "verdict":
            return "Yes. scripted" if rating == 1 else "No. scripted"
        raise AssertionError(f"unexpected request kind {req.schema_name!r}")

    return script


@pytest.mark.parametrize("rating", [1, 3, 5])
@pytest.mark.parametrize("name", JUDGED)
def test_judge_values_are_in_range(name: str, rating: int) -> None:
    metric = REGISTRY[name]
    low, high = metric.value_range
    judge = FakeJudge(_scripted(rating))
    row = _row_for(name)
    result = asyncio.run(metric.score(row, ScoreContext(judge=judge)))
    assert result.error is None, result.error
    assert result.value is not None and low <= result.value <= high
    if isinstance(metric, SeverityMetric):  # combined mode (the default): one shared request
        assert result.value == SEVERITY_OF[rating]
        assert [r.schema_name for r in judge.requests] == ["safety"]
    elif name == "refusal":  # one Yes/No verdict: 1.0 when the app refused
        assert result.value == (1.0 if rating == 1 else 0.0)
        assert [r.schema_name for r in judge.requests] == ["verdict"]
    elif name == "negative_rejection":  # Yes: the app answered (0.0); No: it declined (1.0)
        assert result.value == (0.0 if rating == 1 else 1.0)
        assert [r.schema_name for r in judge.requests] == ["verdict"]
    elif name == "turn_relevance":  # one Yes/No verdict per assistant turn: the share of Yes
        assert result.value == (1.0 if rating == 1 else 0.0)
        assert [r.schema_name for r in judge.requests] == ["verdict", "verdict"]
    elif REGISTRY[name].prompt_names == (name,):  # a rubric metric: one rating request
        assert result.value == float(rating)
        assert len(judge.requests) == 1
    else:  # worst answers give the bottom of the range, best the top, mixed strictly between
        expected = {1: low, 5: high}.get(rating)
        if expected is None:
            assert low < result.value < high
        else:
            assert result.value == expected
        assert {r.schema_name for r in judge.requests} <= {"statements", "verdicts", "usefulness",
                                                            "intents", "intent_support"}
        # every answer was valid, so nothing was asked twice
        assert len({r.canonical() for r in judge.requests}) == len(judge.requests)


@pytest.mark.parametrize("rating", [1, 3, 5])
@pytest.mark.parametrize("name", SEVERITY)
def test_severity_separate_mode_sends_one_request_of_its_own(name: str, rating: int) -> None:
    judge = FakeJudge(_scripted(rating))
    ctx = ScoreContext(judge=judge, safety_mode="separate")
    result = asyncio.run(REGISTRY[name].score(FULL_ROW, ctx))
    assert result.error is None, result.error
    assert result.value == SEVERITY_OF[rating]
    assert [r.schema_name for r in judge.requests] == ["severity"]
