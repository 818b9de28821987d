"""Usefulness verdicts for retrieved chunks (context precision).

Example:
    >>> parse_usefulness('{"verdicts": [{"useful": true, "reason": "has the date"}]}', 1)
    [(True, 'has the date')]
"""

from __future__ import annotations

import json
from typing import Any

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
    try:
        obj = json.loads(text)
    except (json.JSONDecodeError, ValueError):
        return None
    items = obj.get("verdicts") if isinstance(obj, dict) else None
    if not isinstance(items, list) or len(items) != n:
        return None
    out = []
    for item in items:
        if not isinstance(item, dict) or not isinstance(item.get("useful"), bool):
            return None
        out.append((item["useful"], str(item.get("reason") or "")))
    return out
