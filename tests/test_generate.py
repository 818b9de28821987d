"""assay generate (the library): every kind gives a row ``assay run`` reads, spans point at the
evidence inside the row's context, each check rejects what it should with its reason, runs are
deterministic, and rows come in each document's language (a scripted judge:
``tests/generation_judge.py``)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import assay
from assay.data import read_dataset
from assay.errors import ConfigError, JudgeError
from assay.generate import KINDS, GenerationResult, generate
from assay.generate._candidate import DECLINE
from assay.generate._documents import read_documents
from assay.injection import language_of
from assay.judges import FakeJudge, JudgeRequest
from conftest import requires_local_embedder
from generation_judge import GenerationJudge, generation_judge

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples" / "docs"
FAQ = """# Lumo lamp

## Battery

The Lumo lamp has a 4,000 mAh battery. A full charge takes three hours.

## Warranty

Every lamp has a two-year warranty. Drops and water damage are not covered.

## Returns

Unused lamps can be returned within 30 days. Refunds are paid within 14 days.
"""


@pytest.fixture
def docs(tmp_path: Path) -> Path:
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "faq.md").write_text(FAQ, encoding="utf-8")
    (folder / "shipping.txt").write_text(
        "Orders ship from Rotterdam within two working days. Shipping inside the European "
        "Union is free for orders over 50 euros.\n\nExpress delivery costs 12 euros and "
        "arrives the next working day.\n", encoding="utf-8")
    return folder


def _run(paths: list[Path], out: Path, judge: Any = None, **options: Any) -> GenerationResult:
    options.setdefault("embeddings", None)
    options.setdefault("cache", False)
    return generate(paths, out=out, judge=judge or generation_judge(), **options)


def _lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def _answered(row: dict[str, Any]) -> dict[str, Any]:
    """The row as the app under test would leave it: its reply is the reference answer."""
    if "messages" in row:
        return {**row, "messages": [*row["messages"], {"role": "assistant",
                                                       "content": row["ground_truth"]}]}
    return {**row, "answer": row["ground_truth"]}


@pytest.mark.parametrize("kind", KINDS)
def test_each_kind_gives_a_row_assay_run_reads(kind: str, docs: Path, tmp_path: Path) -> None:
    out = tmp_path / f"{kind}.jsonl"
    result = _run([docs], out, n=2, kinds=kind)
    assert result.summary["kept"] == 2, result.rejected
    rows = _lines(out)
    assert rows == result.rows and [r["kind"] for r in rows] == [kind, kind]
    for row in rows:
        assert list(row) == ["id", "kind", "lang", "messages" if kind == "conversation"
                             else "question", "ground_truth", "context", "answerable", "source",
                             "generator"]
        assert row["lang"] == "en" and isinstance(row["context"], str)
        assert row["answerable"] is (kind != "unanswerable")
        assert row["generator"]["judge"] == "fake:generate" and row["generator"]["seed"] == 0
        assert row["generator"]["prompts"][0] == f"gen_{kind}/v1/en"
    # The rows are questions for the app under test: with its replies, assay run scores them.
    answered = tmp_path / f"{kind}-answered.jsonl"
    answered.write_text("".join(json.dumps(_answered(r)) + "\n" for r in rows))
    if kind == "conversation":
        first = rows[0]["messages"]
        assert first[0]["role"] == "user" and first[-1]["role"] == "user"
        assert [m["role"] for m in first] == ["user", "assistant"] * (len(first) // 2) + ["user"]
        assert len(first) in (3, 5)  # two or three user turns
        read = read_dataset(answered)
        assert len(read) == 2 and read[0].messages[-1].content == rows[0]["ground_truth"]
        return
    if kind == "unanswerable":  # the app declined, as the ground truth does
        assert rows[0]["ground_truth"] == DECLINE["en"] and rows[0]["source"] == []
        declined = FakeJudge("No. It gives no answer of its own.")
        run = assay.evaluate(answered, metrics="negative_rejection", judge=declined)
        assert run.summary["metrics"]["negative_rejection"]["mean"] == 1.0
        return
    run = assay.evaluate(answered, metrics="exact_match", judge="fake")
    assert run.summary["metrics"]["exact_match"]["mean"] == 1.0


def test_spans_are_the_evidence_inside_the_context(tmp_path: Path) -> None:
    """Every span of every row (four languages, all kinds) is the quoted text of its document,
    and lies inside the row's context."""
    result = _run([EXAMPLES], tmp_path / "qa.jsonl", n=20, max_candidates=60)
    texts = {d.id: d.text for d in read_documents([EXAMPLES])}
    spans = 0
    assert {r["kind"] for r in result.rows} == set(KINDS)
    for row in result.rows:
        for span in row["source"]:
            piece = texts[span["doc"]][span["start"]:span["end"]]
            assert piece and piece == piece.strip() and piece in row["context"], (row, span)
            assert span["text"] == piece  # what the web UI and the report show as evidence
            spans += 1
        if row["kind"] == "single":  # the scripted answer is the sentence it quoted
            [span] = row["source"]
            piece = texts[span["doc"]][span["start"]:span["end"]]
            assert piece.split() == row["ground_truth"].split()
    assert spans >= len([r for r in result.rows if r["answerable"]])
    assert {r["lang"] for r in result.rows} == {"en", "es", "zh", "ja"}


def test_the_span_of_a_quote_across_a_line_break(tmp_path: Path) -> None:
    doc = tmp_path / "a.txt"
    doc.write_text("The Lumo lamp has a two-year\nwarranty on the battery and the electronics. "
                   "Drops are not covered by it.\n")
    judge = generation_judge(quote="has a two-year warranty on the battery")
    [row] = _run([doc], tmp_path / "qa.jsonl", n=1, kinds="single", judge=judge).rows
    [span] = row["source"]
    assert doc.read_text()[span["start"]:span["end"]] == "has a two-year\nwarranty on the battery"
    supported = [r for r in judge.requests if "supported by the evidence" in
                 r.messages[-1]["content"]]
    assert "<source>\nhas a two-year\nwarranty on the battery\n</source>" in (
        supported[0].messages[-1]["content"])  # the span as the document has it


def test_a_quote_with_a_word_changed_becomes_the_sentence_it_resembles(tmp_path: Path
                                                                       ) -> None:
    doc = tmp_path / "a.txt"
    sentence = "Because the pedals turned the front wheel directly, a larger wheel meant more distance for each turn of the pedals."
    doc.write_text(f"Bicycles came to Paris in the 1860s. {sentence} Tyres came later.\n")
    judge = generation_judge(quote="A larger front wheel meant more distance for each turn "
                                   "of the pedals.")  # not in the text word for word
    [row] = _run([doc], tmp_path / "qa.jsonl", n=1, kinds="single", judge=judge).rows
    [span] = row["source"]
    assert doc.read_text()[span["start"]:span["end"]] == span["text"] == sentence
    supported = [r for r in judge.requests if "supported by the evidence" in
                 r.messages[-1]["content"]]
    assert f"<source>\n{sentence}\n</source>" in supported[0].messages[-1]["content"]


def test_a_quote_unlike_every_sentence_is_not_found(tmp_path: Path) -> None:
    doc = tmp_path / "a.txt"
    doc.write_text("Bicycles came to Paris in the 1860s. Tyres came later.\n")
    judge = generation_judge(quote="Pneumatic tyres were patented by John Dunlop in 1888.")
    result = _run([doc], tmp_path / "qa.jsonl", n=1, kinds="single", max_candidates=1,
                  judge=judge)
    assert [r["reason"] for r in result.rejected] == ["evidence not found in the source"]


def _rejected_once(docs: Path, tmp_path: Path, kinds: str = "single", **overrides: str
                   ) -> dict[str, Any]:
    result = _run([docs], tmp_path / "qa.jsonl", n=1, kinds=kinds, max_candidates=1,
                  judge=generation_judge(**overrides))
    assert result.rows == [] and len(result.rejected) == 1
    assert _lines(result.files.rejected) == result.rejected
    [rejected] = result.rejected
    assert result.summary["rejected_by_reason"] == {rejected["reason"]: 1}
    assert result.summary["by_kind"][kinds]["rejected"] == {rejected["reason"]: 1}
    assert not result.summary["complete"]
    return rejected


@pytest.mark.parametrize("overrides, reason, detail", [
    ({"quote": "Refunds are paid within 30 days."}, "evidence not found in the source",
     "Refunds are paid within 30 days."),
    ({"supported": "No. The evidence does not say that."}, "unsupported by its evidence",
     "The evidence does not say that."),
    ({"question": "According to the passage, how long does a full charge take?"},
     "not standalone (phrase)", "the passage"),
    ({"standalone": "No. It is unclear what 'it' is."}, "not standalone (judge)",
     "It is unclear what 'it' is."),
    ({"question": "¿Cuánto tiempo tarda en cargarse por completo la lámpara de escritorio?"},
     "wrong language", "written in 'es', the document is in 'en'"),
])
def test_each_check_rejects_with_its_reason(overrides: dict[str, str], reason: str, detail: str,
                                            docs: Path, tmp_path: Path) -> None:
    rejected = _rejected_once(docs, tmp_path, **overrides)
    assert (rejected["reason"], rejected["detail"]) == (reason, detail)
    assert rejected["id"] == "single-0001" and rejected["kind"] == "single"
    assert "raw_answer" not in rejected and "row" not in rejected


def test_an_unanswerable_question_the_documents_answer_is_rejected(docs: Path,
                                                                   tmp_path: Path) -> None:
    rejected = _rejected_once(docs, tmp_path, kinds="unanswerable",
                              answered="Yes. The returns section gives it.")
    assert rejected["reason"] == "answered by the documents"
    assert rejected["detail"] == "The returns section gives it."


def test_an_unanswerable_question_whose_answer_the_judge_copies_is_rejected(
        docs: Path, tmp_path: Path) -> None:
    judge = generation_judge(quoted="Refunds are paid within 14 days.")
    result = _run([docs], tmp_path / "qa.jsonl", n=1, kinds="unanswerable", max_candidates=1,
                  judge=judge)
    [rejected] = result.rejected
    assert rejected["reason"] == "answered by the documents"
    assert rejected["detail"] == "they say: Refunds are paid within 14 days."
    assert not any("Do the documents answer" in r.messages[-1]["content"]
                   for r in judge.requests)  # found by the quote: no verdict asked


@pytest.mark.parametrize("p_yes, kept", [(0.4, False), (0.1, True)])
def test_a_doubtful_no_still_rejects_an_unanswerable_question(p_yes: float, kept: bool,
                                                             docs: Path, tmp_path: Path) -> None:
    """"No" with P(yes) 0.4 is no proof the documents leave it open: rejected (from 0.3)."""
    import math

    from assay.judges import JudgeResponse, TokenLogprob

    scripted = GenerationJudge()

    def script(request: JudgeRequest) -> str | JudgeResponse:
        if "Do the documents answer" not in request.messages[-1]["content"]:
            return scripted(request)  # type: ignore[return-value]
        top = {"No": math.log(1 - p_yes), "Yes": math.log(p_yes)}
        return JudgeResponse(text="No", logprobs=[TokenLogprob(token="No", logprob=top["No"],
                                                               top=top)])

    result = _run([docs], tmp_path / "qa.jsonl", n=1, kinds="unanswerable", max_candidates=1,
                  judge=FakeJudge(script))
    assert len(result.rows) == int(kept)
    if not kept:
        assert [(r["reason"], r["detail"]) for r in result.rejected] == [
            ("answered by the documents", "P(yes) 0.40")]


def test_a_quote_not_in_the_documents_does_not_reject_an_unanswerable_question(
        docs: Path, tmp_path: Path) -> None:
    judge = generation_judge(quoted="Lamps are sold in 40 countries.")  # made up by the judge
    [row] = _run([docs], tmp_path / "qa.jsonl", n=1, kinds="unanswerable", judge=judge).rows
    assert row["answerable"] is False
    assert "gen_answer_quote/v1/en" in row["generator"]["prompts"]


@pytest.mark.parametrize("question, kept", [
    ("A full charge takes three hours.", False),  # the passage's sentence, copied back
    ("A full charge takes three hours?", True),   # asked (a poor question, but a question)
    ("Describe how long charging the Lumo lamp takes.", True),  # a request, not a copy
])
def test_a_sentence_of_the_document_copied_back_is_not_a_question(
        question: str, kept: bool, tmp_path: Path) -> None:
    doc = tmp_path / "lamp.txt"
    doc.write_text("The Lumo lamp has a 4,000 mAh battery. A full charge takes three hours.\n")
    result = _run([doc], tmp_path / "qa.jsonl", n=1, kinds="single", max_candidates=1,
                  judge=generation_judge(question=question))
    if kept:
        assert [r["question"] for r in result.rows] == [question]
    else:
        [rejected] = result.rejected
        assert rejected["reason"] == "not a question (copies the document)"
        assert rejected["detail"] == "A full charge takes three hours."


def test_an_unreadable_answer_is_rejected_with_the_raw_text(docs: Path, tmp_path: Path) -> None:
    judge = generation_judge(raw='{"question": "How long?"')
    result = _run([docs], tmp_path / "qa.jsonl", n=1, kinds="single", max_candidates=1,
                  judge=judge)
    [rejected] = result.rejected
    assert rejected["reason"] == "unreadable judge answer"
    assert rejected["raw_answer"] == '{"question": "How long?"'
    assert "asked twice" in rejected["detail"]
    assert len(judge.requests) == 2  # asked once more, then given up
    assert not result.judge_failed


def test_multi_needs_evidence_from_both_passages(docs: Path, tmp_path: Path) -> None:
    rejected = _rejected_once(docs, tmp_path, kinds="multi", evidence="first")
    assert rejected["reason"] == "evidence not from both passages"


def _same_question() -> FakeJudge:
    return generation_judge(question="How long does a full charge of the Lumo lamp take?")


def test_near_duplicates_are_rejected_in_plan_order(docs: Path, tmp_path: Path) -> None:
    result = _run([docs], tmp_path / "qa.jsonl", n=3, kinds="single", max_candidates=3,
                  judge=_same_question())
    assert [r["id"] for r in result.rows] == ["single-0001"]
    assert [(r["id"], r["reason"]) for r in result.rejected] == [
        ("single-0002", "near-duplicate"), ("single-0003", "near-duplicate")]
    assert result.rejected[0]["detail"] == "like single-0001 (ngrams similarity 1.0)"
    assert result.rejected[0]["row"]["question"] == result.rows[0]["question"]
    assert result.summary["near_duplicates"]["method"].startswith("character n-grams")


@requires_local_embedder
def test_english_near_duplicates_by_embeddings(docs: Path, tmp_path: Path) -> None:
    result = _run([docs], tmp_path / "qa.jsonl", n=2, kinds="single", max_candidates=2,
                  judge=_same_question(), embeddings="local")
    assert [r["reason"] for r in result.rejected] == ["near-duplicate"]
    assert "(embeddings similarity" in result.rejected[0]["detail"]
    assert result.summary["near_duplicates"]["cosine_threshold"] == 0.88


def test_rejections_are_replaced_from_the_same_sequence_up_to_the_cap(docs: Path,
                                                                      tmp_path: Path) -> None:
    result = _run([docs], tmp_path / "qa.jsonl", n=2, kinds="single", judge=_same_question())
    assert result.summary["generated"] == 6 and result.summary["candidate_cap"] == 6
    assert [r["id"] for r in result.rows] == ["single-0001"]
    assert [r["id"] for r in result.rejected] == [f"single-000{i}" for i in range(2, 7)]


def test_two_runs_write_the_same_bytes(tmp_path: Path) -> None:
    a, b = tmp_path / "a.jsonl", tmp_path / "b" / "a.jsonl"
    for out in (a, b):
        _run([EXAMPLES], out, n=12, seed=7)
    assert a.read_bytes() == b.read_bytes()
    assert (tmp_path / "a.rejected.jsonl").read_bytes() == (
        tmp_path / "b" / "a.rejected.jsonl").read_bytes()
    other = _run([EXAMPLES], tmp_path / "c.jsonl", n=12, seed=8)
    assert [r["id"] for r in other.rows] != [r["id"] for r in _lines(a)] or (
        other.rows != _lines(a))


def test_a_failed_judge_call_is_a_rejection_that_resume_asks_again(docs: Path,
                                                                   tmp_path: Path) -> None:
    out = tmp_path / "qa.jsonl"
    failing = FakeJudge(GenerationJudge(fail=JudgeError("HTTP 400: bad request")),
                        id="fake:generate")
    result = _run([docs], out, n=2, kinds="single", judge=failing)
    assert result.judge_failed and result.rows == []
    assert result.summary["generated"] == 2  # no replacements planned for failed calls
    assert {r["reason"] for r in result.rejected} == {"judge call failed"}
    again = _run([docs], out, n=2, kinds="single", resume=True)
    assert len(again.rows) == 2 and again.rejected == [] and not again.judge_failed


def test_resume_refuses_a_manifest_that_is_not_a_json_object(docs: Path, tmp_path: Path) -> None:
    out = tmp_path / "qa.jsonl"
    _run([docs], out, n=2, kinds="single")
    (tmp_path / "qa.run.json").write_text("[1, 2]\n", encoding="utf-8")
    with pytest.raises(ConfigError, match="qa.run.json is missing or unreadable, so the run in "
                                          ".*qa.jsonl cannot be resumed safely"):
        _run([docs], out, n=2, kinds="single", resume=True)
    with pytest.raises(ConfigError, match="already holds a generation run"):
        _run([docs], out, n=2, kinds="single")


@pytest.mark.parametrize("lang, text, script", [
    ("zh", "青竹茶社销售茶叶和茶具。签收后七天内可以申请无理由退货。退款会在三个工作日内原路退回。", "zh"),
    ("ja", ("鉄瓶は使う前にお湯を三回沸かしてください。内側は洗剤で洗わないでください。"
           "赤い錆が出ても、お湯が赤くならなければそのまま使えます。"), "ja"),
])
def test_chinese_and_japanese_documents_give_rows_in_their_language(
        lang: str, text: str, script: str, tmp_path: Path) -> None:
    doc = tmp_path / f"{lang}.txt"
    doc.write_text(text, encoding="utf-8")
    result = _run([doc], tmp_path / "qa.jsonl", n=3, kinds="single,unanswerable,conversation")
    assert {r["kind"] for r in result.rows} == {"single", "unanswerable", "conversation"}
    for row in result.rows:
        assert row["lang"] == lang
        question = row.get("question") or row["messages"][0]["content"]
        assert language_of(question + " " + row["ground_truth"]) == script
        assert row["generator"]["prompts"][0].endswith("/zh" if lang == "zh" else "/en")
    unanswerable = next(r for r in result.rows if r["kind"] == "unanswerable")
    assert unanswerable["ground_truth"] == DECLINE[lang]


def test_the_japanese_prompt_names_the_language(tmp_path: Path) -> None:
    doc = tmp_path / "ja.txt"
    doc.write_text("鉄瓶は使う前にお湯を三回沸かしてください。内側は洗剤で洗わないでください。",
                   encoding="utf-8")
    judge = generation_judge()
    _run([doc], tmp_path / "qa.jsonl", n=1, kinds="single", judge=judge)
    system = judge.requests[0].messages[0]["content"]
    assert "in Japanese" in system


async def test_the_sync_call_works_where_a_loop_is_running(docs: Path, tmp_path: Path) -> None:
    """As in a notebook cell: ``generate`` runs on a worker thread's loop."""
    result = _run([docs / "faq.md"], tmp_path / "qa.jsonl", n=1, kinds="single")
    assert len(result.rows) == 1
