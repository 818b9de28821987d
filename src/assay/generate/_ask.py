"""What the judge is asked to write for each kind of candidate, and reading its answer.

A generation prompt is a template file ``prompts/gen_<kind>/v1/<lang>.md``: Chinese documents
get the Chinese one, every other language the English one with the language to write in
named (``Write the question and the answer in Japanese``). The judge answers in JSON
(``response_format`` / a grammar on the embedded judge): a question, its answer and the
evidence quoted word for word (a ``multi`` question: a list of quotes from each document, so
that even a small judge is made to quote the second); a conversation's turns; an unanswerable
question alone.

Example:
    >>> parse_draft("single", '{"question": "How long do refunds take?", '
    ...             '"answer": "14 days.", "evidence": ["Refunds take 14 days."]}')
    Draft(turns=(DraftTurn(question='How long do refunds take?', answer='14 days.', evidence=('Refunds take 14 days.',)),))
    >>> parse_draft("single", '{"question": "", "answer": "x", "evidence": []}') is None
    True
    >>> parse_draft("multi", '{"question": "q?", "answer": "a", "evidence_1": ["x1"], '
    ...             '"evidence_2": ["x2"]}').turns[0].evidence
    ('x1', 'x2')
    >>> language_name("ja"), language_name("pt-BR"), language_name("xx")
    ('Japanese', 'Portuguese', "the language with code 'xx'")
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .._text import language_name as english_name
from ..asking import json_object, load_template
from ..judges import JudgeRequest
from ._documents import UNDETERMINED
from ._plan import Candidate

__all__ = ["PROMPT_VERSION", "Draft", "DraftTurn", "generation_request", "language_name",
           "parse_draft", "prompt_lang", "template_id"]

#: The version of every generation and check prompt.
PROMPT_VERSION = "1"
_TURN: dict[str, Any] = {
    "type": "object",
    "properties": {"question": {"type": "string"}, "answer": {"type": "string"},
                   "evidence": {"type": "array", "items": {"type": "string"},
                                "minItems": 1, "maxItems": 4}},
    "required": ["question", "answer", "evidence"], "additionalProperties": False,
}
_QUOTES: dict[str, Any] = {"type": "array", "items": {"type": "string"}, "minItems": 1,
                           "maxItems": 2}
#: A ``multi`` answer: the quotes of each document in a field of their own.
_PAIR: dict[str, Any] = {
    "type": "object",
    "properties": {"question": {"type": "string"}, "answer": {"type": "string"},
                   "evidence_1": _QUOTES, "evidence_2": _QUOTES},
    "required": ["question", "answer", "evidence_1", "evidence_2"],
    "additionalProperties": False,
}
_QUESTION_ONLY: dict[str, Any] = {
    "type": "object", "properties": {"question": {"type": "string"}},
    "required": ["question"], "additionalProperties": False,
}
_SCHEMA_NAMES = {"conversation": "generated_conversation", "unanswerable": "generated_question",
                 "multi": "generated_pair"}
#: Tokens the judge may write, per kind (a conversation: per turn). Generous: a small judge
#: may copy a whole section as its evidence, and Chinese or Japanese text takes about a token
#: a character; an answer cut short is lost.
_MAX_TOKENS = {"single": 300, "multi": 400, "abstract": 640, "unanswerable": 100,
               "conversation": 240}


@dataclass(frozen=True)
class DraftTurn:
    """A question the judge wrote, its answer and the quotes it gave as evidence (an
    unanswerable question has neither)."""

    question: str
    answer: str = ""
    evidence: tuple[str, ...] = ()


@dataclass(frozen=True)
class Draft:
    """What the judge wrote for one candidate: one turn, or a conversation's turns."""

    turns: tuple[DraftTurn, ...]


def prompt_lang(lang: str) -> str:
    """The language of the prompt files read for documents in ``lang``: ``zh`` or ``en``.

    Example:
        >>> prompt_lang("zh-TW"), prompt_lang("es")
        ('zh', 'en')
    """
    return "zh" if lang.split("-")[0] == "zh" else "en"


def language_name(lang: str) -> str:
    """The English name of a language code, for the English prompt's instruction."""
    if lang == UNDETERMINED:
        return "the language of the document"
    return english_name(lang)


def template_id(name: str, lang: str) -> str:
    """How a row's ``generator`` names a prompt it went through: ``gen_single/v1/en``."""
    return f"{name}/v{PROMPT_VERSION}/{prompt_lang(lang)}"


def schema_for(candidate: Candidate) -> dict[str, Any]:
    """The JSON schema of the judge's answer for ``candidate``."""
    if candidate.kind == "unanswerable":
        return _QUESTION_ONLY
    if candidate.kind == "multi":
        return _PAIR
    if candidate.kind == "conversation":
        return {"type": "object", "properties": {"turns": {
            "type": "array", "items": _TURN, "minItems": candidate.turns,
            "maxItems": candidate.turns}}, "required": ["turns"], "additionalProperties": False}
    return _TURN


def generation_request(candidate: Candidate) -> tuple[JudgeRequest, str]:
    """The request that asks the judge to write ``candidate``, and its template's id."""
    name = f"gen_{candidate.kind}"
    template = load_template(name, prompt_lang(candidate.lang), PROMPT_VERSION)
    values: dict[str, Any] = {"language": language_name(candidate.lang)}
    if candidate.kind == "multi":
        values["passage_1"], values["passage_2"] = (p.text for p in candidate.passages)
    else:
        values["passage"] = "\n\n".join(p.text for p in candidate.passages)
    if candidate.kind == "abstract":
        values["style"] = ("summary", "comparison")[candidate.ordinal % 2]
    if candidate.kind == "conversation":
        values["turns"] = str(candidate.turns)
    max_tokens = _MAX_TOKENS[candidate.kind] * (candidate.turns if candidate.kind ==
                                                "conversation" else 1)
    request = JudgeRequest(messages=template.render(**values),
                           schema_name=_SCHEMA_NAMES.get(candidate.kind, "generated_qa"),
                           json_schema=schema_for(candidate), max_tokens=max_tokens,
                           logprobs=False)
    return request, template_id(name, candidate.lang)


def _turn(item: Any, *, answered: bool) -> DraftTurn | None:
    if not isinstance(item, dict) or not isinstance(item.get("question"), str):
        return None
    question = item["question"].strip()
    if not question:
        return None
    if not answered:
        return DraftTurn(question)
    answer, evidence = item.get("answer"), item.get("evidence")
    if not isinstance(answer, str) or not answer.strip() or not isinstance(evidence, list):
        return None
    quotes = tuple(q.strip() for q in evidence if isinstance(q, str) and q.strip())
    if not quotes or len(quotes) != len(evidence):
        return None
    return DraftTurn(question, answer.strip(), quotes)


def parse_draft(kind: str, text: str, turns: int = 1) -> Draft | None:
    """The judge's answer for a ``kind`` candidate, or ``None`` when it is not one (not JSON,
    a field missing or empty, the wrong number of turns)."""
    obj = json_object(text)
    if obj is None:
        return None
    if kind == "conversation":
        items = obj.get("turns")
        if not isinstance(items, list) or len(items) != turns:
            return None
        parsed = [_turn(item, answered=True) for item in items]
        if any(t is None for t in parsed):
            return None
        return Draft(tuple(t for t in parsed if t is not None))
    if kind == "multi":
        first, second = obj.get("evidence_1"), obj.get("evidence_2")
        if not isinstance(first, list) or not isinstance(second, list):
            return None
        obj = {**obj, "evidence": [*first, *second]}
    one = _turn(obj, answered=kind != "unanswerable")
    return Draft((one,)) if one is not None else None
