"""Usefulness verdicts for retrieved chunks (context precision).

Example:
    >>> parse_usefulness('{"verdicts": [{"useful": true, "reason": "has the date"}]}', 1)
    [(True, 'has the date')]
"""

from __future__ import annotations

from typing import Any

from ._json import json_list

__all__ = ["CHUNKS_SCHEMA", "parse_usefulness"]

CHUNKS_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"verdicts": {"type": "array", "items": {
        "type": "object",
        "properties": {"useful": {"type": "boolean"}, "reason": {"type": "string"}},
        "required": ["useful", "reason"], "additionalProperties": False}}},
    "required": ["verdicts"], "additionalProperties": False,
}


def parse_usefulness(text: str, n: int) -> list[tuple[bool, str]] | None:
    """``n`` (useful, reason) pairs, or ``None`` when the answer is not valid."""
    items = json_list(text, "verdicts", n=n)
    if items is None or not all(isinstance(i, dict) and isinstance(i.get("useful"), bool)
                                for i in items):
        return None
    return [(i["useful"], str(i.get("reason") or "")) for i in items]
