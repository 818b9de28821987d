"""Toy apps under test for ``assay robustness --target python:tests.apps:...``."""

from __future__ import annotations


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
