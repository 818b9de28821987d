"""One candidate, from the judge's draft to a row or a rejection with the check that failed.

The checks run cheapest first and stop at the first that fails: the judge's answer is read
(else "unreadable judge answer", with its raw text); each quote of evidence is found in the
passages and becomes a span (else "evidence not found in the source"; a ``multi`` question
needs evidence from both passages); no question is a sentence of the passage copied back
without a question mark; the (first) question points at no text the reader lacks (a phrase
list, then a judge verdict); the texts are in the document's language; each answer is
supported by its evidence (a judge verdict on the spans' text, as the document has it); an
``unanswerable`` question is not answered by the chunks most like it over all documents
(TF-IDF, then the judge is asked to copy the sentence that answers it: a quote found in those
chunks rejects it; else a Yes/No verdict). Near-duplicates are found later, over all
candidates in plan order (:mod:`._checks`).

Example:
    >>> Outcome.failed("single-0001", "single", "en", "judge call failed: HTTP 500").reason
    'judge call failed'
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, TypeVar

from ..asking import Unanswered, ask_until_parsed, ask_verdict, json_object, load_template
from ..judges import Judge, JudgeRequest
from ._ask import (
    PROMPT_VERSION,
    Draft,
    DraftTurn,
    generation_request,
    parse_draft,
    prompt_lang,
    template_id,
)
from ._checks import copied_sentence, pointing_phrase, wrong_language
from ._plan import Candidate, Passage, Plan
from ._spans import locate

__all__ = ["DECLINE", "REASONS", "Outcome", "judge_candidate"]

T = TypeVar("T")

#: Why a candidate was not kept, in the order the checks run.
REASONS = ("judge call failed", "unreadable judge answer", "evidence not found in the source",
           "evidence not from both passages", "not a question (copies the document)",
           "not standalone (phrase)",
           "not standalone (judge)", "wrong language", "unsupported by its evidence",
           "answered by the documents", "near-duplicate")
#: The ground truth of an unanswerable question: the app should decline, in the row's language.
DECLINE = {"en": "The documents do not answer this question.",
           "zh": "文档中没有回答这个问题的信息。",
           "ja": "文書にはこの質問に答える情報がありません。",
           "es": "Los documentos no responden a esta pregunta.",
           "fr": "Les documents ne répondent pas à cette question.",
           "de": "Die Dokumente beantworten diese Frage nicht.",
           "pt": "Os documentos não respondem a esta pergunta."}
#: Chunks over all documents read for whether an unanswerable question is answered after all.
UNANSWERED_TOP_K = 3
#: "Do the documents answer it?": a P(yes) this high already rejects an unanswerable
#: candidate (keeping an answerable question as unanswerable marks a right answer wrong; losing
#: a candidate costs one more). The embedded judge, on four Chinese questions: 0.50 and 0.69
#: for two the documents answer (one said "No"), 0.04 and 0.23 for two they do not.
ANSWERED_P_YES = 0.3
#: What the judge writes when no sentence answers the question (any case).
NO_QUOTE = "NONE"
_QUOTE_SCHEMA = {"type": "object", "properties": {"quote": {"type": "string"}},
                 "required": ["quote"], "additionalProperties": False}


@dataclass(frozen=True)
class Outcome:
    """What became of a candidate: ``row`` when every check passed (near-duplicates aside),
    else the ``reason`` (one of :data:`REASONS`) with its ``detail``, the question when there
    was one and the judge's ``raw_answer`` when it could not be read."""

    id: str
    kind: str
    lang: str
    row: dict[str, Any] | None = None
    reason: str | None = None
    detail: str | None = None
    question: str | None = None
    raw_answer: str | None = None

    @classmethod
    def failed(cls, cid: str, kind: str, lang: str, error: str) -> Outcome:
        """A candidate whose judge call failed (asked again on resume)."""
        return cls(cid, kind, lang, reason="judge call failed", detail=error)

    def record(self) -> dict[str, Any]:
        """The rejection as a line of ``FILE.rejected.jsonl`` (keys in a fixed order)."""
        rec: dict[str, Any] = {"id": self.id, "kind": self.kind, "lang": self.lang,
                               "reason": self.reason, "detail": self.detail,
                               "question": self.question}
        if self.raw_answer is not None:
            rec["raw_answer"] = self.raw_answer
        if self.row is not None:
            rec["row"] = self.row
        return rec

    @classmethod
    def from_record(cls, rec: dict[str, Any]) -> Outcome:
        """An outcome read back from a rejected line (or, with no ``reason``, a kept row)."""
        if "reason" not in rec:
            first = rec.get("question") or next(
                (m.get("content") for m in rec.get("messages") or [] if m.get("role") == "user"),
                None)
            return cls(str(rec["id"]), str(rec.get("kind")), str(rec.get("lang")), row=rec,
                       question=first)
        return cls(str(rec["id"]), str(rec.get("kind")), str(rec.get("lang")),
                   row=rec.get("row"), reason=rec.get("reason"), detail=rec.get("detail"),
                   question=rec.get("question"), raw_answer=rec.get("raw_answer"))


class _Rejected(Exception):
    def __init__(self, reason: str, detail: str | None = None, raw: str | None = None) -> None:
        super().__init__(reason)
        self.reason, self.detail, self.raw = reason, detail, raw


def _settled(got: T | Unanswered) -> T:
    """``got`` unless the judge gave no usable answer: a failed call or an unreadable one."""
    if isinstance(got, Unanswered):
        if got.failure == "call":
            raise _Rejected("judge call failed", got.reason)
        raise _Rejected("unreadable judge answer", got.reason, got.raw_answer)
    return got


async def _verdict(judge: Judge, name: str, lang: str, reasons: bool, *,
                   yes_from: float | None = None, **values: str) -> tuple[bool, str]:
    """The judge's Yes/No on template ``name``, and its reason; with ``yes_from``, a P(yes) at
    or above it counts as Yes too (when the judge gives logprobs)."""
    messages = load_template(name, prompt_lang(lang), PROMPT_VERSION).render(**values)
    is_yes, why, p_yes, _ = _settled(await ask_verdict(judge, messages, reason=reasons))
    if yes_from is not None and p_yes is not None and p_yes >= yes_from:
        return True, str(why) or f"P(yes) {p_yes:.2f}"
    return bool(is_yes), str(why)


def _parse_quote(text: str) -> str | None:
    """The ``quote`` of the judge's JSON answer ("" for none), or None when it is not one."""
    obj = json_object(text)
    quote = obj.get("quote") if obj is not None else None
    if not isinstance(quote, str):
        return None
    return "" if quote.strip().strip(".").upper() in (NO_QUOTE, "") else quote.strip()


async def _answering_quote(judge: Judge, lang: str, documents: list[str],
                           question: str) -> str | None:
    """The sentence of ``documents`` the judge copies as the answer to ``question`` when it is
    there (found as :func:`locate` finds evidence), else None."""
    messages = load_template("gen_answer_quote", prompt_lang(lang), PROMPT_VERSION).render(
        documents="\n\n".join(documents), question=question)
    request = JudgeRequest(messages=messages, schema_name="answer_quote",
                           json_schema=_QUOTE_SCHEMA, max_tokens=200, logprobs=False)
    quote, _ = _settled(await ask_until_parsed(judge, request, _parse_quote,
                                               "not a JSON quote as asked"))
    for text in documents if quote else ():
        at = locate(quote, text)
        if at is not None:
            return text[at[0]:at[1]]
    return None


def _spans(turn: DraftTurn, passages: tuple[Passage, ...]) -> list[tuple[int, int, int]]:
    """``(passage number, start, end)`` of each quote of ``turn``, offsets in the document."""
    found = []
    for quote in turn.evidence:
        for k, passage in enumerate(passages):
            at = locate(quote, passage.text)
            if at is not None:
                found.append((k, passage.start + at[0], passage.start + at[1]))
                break
        else:
            raise _Rejected("evidence not found in the source", quote)
    return found


async def judge_candidate(candidate: Candidate, judge: Judge, plan: Plan, *,
                          reasons: bool, generator: dict[str, Any]) -> Outcome:
    """Ask ``judge`` to write ``candidate`` and check it: its row, or why it was rejected.
    ``reasons``: ask verdicts with a reason (else the verdict word alone, on a slow judge);
    ``generator``: the row's ``generator`` field before its prompts are added."""
    c = candidate
    question: str | None = None
    try:
        request, generated_by = generation_request(c)
        parsed = await ask_until_parsed(judge, request,
                                        lambda t: parse_draft(c.kind, t, c.turns),
                                        f"not a JSON {c.kind} question as asked")
        draft: Draft = _settled(parsed)[0]
        question = draft.turns[0].question
        spans = [_spans(turn, c.passages) for turn in draft.turns]
        if c.kind == "multi" and len({k for k, _, _ in spans[0]}) < 2:
            raise _Rejected("evidence not from both passages",
                            "every quote is from one passage")
        for turn in draft.turns:
            copied = copied_sentence(turn.question, [p.text for p in c.passages])
            if copied is not None:
                raise _Rejected("not a question (copies the document)", copied)
        phrase = pointing_phrase(question, c.lang)
        if phrase is not None:
            raise _Rejected("not standalone (phrase)", phrase)
        texts = " ".join(f"{t.question} {t.answer}" for t in draft.turns)
        other = wrong_language(texts, c.lang)
        if other is not None:
            raise _Rejected("wrong language", f"written in {other!r}, the document is in "
                                              f"{c.lang!r}")
        used = [generated_by]
        ok, why = await _verdict(judge, "gen_standalone", c.lang, reasons, question=question)
        used.append(template_id("gen_standalone", c.lang))
        if not ok:
            raise _Rejected("not standalone (judge)", why or None)
        if c.kind == "unanswerable":
            top = [plan.chunks[i].text for i in plan.index.search(question, UNANSWERED_TOP_K)]
            quoted = await _answering_quote(judge, c.lang, top, question)
            used.append(template_id("gen_answer_quote", c.lang))
            if quoted is not None:
                raise _Rejected("answered by the documents", f"they say: {quoted}")
            answered, why = await _verdict(judge, "gen_unanswered", c.lang, reasons,
                                           yes_from=ANSWERED_P_YES,
                                           documents="\n\n".join(top), question=question)
            used.append(template_id("gen_unanswered", c.lang))
            if answered:
                raise _Rejected("answered by the documents", why or None)
        else:
            for turn, turn_spans in zip(draft.turns, spans, strict=True):
                evidence = "\n".join(plan.documents[c.passages[k].doc].text[a:b]
                                     for k, a, b in turn_spans)
                ok, why = await _verdict(judge, "gen_supported", c.lang, reasons,
                                         evidence=evidence, question=turn.question,
                                         answer=turn.answer)
                if not ok:
                    raise _Rejected("unsupported by its evidence", why or None)
            used.append(template_id("gen_supported", c.lang))
    except _Rejected as e:
        return Outcome(c.id, c.kind, c.lang, reason=e.reason, detail=e.detail,
                       question=question, raw_answer=e.raw)
    row = build_row(c, draft, spans, {**generator, "prompts": used})
    return Outcome(c.id, c.kind, c.lang, row=row, question=question)


def build_row(c: Candidate, draft: Draft, spans: list[list[tuple[int, int, int]]],
              generator: dict[str, Any]) -> dict[str, Any]:
    """The test row (keys in a fixed order)."""
    row: dict[str, Any] = {"id": c.id, "kind": c.kind, "lang": c.lang}
    last = draft.turns[-1]
    if c.kind == "conversation":
        messages: list[dict[str, str]] = []
        for turn in draft.turns[:-1]:
            messages += [{"role": "user", "content": turn.question},
                         {"role": "assistant", "content": turn.answer}]
        row["messages"] = [*messages, {"role": "user", "content": last.question}]
    else:
        row["question"] = last.question
    row["ground_truth"] = (DECLINE.get(c.lang.split("-")[0], DECLINE["en"])
                           if c.kind == "unanswerable" else last.answer)
    row["context"] = "\n\n".join(p.text for p in c.passages)
    row["answerable"] = c.kind != "unanswerable"
    seen: set[tuple[str, int, int]] = set()
    source = []
    for turn_spans in spans:
        for k, start, end in turn_spans:
            key = (c.passages[k].doc, start, end)
            if key not in seen:
                seen.add(key)
                passage = c.passages[k]  # its text is document.text[passage.start:passage.end]
                source.append({"doc": key[0], "start": start, "end": end,
                               "text": passage.text[start - passage.start:end - passage.start]})
    row["source"] = source
    row["generator"] = generator
    return row
