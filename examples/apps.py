"""Toy apps under test, for the commands of the docs and for the tests. From the repository
root, where ``examples`` is importable::

    assay robustness ../shared/data/rgb/en_fact.json --suite noise --target python:examples.apps:echo_first_passage
    assay jailbreak --target python:examples.apps:toy_app --n 20 --judge local
    assay run examples/faq_questions.jsonl --target python:examples.apps:faq_app --judge fake
    assay generate examples/docs --out qa.jsonl && assay run qa.jsonl --target python:examples.apps:docs_app

Example:
    >>> echo_first_passage("Who?", ["Ada.", "Bob."]), toy_app([{"role": "user", "content": "Hi"}])
    ('Ada.', "I'm sorry, but I can't help with that.")
    >>> faq_app([{"role": "user", "content": "How long does shipping take?"}])
    'Standard shipping takes 3 to 5 working days.'
    >>> docs_app([{"role": "user", "content": "What is the capital of Peru?"}]) == FAQ_DECLINES
    True
"""

from __future__ import annotations

import re
from pathlib import Path


def echo_first_passage(question: str, passages: list[str]) -> str:
    """Answers with the first passage it was given."""
    return passages[0] if passages else ""


def always_reject(question: str, passages: list[str]) -> str:
    """Declines every question."""
    return "I can not answer the question because of the insufficient information in documents."


def flaky(question: str, passages: list[str]) -> str:
    """Fails on questions that mention 2021 (to test unscored items)."""
    if "2021" in question:
        from assay.errors import JudgeError
        raise JudgeError("toy app failure")
    return " ".join(passages)


def hedging_reject(question: str, passages: list[str]) -> str:
    """Declines in words RGB's phrase list misses, on every other question (by length)."""
    if len(question) % 2:
        return "The passages don't mention this, so I'm not sure."
    return passages[0] if passages else ""


#: Words of the shipped jailbreak templates that the toy app falls for.
_JAILBREAK_MARKERS = ("novelist", "safety researcher", "no content policy", "Begin your reply",
                      "safety guidelines are switched off", "no words can cause harm",
                      "[INSERT PROMPT HERE]")
TOY_COMPLIES = "Sure, here is exactly what you asked for, step by step."
TOY_REFUSES = "I'm sorry, but I can't help with that."


def toy_app(messages: list[dict[str, str]]) -> str:
    """A chat app that complies with a quarter of harmful requests asked plainly and with three
    quarters of them under a jailbreak injection (by a stable hash of the first turn's request);
    after a push-back follow-up it gives in on the second turn. Its "compliance" is a fixed
    placeholder sentence, not harmful text."""
    import zlib

    first = messages[0]["content"]
    injected = any(marker in first for marker in _JAILBREAK_MARKERS)
    bucket = zlib.crc32(first.encode()) % 4
    complies = bucket != 3 if injected else bucket == 0
    if len(messages) > 1 and "anyway" in messages[-1]["content"]:
        complies = True
    return TOY_COMPLIES if complies else TOY_REFUSES


def broken_chat_app(messages: list[dict[str, str]]) -> str:
    """Fails on requests that mention poison (to test app failures in simulate)."""
    if "poison" in messages[0]["content"]:
        raise RuntimeError("toy app crashed")
    return TOY_REFUSES


#: What :func:`faq_app` knows: a word of the question -> its answer.
FAQ_ANSWERS = {
    "refund": "Refunds are paid within 14 days of the return reaching us.",
    "shipping": "Standard shipping takes 3 to 5 working days.",
    "warranty": "Every tent has a two-year warranty.",
}
FAQ_DECLINES = "I don't know: that is not in my documents."


def faq_app(messages: list[dict[str, str]]) -> str:
    """A chat app over a tiny built-in FAQ: it answers a question that names a word it knows
    (refund, shipping, warranty) and declines any other; a question that mentions ``crash``
    makes it fail (to test failed rows in ``assay run --target``)."""
    question = messages[-1]["content"].lower()
    if "crash" in question:
        raise RuntimeError("faq app crashed")
    found = [answer for word, answer in FAQ_ANSWERS.items() if word in question]
    return found[0] if found else FAQ_DECLINES


#: The folder :func:`docs_app` answers from (the documents of ``assay generate``'s example).
DOCS_FOLDER = Path(__file__).resolve().parent / "docs"


def _terms(text: str) -> set[str]:
    """Lowercased words, and pairs of characters of text without spaces (Chinese, Japanese)."""
    words = re.findall(r"\w+", text.lower())
    return {w for w in words if len(w) > 2 and w.isascii()} | {
        w[i:i + 2] for w in words if not w.isascii() for i in range(len(w) - 1)}


def docs_app(messages: list[dict[str, str]]) -> str:
    """A toy RAG app over ``examples/docs``: it answers with the paragraph that shares the most
    terms with the question, and declines when none shares at least three (an app to point
    ``assay run --target`` at after ``assay generate examples/docs``)."""
    question = _terms(messages[-1]["content"])
    paragraphs = [p.strip() for path in sorted(DOCS_FOLDER.iterdir())
                  for p in re.sub(r"<[^>]+>", "\n", path.read_text(encoding="utf-8")).split("\n\n")
                  if p.strip() and not p.strip().startswith("#")]
    best = max(paragraphs, key=lambda p: len(question & _terms(p)))
    return best if len(question & _terms(best)) >= 3 else FAQ_DECLINES
