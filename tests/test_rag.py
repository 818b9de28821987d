"""RAG metrics with the scripted fake judge: arithmetic, unscored cases, the embedded judge's
one-token verification, conversations, and decompositions / verifications shared between
metrics.

The scripted judge reads each request back: which text a decomposition asks about, which
statements a verification lists against which source, which chunks a usefulness request lists.
"""

from __future__ import annotations

import asyncio
import json
import math
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from assay import JudgeOptions, ScoringOptions, evaluate
from assay.data import Row
from assay.errors import JudgeError
from assay.judges import (
    FakeJudge,
    JudgeCapabilities,
    JudgeRequest,
    JudgeResponse,
    Script,
    TokenLogprob,
)
from assay.metrics import REGISTRY, ScoreContext
from assay.metrics.rag import average_precision
from assay.metrics.rag._correctness import NO_EMBEDDER
from conftest import numbered, section, user_of

QUESTION = "How heavy is the SkyView 2 and what is its floor rated?"
CONTEXT = "SkyView 2: ultralight 2-person tent, packed weight 1.3 kg, 2,000 mm floor, green."
ANSWER = "The SkyView 2 weighs 1.3 kg, has a 2,000 mm floor, is red and sleeps two."
TRUTH = "It weighs 1.3 kg packed and its floor is rated 2,000 mm."
ANSWER_STATEMENTS = ["The SkyView 2 weighs 1.3 kg.", "The SkyView 2 has a 2,000 mm floor.",
                     "The SkyView 2 is red.", "The SkyView 2 sleeps two."]
TRUTH_STATEMENTS = ["The SkyView 2 weighs 1.3 kg packed.", "The SkyView 2 floor is rated 2,000 mm."]
ROW = {"id": "r1", "question": QUESTION, "context": CONTEXT, "answer": ANSWER,
       "ground_truth": TRUTH}


# ---------------------------------------------------------------- reading requests back




Verdicts = dict[tuple[str, str], str]


def rag_script(statements: dict[str, list[str] | str], verdicts: Verdicts | None = None, *,
               useful: list[bool] | None = None,
               rating: str = '{"score": 4, "reason": "ok"}') -> Script:
    """A fake judge's script for the RAG requests.

    ``statements`` maps a decomposed text to its statements (or to a raw answer string);
    ``verdicts`` maps (source, statement) to a verdict, ``supported`` when absent; ``useful``
    answers chunk-usefulness requests.
    """
    verdicts = verdicts or {}

    def script(req: JudgeRequest) -> str:
        user = user_of(req)
        if req.schema_name == "statements":
            answer = statements[section(user, "text") or ""]
            return answer if isinstance(answer, str) else json.dumps({"statements": answer})
        if req.schema_name == "verdicts":
            source = section(user, "source") or ""
            listed = numbered(section(user, "statements") or "")
            return json.dumps({"verdicts": [
                {"verdict": verdicts.get((source, s), "supported"), "reason": f"reason for {s}"}
                for s in listed]})
        if req.schema_name == "usefulness":
            assert useful is not None
            return json.dumps({"verdicts": [{"useful": u, "reason": f"chunk {i}"}
                                            for i, u in enumerate(useful, start=1)]})
        if req.schema_name == "rating":
            return rating
        raise AssertionError(f"unexpected request {req.schema_name!r}")

    return script


def rag_judge(statements: dict[str, list[str] | str], verdicts: Verdicts | None = None, *,
              useful: list[bool] | None = None, **kwargs: Any) -> FakeJudge:
    """A FakeJudge running :func:`rag_script` (``kwargs``: FakeJudge's, e.g. ``id``)."""
    return FakeJudge(rag_script(statements, verdicts, useful=useful), **kwargs)


def score(name: str, row: dict[str, Any], judge: FakeJudge, **ctx: Any) -> Any:
    """One metric on one row, straight through ``metric.score`` (no run, no cache)."""
    r = Row(line=1, **row)
    return asyncio.run(REGISTRY[name].score(r, ScoreContext(judge=judge, **ctx)))


def requests_of(judge: FakeJudge, schema: str) -> list[JudgeRequest]:
    return [r for r in judge.requests if r.schema_name == schema]


class ToyEmbedder:
    """Fixed vectors per text: the cosine of answer and truth is whatever the test sets."""

    max_batch = 16

    def __init__(self, vectors: dict[str, list[float]], fail: bool = False) -> None:
        self.id = "toy"
        self.vectors = vectors
        self.fail = fail
        self.calls: list[list[str]] = []

    async def embed(self, texts: list[str]) -> list[list[float]]:
        self.calls.append(list(texts))
        if self.fail:
            raise JudgeError("embedder down")
        return [self.vectors[t] for t in texts]

    async def aclose(self) -> None:
        return None


# ---------------------------------------------------------------- the arithmetic


def test_average_precision() -> None:
    assert average_precision([True, False, True]) == round((1 + 2 / 3) / 2, 4) == 0.8333
    assert average_precision([False, True]) == 0.5
    assert average_precision([True, True, False]) == 1.0
    assert average_precision([False, False]) == 0.0
    assert average_precision([]) == 0.0


def test_faithfulness_is_the_supported_share() -> None:
    judge = rag_judge({ANSWER: ANSWER_STATEMENTS},
                      {(CONTEXT, "The SkyView 2 is red."): "contradicted"})
    res = evaluate([ROW], metrics="faithfulness", judge=judge, judging=JudgeOptions(cache=None))
    f = res.rows[0]["faithfulness"]
    assert f["value"] == 0.75 and f["error"] is None
    assert f["reason"] == "3 of 4 statements supported by the context"
    assert (f["details"]["supported"], f["details"]["statements"]) == (3, 4)
    assert [v["statement"] for v in f["details"]["verdicts"]] == ANSWER_STATEMENTS
    assert [v["statement"] for v in f["details"]["ungrounded"]] == ["The SkyView 2 is red."]
    # one decomposition of the answer (with the question) and one verification of all four
    (decomposition,) = requests_of(judge, "statements")
    assert section(user_of(decomposition), "text") == ANSWER
    assert section(user_of(decomposition), "question") == QUESTION
    (verification,) = requests_of(judge, "verdicts")
    assert section(user_of(verification), "source") == CONTEXT
    assert numbered(section(user_of(verification), "statements") or "") == ANSWER_STATEMENTS
    assert len(judge.requests) == 2


def test_groundedness_claims_maps_the_share_to_1_5_and_lists_ungrounded_statements() -> None:
    judge = rag_judge({ANSWER: ANSWER_STATEMENTS},
                      {(CONTEXT, "The SkyView 2 is red."): "contradicted"})
    res = evaluate([ROW], metrics="groundedness_claims", judge=judge,
                   judging=JudgeOptions(cache=None))
    g = res.rows[0]["groundedness_claims"]
    assert g["value"] == 4.0 and g["weighted"] == 4.0  # 1 + 4 * 3/4
    assert g["details"]["ungrounded"] == [{"statement": "The SkyView 2 is red.",
                                           "verdict": "contradicted",
                                           "reason": "reason for The SkyView 2 is red."}]
    assert "'The SkyView 2 is red.' (contradicted)" in g["reason"]
    assert g["reason"].startswith("3 of 4 statements supported")
    summary = res.summary["metrics"]["groundedness_claims"]
    assert summary["mean"] == 4.0 and summary["mean_weighted"] == 4.0


@pytest.mark.parametrize("supported, value, weighted", [
    (4, 5.0, 5.0),    # all grounded: no "not grounded" part in the reason
    (2, 3.0, 3.0),
    (1, 2.0, 2.0),
    (0, 1.0, 1.0),
])
def test_groundedness_claims_scale(supported: int, value: float, weighted: float) -> None:
    bad = {(CONTEXT, s): "not_verifiable" for s in ANSWER_STATEMENTS[supported:]}
    g = score("groundedness_claims", ROW, rag_judge({ANSWER: ANSWER_STATEMENTS}, bad))
    assert (g.value, g.weighted) == (value, weighted)
    assert len(g.details["ungrounded"]) == 4 - supported
    assert ("not grounded" in g.reason) == (supported < 4)


def test_groundedness_claims_rounds_the_exact_value() -> None:
    three = ANSWER_STATEMENTS[:3]
    bad = {(CONTEXT, three[2]): "not_verifiable"}
    g = score("groundedness_claims", ROW, rag_judge({ANSWER: three}, bad))
    assert g.weighted == round(1 + 4 * 2 / 3, 4) == 3.6667
    assert g.value == 4.0


def test_context_recall_is_the_share_of_ground_truth_in_the_context() -> None:
    truth = ["Fact one.", "Fact two.", "Fact three.", "Fact four."]
    judge = rag_judge({TRUTH: truth}, {(CONTEXT, "Fact three."): "not_verifiable"})
    res = evaluate([ROW], metrics="context_recall", judge=judge, judging=JudgeOptions(cache=None))
    r = res.rows[0]["context_recall"]
    assert r["value"] == 0.75
    assert r["details"]["missing"] == ["Fact three."]
    assert "3 of 4 ground-truth statements" in r["reason"]
    (decomposition,) = requests_of(judge, "statements")  # the ground truth, not the answer
    assert section(user_of(decomposition), "text") == TRUTH
    (verification,) = requests_of(judge, "verdicts")
    assert section(user_of(verification), "source") == CONTEXT


CHUNKS = ["SkyView 2 weighs 1.3 kg.", "The TrailMaster X4 is a 4-person tent.",
          "SkyView 2 floor: 2,000 mm."]


def test_context_precision_is_the_average_precision_of_useful_chunks() -> None:
    judge = rag_judge({}, useful=[True, False, True])
    row = {**ROW, "context": CHUNKS}  # a list: contexts in retrieval order
    res = evaluate([row], metrics="context_precision", judge=judge,
                   judging=JudgeOptions(cache=None))
    p = res.rows[0]["context_precision"]
    assert p["value"] == round((1 + 2 / 3) / 2, 4)
    assert p["reason"] == "2 of 3 chunks useful; first useful at rank 1"
    assert [c["useful"] for c in p["details"]["chunks"]] == [True, False, True]
    assert [c["rank"] for c in p["details"]["chunks"]] == [1, 2, 3]
    assert p["details"]["reference"] == "ground_truth"
    (req,) = judge.requests
    user = user_of(req)
    assert section(user, "answer") == TRUTH  # chunks judged against the reference answer
    assert section(user, "question") == QUESTION
    assert section(user, "chunks") == "\n\n".join(f"[{i}] {c}" for i, c in enumerate(CHUNKS, 1))


def test_context_precision_ranks_matter_and_falls_back_to_the_answer() -> None:
    row = {k: v for k, v in ROW.items() if k != "ground_truth"} | {"contexts": CHUNKS}
    late = score("context_precision", row, rag_judge({}, useful=[False, False, True]))
    assert late.value == round(1 / 3, 4)
    assert late.reason == "1 of 3 chunks useful; first useful at rank 3"
    assert late.details["reference"] == "answer"
    judge = rag_judge({}, useful=[False, False, False])
    none = score("context_precision", row, judge)
    assert none.value == 0.0 and none.reason == "no retrieved chunk is useful"
    assert section(user_of(judge.requests[0]), "answer") == ANSWER


def test_context_precision_needs_a_contexts_list() -> None:
    judge = rag_judge({}, useful=[True, True, False])
    res = evaluate([{**ROW, "context": CHUNKS}, {**ROW, "id": "r2"}], metrics="context_precision",
                   judge=judge, judging=JudgeOptions(cache=None))
    assert res.rows[0]["context_precision"]["value"] == 1.0
    plain = res.rows[1]["context_precision"]
    assert plain["value"] is None
    assert plain["error"] == ("does not apply: row has no contexts list (retrieved chunks in "
                              "order)")
    assert len(judge.requests) == 1


def test_context_precision_with_the_wrong_number_of_verdicts_is_unscored() -> None:
    row = {**ROW, "contexts": CHUNKS}
    judge = rag_judge({}, useful=[True, False])
    p = score("context_precision", row, judge)
    assert p.value is None
    assert p.error == "answer is not 3 usefulness verdicts (asked twice)"
    assert len(judge.requests) == 2


def _correctness_judge() -> FakeJudge:
    """Answer statements checked against the truth: TP 2, FP 1 (the colour); truth statements
    checked against the answer: FN 1 (the packed weight). F = 2 / (2 + (1 + 1) / 2) = 2/3."""
    answer = ANSWER_STATEMENTS[:3]
    return rag_judge({ANSWER: answer, TRUTH: TRUTH_STATEMENTS},
                     {(TRUTH, "The SkyView 2 is red."): "not_verifiable",
                      (ANSWER, "The SkyView 2 weighs 1.3 kg packed."): "not_verifiable"})


def test_answer_correctness_is_the_statement_f_score_without_an_embedder() -> None:
    judge = _correctness_judge()
    a = score("answer_correctness", ROW, judge)
    assert a.value == round(2 / 3, 4)
    d = a.details
    assert (d["tp"], d["fp"], d["fn"], d["f_score"]) == (2, 1, 1, round(2 / 3, 4))
    assert d["false_positives"] == ["The SkyView 2 is red."]
    assert d["false_negatives"] == ["The SkyView 2 weighs 1.3 kg packed."]
    # the similarity term's absence shows: in the details and in the reason
    assert d["similarity"] is None and d["similarity_missing"] == NO_EMBEDDER
    assert a.reason.startswith("2 correct, 1 unsupported and 1 missing")
    assert "statement F-score alone" in a.reason and "openai:MODEL" in a.reason
    # both texts decomposed once; answer checked against the truth and truth against the answer
    texts = Counter(section(user_of(r), "text") for r in requests_of(judge, "statements"))
    assert texts == {ANSWER: 1, TRUTH: 1}
    sources = Counter(section(user_of(r), "source") for r in requests_of(judge, "verdicts"))
    assert sources == {TRUTH: 1, ANSWER: 1}


@pytest.mark.parametrize("truth_vector, similarity", [
    ([0.6, 0.8], 0.6),    # cosine 0.6
    ([1.0, 0.0], 1.0),    # the same direction
    ([-1.0, 0.0], 0.0),   # a negative cosine counts as no similarity
])
def test_answer_correctness_blends_f_and_similarity(truth_vector: list[float],
                                                    similarity: float) -> None:
    embedder = ToyEmbedder({ANSWER: [1.0, 0.0], TRUTH: truth_vector})
    res = evaluate([ROW], metrics="answer_correctness", judge=_correctness_judge(),
                   embeddings=embedder, judging=JudgeOptions(cache=None))
    a = res.rows[0]["answer_correctness"]
    assert a["details"]["f_score"] == round(2 / 3, 4)
    assert a["details"]["similarity"] == similarity
    assert a["value"] == round(0.75 * (2 / 3) + 0.25 * similarity, 4)
    assert embedder.calls == [[ANSWER, TRUTH]]
    assert res.summary["embeddings"]["id"] == "toy"


def test_answer_correctness_embedder_failure_is_unscored_with_the_counts() -> None:
    a = score("answer_correctness", ROW, _correctness_judge(),
              embedder=ToyEmbedder({}, fail=True))
    assert a.value is None and a.error == "embedding call failed: embedder down"
    assert (a.details["tp"], a.details["fp"], a.details["fn"]) == (2, 1, 1)


def test_answer_correctness_with_an_embedder_has_no_missing_flag() -> None:
    embedder = ToyEmbedder({ANSWER: [1.0, 0.0], TRUTH: [1.0, 0.0]})
    res = evaluate([ROW], metrics="answer_correctness", judge=_correctness_judge(),
                   embeddings=embedder, judging=JudgeOptions(cache=None))
    assert "similarity_missing" not in res.rows[0]["answer_correctness"]["details"]
    agg = res.summary["metrics"]["answer_correctness"]
    assert "without_similarity" not in agg and "notes" not in agg


@pytest.mark.parametrize("answer", ["", "   "])
def test_answer_correctness_empty_answer_scores_zero_without_a_judge_call(answer: str) -> None:
    judge, alone = _correctness_judge(), _correctness_judge()
    embedder = ToyEmbedder({ANSWER: [1.0, 0.0], TRUTH: [1.0, 0.0]})
    res = evaluate([{**ROW, "answer": answer}, {**ROW, "id": "r2"}], metrics="answer_correctness",
                   judge=judge, embeddings=embedder, judging=JudgeOptions(cache=None))
    evaluate([{**ROW, "id": "r2"}], metrics="answer_correctness", judge=alone,
             embeddings=ToyEmbedder({ANSWER: [1.0, 0.0], TRUTH: [1.0, 0.0]}),
             judging=JudgeOptions(cache=None))
    empty = res.rows[0]["answer_correctness"]
    assert empty["value"] == 0.0 and empty["error"] is None
    assert empty["reason"] == "the answer is empty: it states none of the ground truth"
    assert empty["details"]["empty_answer"] is True
    # the empty answer is in the mean (it was left out as "does not apply")
    assert res.summary["metrics"]["answer_correctness"]["scored"] == 1 + 1
    assert len(judge.requests) == len(alone.requests)  # the empty answer asked nothing
    assert embedder.calls == [[ANSWER, TRUTH]]


@pytest.mark.parametrize("truth", ["", "  \n"])
def test_answer_correctness_blank_ground_truth_is_unscored(truth: str) -> None:
    judge = _correctness_judge()
    a = score("answer_correctness", {**ROW, "ground_truth": truth}, judge)
    assert a.value is None
    assert a.error == "the ground truth is blank: nothing to compare the answer against"
    assert judge.requests == []


def test_answer_correctness_missing_ground_truth_does_not_apply() -> None:
    metric = REGISTRY["answer_correctness"]
    assert metric.applies(Row(id="1", line=1, answer="A.")) == "row has no ground_truth"
    assert metric.applies(Row(id="1", line=1, ground_truth="A.")) == "row has no answer"
    assert metric.applies(Row(id="1", line=1, answer="", ground_truth="A.")) is None


def test_answer_correctness_all_statements_match() -> None:
    judge = rag_judge({ANSWER: ANSWER_STATEMENTS[:2], TRUTH: TRUTH_STATEMENTS})
    a = score("answer_correctness", ROW, judge)
    assert a.value == 1.0 and (a.details["tp"], a.details["fp"], a.details["fn"]) == (2, 0, 0)


# ---------------------------------------------------------------- unscored, with a reason


def test_an_answer_with_no_statements_is_unscored() -> None:
    judge = rag_judge({ANSWER: [], TRUTH: []})
    res = evaluate([ROW], metrics="faithfulness,groundedness_claims,context_recall,"
                                  "answer_correctness",
                   judge=judge, embeddings=ToyEmbedder({}), judging=JudgeOptions(cache=None))
    rec = res.rows[0]
    for name in ("faithfulness", "groundedness_claims"):
        assert rec[name]["value"] is None
        assert rec[name]["error"] == "the answer makes no factual statement to check"
    assert rec["context_recall"]["error"] == "the ground truth makes no factual statement"
    assert rec["answer_correctness"]["error"] == "neither text makes a factual statement"
    assert requests_of(judge, "verdicts") == []  # nothing to verify
    assert res.summary["metrics"]["faithfulness"]["unscored"] == 1


def test_blank_statements_are_dropped() -> None:
    judge = rag_judge({ANSWER: '{"statements": ["  ", ""]}'})
    f = score("faithfulness", ROW, judge)
    assert f.value is None and "no factual statement" in f.error


@pytest.mark.parametrize("bad", [
    '{"statements": ["The SkyView 2 weighs',   # truncated
    "The SkyView 2 weighs 1.3 kg.",             # prose
    '{"statements": "one string"}',
    '{"statements": [1, 2]}',
    '["a list"]',
])
def test_decomposition_that_is_not_valid_twice_is_unscored_and_not_cached(bad: str,
                                                                          tmp_path: Path) -> None:
    judge = rag_judge({ANSWER: bad})
    cache = tmp_path / "c.sqlite"
    res = evaluate([ROW], metrics="faithfulness", judge=judge, judging=JudgeOptions(cache=cache))
    f = res.rows[0]["faithfulness"]
    assert f["value"] is None
    assert f["error"] == "decomposition is not a JSON list of statements (asked twice)"
    assert f["details"]["raw_answer"] == bad  # the evidence is kept
    assert len(requests_of(judge, "statements")) == 2 and requests_of(judge, "verdicts") == []
    fixed = rag_judge({ANSWER: ANSWER_STATEMENTS})
    again = evaluate([ROW], metrics="faithfulness", judge=fixed, judging=JudgeOptions(cache=cache))
    assert len(requests_of(fixed, "statements")) == 1  # the bad answer was not cached
    assert again.rows[0]["faithfulness"]["value"] == 1.0


def test_decomposition_asked_again_once_then_scored() -> None:
    answers = iter(["not json", json.dumps({"statements": ANSWER_STATEMENTS[:2]})])
    verify = rag_script({})

    def script(req: JudgeRequest) -> str | JudgeResponse | Exception:
        if req.schema_name == "statements":
            return next(answers)
        return verify(req)

    f = score("faithfulness", ROW, FakeJudge(script))
    assert f.value == 1.0 and f.details["statements"] == 2


@pytest.mark.parametrize("verdicts", [
    [{"verdict": "supported", "reason": "r"}] * 3,                                  # too few
    [{"verdict": "supported", "reason": "r"}] * 5,                                  # too many
    [{"verdict": "yes", "reason": "r"}] * 4,                                        # not a verdict
    [{"verdict": "supported", "reason": "r"}] * 3 + ["supported"],                  # not an object
])
def test_verification_with_the_wrong_verdicts_is_unscored(verdicts: list[Any]) -> None:
    def script(req: JudgeRequest) -> str:
        if req.schema_name == "statements":
            return json.dumps({"statements": ANSWER_STATEMENTS})
        return json.dumps({"verdicts": verdicts})

    judge = FakeJudge(script)
    for name in ("faithfulness", "groundedness_claims"):
        r = score(name, ROW, judge)
        assert r.value is None and r.error == "verification is not 4 verdicts (asked twice)"
    assert len(requests_of(judge, "verdicts")) == 4  # asked twice per metric (no cache here)


def test_a_failed_judge_call_is_unscored_with_the_error() -> None:
    judge = FakeJudge(lambda req: JudgeError("HTTP 401: invalid key"))
    res = evaluate([ROW], metrics="faithfulness,context_recall,answer_correctness", judge=judge,
                   embeddings=ToyEmbedder({}), judging=JudgeOptions(cache=None))
    for name in ("faithfulness", "context_recall", "answer_correctness"):
        err = res.rows[0][name]["error"]
        assert err.startswith("judge call failed: HTTP 401"), (name, err)


# ---------------------------------------------------------------- the embedded judge's style


def _yes_no(p: float) -> JudgeResponse:
    """A one-token answer with P(Yes) = p among its alternatives, as llama.cpp gives it."""
    top = {"Yes": math.log(p), "No": math.log(1 - p)}
    word = "Yes" if p >= 0.5 else "No"
    return JudgeResponse(text=word, logprobs=[TokenLogprob(token=word, logprob=top[word], top=top)],
                         prompt_tokens=50, completion_tokens=1)


P_YES = {"The SkyView 2 weighs 1.3 kg.": 0.9, "The SkyView 2 has a 2,000 mm floor.": 0.5,
         "The SkyView 2 is red.": 0.2, "The SkyView 2 sleeps two.": 0.7}


def _local_judge(p_yes: dict[str, float], *, local: bool = True,
                 latency_s: float = 0.0) -> FakeJudge:
    batched = rag_script({ANSWER: list(p_yes)})

    def script(req: JudgeRequest) -> str | JudgeResponse | Exception:
        if req.schema_name == "verdict":
            user = user_of(req)
            assert section(user, "source") == CONTEXT
            # the source comes first, so its KV cache is reused across the statements
            assert user.index("<source>") < user.index("<statement>")
            return _yes_no(p_yes[section(user, "statement") or ""])
        return batched(req)

    return FakeJudge(script, id="judge", latency_s=latency_s,
                     capabilities=JudgeCapabilities(local=local))


def test_local_judge_asks_one_yes_no_question_per_statement() -> None:
    judge = _local_judge(P_YES, latency_s=0.005)  # a real judge takes time: calls overlap
    res = evaluate([ROW], metrics="faithfulness,groundedness_claims", judge=judge,
                   judging=JudgeOptions(cache=None))
    asked = requests_of(judge, "verdict")
    assert [section(user_of(r), "statement") for r in asked] == ANSWER_STATEMENTS
    assert all(r.max_tokens == 1 and r.json_schema is None for r in asked)
    assert requests_of(judge, "verdicts") == []
    f = res.rows[0]["faithfulness"]
    # P(yes) >= 0.5 counts as supported: 0.9, 0.5 and 0.7 are, 0.2 is not
    assert [v["verdict"] for v in f["details"]["verdicts"]] == \
        ["supported", "supported", "not_verifiable", "supported"]
    assert [v["p_supported"] for v in f["details"]["verdicts"]] == [0.9, 0.5, 0.2, 0.7]
    assert f["details"]["supported"] == 3
    assert [v["statement"] for v in f["details"]["ungrounded"]] == ["The SkyView 2 is red."]
    # the value is the mean P(supported), which ranks finer than counting verdicts
    share = round(sum(P_YES.values()) / 4, 4)
    assert f["value"] == share
    g = res.rows[0]["groundedness_claims"]
    assert g["weighted"] == round(1 + 4 * share, 4)
    assert g["value"] == float(min(5, int(1 + 4 * share + 0.5)))
    # both metrics verify against the same context: one question per statement in all
    assert res.summary["judge"]["shared"] == 4 + 1  # 4 questions and the decomposition


def test_verdict_style_is_chosen_by_the_judge_capabilities_or_the_style_option() -> None:
    remote = _local_judge(P_YES, local=False)
    evaluate([ROW], metrics="faithfulness", judge=remote, judging=JudgeOptions(cache=None))
    assert requests_of(remote, "verdict") == [] and len(requests_of(remote, "verdicts")) == 1
    forced = _local_judge(P_YES, local=False)
    evaluate([ROW], metrics="faithfulness", judge=forced, scoring=ScoringOptions(style="verdict"),
             judging=JudgeOptions(cache=None))
    assert len(requests_of(forced, "verdict")) == 4
    local = _local_judge(P_YES)
    evaluate([ROW], metrics="faithfulness", judge=local, scoring=ScoringOptions(style="rating"),
             judging=JudgeOptions(cache=None))
    assert requests_of(local, "verdict") == [] and len(requests_of(local, "verdicts")) == 1


def test_local_judge_without_logprobs_reads_the_word() -> None:
    batched = rag_script({ANSWER: ["Yes statement.", "No statement."]})

    def script(req: JudgeRequest) -> str | JudgeResponse | Exception:
        if req.schema_name == "verdict":
            return " yes" if "Yes statement." in user_of(req) else "No"
        return batched(req)

    f = score("faithfulness", ROW, FakeJudge(script, capabilities=JudgeCapabilities(local=True)))
    assert f.value == 0.5
    assert [v["p_supported"] for v in f.details["verdicts"]] == [1.0, 0.0]


def test_local_judge_that_answers_neither_yes_nor_no_is_unscored() -> None:
    batched = rag_script({ANSWER: ["One statement."]})

    def script(req: JudgeRequest) -> str | JudgeResponse | Exception:
        return "Maybe" if req.schema_name == "verdict" else batched(req)

    f = score("faithfulness", ROW, FakeJudge(script, capabilities=JudgeCapabilities(local=True)))
    assert f.value is None and "did not answer Yes or No" in f.error


# ---------------------------------------------------------------- conversations


CONVERSATION = {"id": "c1", "messages": [
    {"role": "user", "content": "How heavy is the SkyView?"},
    {"role": "assistant", "content": "1.3 kg.",
     "context": {"citations": [{"id": "d1", "title": "SkyView", "content": "Weighs 1.3 kg."}]}},
    {"role": "user", "content": "And its floor?"},
    {"role": "assistant", "content": "A 9,000 mm floor.",
     "context": {"citations": [{"id": "d2", "content": "Floor: 2,000 mm."}]}},
    {"role": "user", "content": "Thanks!"},
    {"role": "assistant", "content": "You're welcome."},  # no citations: not scored
]}


def test_conversation_groundedness_claims_per_assistant_turn() -> None:
    judge = rag_judge(
        {"1.3 kg.": ["The SkyView weighs 1.3 kg."],
         "A 9,000 mm floor.": ["The SkyView floor is rated 9,000 mm."]},
        {("[d2] Floor: 2,000 mm.", "The SkyView floor is rated 9,000 mm."): "contradicted"})
    res = evaluate([CONVERSATION], metrics="groundedness_claims,faithfulness", judge=judge,
                   judging=JudgeOptions(cache=None))
    g = res.rows[0]["groundedness_claims"]
    assert [t["turn"] for t in g["details"]["turns"]] == [1, 3]
    assert [t["value"] for t in g["details"]["turns"]] == [5.0, 1.0]
    assert (g["value"], g["weighted"]) == (3.0, 3.0)
    assert "not grounded: 'The SkyView floor is rated 9,000 mm.'" in g["details"]["turns"][1][
        "reason"]
    f = res.rows[0]["faithfulness"]
    assert [t["value"] for t in f["details"]["turns"]] == [1.0, 0.0]
    assert f["value"] == 0.5
    # each turn: decomposed with the user turn before it, verified against its own citations
    by_text = {section(user_of(r), "text"): r for r in requests_of(judge, "statements")}
    assert set(by_text) == {"1.3 kg.", "A 9,000 mm floor."}
    assert section(user_of(by_text["A 9,000 mm floor."]), "question") == "And its floor?"
    sources = {section(user_of(r), "source") for r in requests_of(judge, "verdicts")}
    assert sources == {"[d1] SkyView: Weighs 1.3 kg.", "[d2] Floor: 2,000 mm."}


# ---------------------------------------------------------------- shared work


@pytest.mark.parametrize("how", ["in flight", "cache"])
def test_decomposition_and_verification_are_shared_between_metrics(how: str,
                                                                   tmp_path: Path) -> None:
    """faithfulness, groundedness_claims and answer_correctness on one row: the answer is
    decomposed once, and verified against the context once for both context metrics."""
    judge = _correctness_judge()
    if how == "in flight":  # nothing cached: the duplicates wait for the call already sent
        judge.latency_s = 0.01
        cache: Path | None = None
    else:  # an instant judge: the duplicates come after the first answer, from the cache
        cache = tmp_path / "c.sqlite"
    res = evaluate([ROW], metrics="faithfulness,groundedness_claims,answer_correctness",
                   judge=judge, embeddings=ToyEmbedder({ANSWER: [1.0, 0.0], TRUTH: [1.0, 0.0]}),
                   judging=JudgeOptions(cache=cache))
    decomposed = Counter(section(user_of(r), "text") for r in requests_of(judge, "statements"))
    assert decomposed == {ANSWER: 1, TRUTH: 1}
    sources = Counter(section(user_of(r), "source") for r in requests_of(judge, "verdicts"))
    assert sources == {CONTEXT: 1, TRUTH: 1, ANSWER: 1}
    assert len(judge.requests) == 5
    stats = res.summary["judge"]
    assert stats["requests"] == 5
    # answer decomposed for three metrics (2 not sent), verified against the context for two
    assert stats["shared"] + stats["cache_hits"] == 3
    if how == "in flight":
        assert stats["shared"] == 3
    rec = res.rows[0]
    assert rec["faithfulness"]["value"] == 1.0  # the context supports the three statements
    assert rec["groundedness_claims"]["value"] == 5.0
    assert rec["answer_correctness"]["details"]["f_score"] == round(2 / 3, 4)


def test_shared_work_gives_the_same_results_as_separate_runs() -> None:
    def run(metrics: str) -> dict[str, Any]:
        return evaluate([ROW], metrics=metrics, judge=_correctness_judge(),
                        embeddings=ToyEmbedder({ANSWER: [1.0, 0.0], TRUTH: [0.6, 0.8]}),
                        judging=JudgeOptions(cache=None)).rows[0]

    together = run("faithfulness,groundedness_claims,context_recall,answer_correctness")
    for name in ("faithfulness", "groundedness_claims", "context_recall", "answer_correctness"):
        assert together[name] == run(name)[name], name


def test_rag_metrics_declare_their_prompts() -> None:
    for name in ("groundedness_claims", "faithfulness", "context_recall", "answer_correctness"):
        assert REGISTRY[name].prompt_names == ("statements", "verify"), name
    assert REGISTRY["context_precision"].prompt_names == ("chunk_usefulness",)
    assert REGISTRY["answer_correctness"].uses_embedder


def test_auto_without_the_local_embedder_still_runs(monkeypatch: pytest.MonkeyPatch) -> None:
    import assay.embeddings._local as local
    import assay.run._setup as run  # where evaluate asks

    missing = "the local embedder needs onnxruntime: pip install 'assay[local]'"
    monkeypatch.setattr(run, "local_embedder_missing", lambda: missing)
    monkeypatch.setattr(local, "local_embedder_missing", lambda: missing)
    import assay.metrics._registry as registry
    monkeypatch.setattr(registry, "AUTO_METRICS",  # this fake judge answers no intents requests
                        tuple(m for m in registry.AUTO_METRICS if m != "retrieval_score"))
    res = evaluate([ROW], judge=_correctness_judge(),
                   judging=JudgeOptions(cache=None))  # auto, embeddings="local"
    assert f"semantic_similarity: skipped, {missing}" in res.skipped
    a = res.rows[0]["answer_correctness"]  # scored on the statement F-score alone, flagged
    assert a["value"] == a["details"]["f_score"] and a["details"]["similarity"] is None
    assert a["details"]["similarity_missing"] == NO_EMBEDDER
    agg = res.summary["metrics"]["answer_correctness"]  # and the run's summary counts it
    assert agg["without_similarity"] == 1 and agg["scored"] == 1
    assert agg["notes"] == [f"1 of 1 rows scored on the statement F-score alone: {NO_EMBEDDER}"]
