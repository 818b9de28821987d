"""A scripted judge for ``assay generate``: it writes questions from the documents it is shown
(each question is a sentence of the document turned into a question, its answer that sentence,
its evidence the sentence quoted), answers the standalone and supported checks Yes and the
"do the documents answer it" check No. Its knobs make it fail one check at a time.

It works on the prompt's text alone, so the bench's fake judge server can answer with it too
(``tests/yes_no_judge.py``).

Example:
    >>> text = "<document>\\nRefunds take 14 days. We ship to Spain.\\n</document>"
    >>> answer_generation(text, "generated_qa", {})
    '{"question": "Refunds take 14 days?", "answer": "Refunds take 14 days.", "evidence": ["Refunds take 14 days."]}'
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from assay.judges import FakeJudge, JudgeRequest

_DOCUMENT = re.compile(r"<document[^>]*>\n(.*?)\n</document>", re.DOTALL)
_SENTENCE = re.compile(r"[^\s#].*?(?:[.!?](?=\s|$)|[。！？])", re.DOTALL)


def sentences(text: str) -> list[str]:
    """The sentences of a document shown to the judge (headings and short bits left out)."""
    found = [s.strip() for block in re.split(r"\n\s*\n", text)
             for s in _SENTENCE.findall(block)]
    return [s for s in found if len(s) >= 8 and not s.startswith("#")]


def _question(sentence: str) -> str:
    flat = " ".join(sentence.split())
    return flat[:-1] + ("？" if flat[-1] in "。！？" else "?")


#: Which sentence each kind of request starts from (so that kinds of one chunk differ).
_PICK = {"generated_qa": 0, "generated_pair": 0, "generated_question": 1,
         "generated_conversation": 2}


def answer_generation(text: str, schema_name: str, schema: dict[str, Any]) -> str | None:
    """The answer to a generation request (``schema_name`` ``generated_*``), else None."""
    if schema_name == "answer_quote":  # which sentence answers an unanswerable question?
        return '{"quote": "NONE"}'
    documents = _DOCUMENT.findall(text)
    if not schema_name.startswith("generated_") or not documents:
        return None
    per_doc = [sentences(d) or [d.strip()] for d in documents]
    first = per_doc[0]
    pick = _PICK.get(schema_name, 0) + (len(documents) > 1)
    if schema_name == "generated_question":
        return json.dumps({"question": _question(first[pick % len(first)]) + " (2099)"},
                          ensure_ascii=False)
    if schema_name == "generated_conversation":
        n = schema["properties"]["turns"]["minItems"]
        turns = [{"question": _question(s), "answer": s, "evidence": [s]}
                 for s in (first[(pick + k) % len(first)] for k in range(n))]
        return json.dumps({"turns": turns}, ensure_ascii=False)
    quotes = [sents[pick % len(sents)] for sents in per_doc]
    if schema_name == "generated_pair":
        return json.dumps({"question": _question(quotes[0]), "answer": " ".join(quotes),
                           "evidence_1": quotes[:1], "evidence_2": quotes[1:]},
                          ensure_ascii=False)
    return json.dumps({"question": _question(quotes[0]), "answer": " ".join(quotes),
                       "evidence": quotes}, ensure_ascii=False)


def answer_verdict(text: str) -> str | None:
    """Yes/No for the checks' questions: No to "do the documents answer it", else Yes."""
    tail = text.strip().splitlines()[-1] if text.strip() else ""
    if "Do the documents answer the question?" in tail or "文档是否回答了这个问题" in tail:
        return "No. They only touch on the topic."
    if "Yes or No" in tail or "Yes 或 No" in tail:
        return "Yes. It holds."
    return None


@dataclass
class GenerationJudge:
    """The scripted judge's behaviour; ``overrides`` maps a check to a different answer:
    ``quote`` (evidence text), ``evidence: first`` (only the first passage's quote),
    ``question`` (the question), ``raw`` (an unreadable answer),
    ``standalone`` / ``supported`` / ``answered`` (the verdict given), ``quoted`` (the
    sentence given as the answer to an unanswerable question; default NONE)."""

    overrides: dict[str, str] = field(default_factory=dict)
    fail: Exception | None = None

    def __call__(self, request: JudgeRequest) -> str | Exception:
        if self.fail is not None:
            return self.fail
        text = "\n".join(m["content"] for m in request.messages)
        if request.schema_name == "answer_quote" and "quoted" in self.overrides:
            return json.dumps({"quote": self.overrides["quoted"]}, ensure_ascii=False)
        if request.schema_name.startswith("generated_") or request.schema_name == "answer_quote":
            if "raw" in self.overrides:
                return self.overrides["raw"]
            answer = answer_generation(text, request.schema_name, request.json_schema or {})
            assert answer is not None, text
            obj = json.loads(answer)
            for key in ("evidence", "evidence_1", "evidence_2"):
                if "quote" in self.overrides and key in obj:
                    obj[key] = [self.overrides["quote"]]
            if self.overrides.get("evidence") == "first" and "evidence_1" in obj:
                obj["evidence_2"] = obj["evidence_1"]
            if "question" in self.overrides:
                obj["question"] = self.overrides["question"]
            return json.dumps(obj, ensure_ascii=False)
        tail = text.strip().splitlines()[-1]
        for check, needle in (("standalone", "understood on its own"),
                              ("standalone", "能否单独看懂"),
                              ("supported", "supported by the evidence"),
                              ("supported", "得到证据的支持"),
                              ("answered", "Do the documents answer")):
            if needle in tail and check in self.overrides:
                return self.overrides[check]
        verdict = answer_verdict(text)
        assert verdict is not None, text
        return verdict


def generation_judge(**overrides: str) -> FakeJudge:
    """A :class:`FakeJudge` running :class:`GenerationJudge` with ``overrides``."""
    return FakeJudge(GenerationJudge(dict(overrides)), id="fake:generate")
