"""``retrieval_score`` (1-5): do the retrieved documents cover every intent of the request?

The request (for a conversation: the last user turn, read with the history) is split into
intents; one more request asks, per intent, whether the documents hold its answer and which
document ids do. The score is 1 + 4 x (supported share)^2, so a missed intent costs more
than a linear share would.

Example:
    >>> retrieval_value(3, 4)
    3.25
"""

from __future__ import annotations

from typing import Any

from ...asking import Unanswered, ask_until_parsed, load_template
from ...data import Row
from ...judges import JudgeRequest
from .._base import MetricResult, ScoreContext
from .._common import FieldMetric
from .._register import register
from .._turns import history_text
from ..judge import PASS_SCORE, reason_plan, skipped_reason_note, wants_reason
from ._json import json_list, text_list

__all__ = ["RetrievalScore", "parse_intent_support", "parse_intents", "retrieval_value"]

INTENTS_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"intents": {"type": "array", "items": {"type": "string"}}},
    "required": ["intents"], "additionalProperties": False,
}
def support_schema(reason: bool = True, documents: int | None = None) -> dict[str, Any]:
    """Per intent: supported or not, the ids of the documents that cover it (at most
    ``documents`` of them, when given), and (``reason``) one sentence why.

    Example:
        >>> brief = support_schema(reason=False, documents=2)
        >>> item = brief["properties"]["verdicts"]["items"]
        >>> item["required"], item["properties"]["document_ids"]["maxItems"]
        (['supported', 'document_ids'], 2)
    """
    ids: dict[str, Any] = {"type": "array", "items": {"type": "string"}}
    if documents is not None:
        ids["maxItems"] = documents
    item: dict[str, Any] = {"supported": {"type": "boolean"}, "document_ids": ids}
    if reason:
        item["reason"] = {"type": "string"}
    return {"type": "object",
            "properties": {"verdicts": {"type": "array", "items": {
                "type": "object", "properties": item, "required": list(item),
                "additionalProperties": False}}},
            "required": ["verdicts"], "additionalProperties": False}


SUPPORT_SCHEMA = support_schema()


def retrieval_value(supported: int, total: int) -> float:
    """1 + 4 x (supported / total)^2."""
    return round(1 + 4 * (supported / total) ** 2, 4)


def parse_intents(text: str) -> list[str] | None:
    """The intents of an answer, or ``None`` when it is not valid."""
    return text_list(text, "intents")


def parse_intent_support(text: str, n: int) -> list[tuple[bool, list[str], str]] | None:
    """``n`` (supported, document ids, reason) triples, or ``None`` when not valid."""
    items = json_list(text, "verdicts", n=n)
    if items is None or not all(
            isinstance(i, dict) and isinstance(i.get("supported"), bool)
            and isinstance(i.get("document_ids") or [], list) for i in items):
        return None
    return [(i["supported"], [str(d) for d in i.get("document_ids") or []],
             str(i.get("reason") or "")) for i in items]


class RetrievalScore(FieldMetric):
    """How completely the retrieved documents cover the request's intents (float 1-5)."""

    name = "retrieval_score"
    required = frozenset({"question", "context"})
    conversation = True
    needs_citations = True
    uses_judge = True
    value_range = (1.0, 5.0)
    prompt_names = ("intents", "intent_support")

    async def score(self, row: Row, ctx: ScoreContext) -> MetricResult:
        question, history, documents = _inputs(row)
        if not question or not documents:
            return MetricResult.unscored("no user question with retrieved documents to check")
        template = load_template("intents", ctx.settings.lang)
        request = JudgeRequest(messages=template.render(question=question, history=history),
                               schema_name="intents", json_schema=INTENTS_SCHEMA,
                               max_tokens=256, logprobs=False)
        got = await ask_until_parsed(ctx.judge, request, parse_intents,
                                     "intents answer is not a JSON list")
        if isinstance(got, Unanswered):
            return MetricResult.unanswered(got)
        intents = list(got[0])
        if not intents:
            return MetricResult.unscored("the request has no intent to look up")
        listing = "\n\n".join(f"[{doc_id}] {text}" for doc_id, text in documents)
        numbered = "\n".join(f"{i}. {t}" for i, t in enumerate(intents, start=1))
        messages = load_template("intent_support", ctx.settings.lang).render(documents=listing,
                                                                    intents=numbered)
        plan = reason_plan(ctx)
        verdicts = await _intent_verdicts(ctx, messages, len(intents), len(documents),
                                          reason=plan == "always")
        if isinstance(verdicts, MetricResult):
            return verdicts
        supported = sum(v[0] for v in verdicts)
        value = retrieval_value(supported, len(intents))
        note = None
        if plan != "always":
            if wants_reason(plan, value < PASS_SCORE, messages):
                explained = await _intent_verdicts(ctx, messages, len(intents), len(documents),
                                                   reason=True)
                if isinstance(explained, MetricResult):
                    note = f"the reasons could not be had: {explained.error}"
                elif [v[0] for v in explained] == [v[0] for v in verdicts]:
                    verdicts = explained
                else:
                    note = "the explained answer disagreed with the verdicts; reasons left out"
            else:
                note = "per-intent reasons: " + skipped_reason_note(plan)
        known = {doc_id for doc_id, _ in documents}
        details: dict[str, Any] = {"intents": [
            {"intent": intent, "supported": ok, "reason": reason or None,
             "document_ids": _known_ids(ids, known)}
            for intent, (ok, ids, reason) in zip(intents, verdicts)],
            "share": round(supported / len(intents), 4)}
        if note:
            details["no_reason"] = note
        return MetricResult(
            value=value,
            reason=f"{supported} of {len(intents)} intents covered by the retrieved documents",
            details=details)


async def _intent_verdicts(ctx: ScoreContext, messages: list[dict[str, str]], n: int,
                           documents: int, *,
                           reason: bool) -> list[tuple[bool, list[str], str]] | MetricResult:
    """The ``n`` intent verdicts (with their reasons when ``reason``), or an unscored result.
    Without reasons the cited ids are bounded by the number of documents: with nothing to
    write after them, a small judge may otherwise list ids until it runs out of tokens."""
    schema = support_schema() if reason else support_schema(False, documents)
    request = JudgeRequest(messages=messages, schema_name="intent_support" if reason else
                           "intent_support_brief", json_schema=schema,
                           max_tokens=(80 + 60 * n) if reason else (40 + 40 * n), logprobs=False)
    got = await ask_until_parsed(ctx.judge, request, lambda t: parse_intent_support(t, n),
                                 f"answer is not {n} intent verdicts")
    return MetricResult.unanswered(got) if isinstance(got, Unanswered) else got[0]


def _known_ids(ids: list[str], known: set[str]) -> list[str]:
    """The cited ids that name a listed document (``[2]`` read as ``2``), each once, in order."""
    out: list[str] = []
    for raw in ids:
        doc_id = raw.strip().strip("[]").strip()
        if doc_id in known and doc_id not in out:
            out.append(doc_id)
    return out


def _inputs(row: Row) -> tuple[str | None, str | None, list[tuple[str, str]]]:
    """(question, history, [(document id, text)]) for a QA row or a conversation's last turn."""
    if row.kind == "qa":
        chunks = row.contexts or ([row.context] if row.context else [])
        return row.question, None, [(str(i), c) for i, c in enumerate(chunks, start=1)]
    messages = row.messages or []
    last_user = max((i for i, m in enumerate(messages) if m.role == "user"), default=None)
    if last_user is None:
        return None, None, []
    history = history_text(messages[:last_user])
    cited = next((m for m in messages[last_user + 1:] if m.role == "assistant" and m.citations),
                 None)
    if cited is None:  # fall back to the latest citations before the question
        cited = next((m for m in reversed(messages[:last_user])
                      if m.role == "assistant" and m.citations), None)
    docs = [(c.id or str(j), f"{c.title + ': ' if c.title else ''}{c.content}")
            for j, c in enumerate(cited.citations if cited else [], start=1)]
    return messages[last_user].content, history, docs


register(RetrievalScore())
