"""How the terminal writes a rate (the one rule of :func:`assay._text.percent`), a file name
or a message naming files (:func:`assay._text.printable`: control characters escaped) and a
judge's prompt tokens.

Example:
    >>> percent(0.2308), percent(-0.05, signed=True), percent(None)
    ('23.1%', '-5.0%', '–')
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .._text import percent, printable

__all__ = ["percent", "printable", "prompt_tokens_text"]


def prompt_tokens_text(judge: Mapping[str, Any]) -> str:
    """The prompt tokens of a summary's judge stats, with those the backend computed (the
    rest came from its prompt cache) where it said.

    Example:
        >>> prompt_tokens_text({"prompt_tokens": 11788})
        '11788 prompt'
        >>> prompt_tokens_text({"prompt_tokens": 11788, "processed_prompt_tokens": 5254})
        "11788 prompt tokens (5254 processed, the rest from the judge's prompt cache)"
        >>> prompt_tokens_text({"prompt_tokens": 40, "processed_prompt_tokens": 40})
        '40 prompt tokens (all processed)'
    """
    sent, processed = judge["prompt_tokens"], judge.get("processed_prompt_tokens")
    if processed is None:
        return f"{sent} prompt"
    if processed >= sent:
        return f"{sent} prompt tokens (all processed)"
    return f"{sent} prompt tokens ({processed} processed, the rest from the judge's prompt cache)"
