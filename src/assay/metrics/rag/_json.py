"""Reading the JSON lists that decomposition and verdict answers carry.

Example:
    >>> json_list('{"verdicts": [{"useful": true}]}', "verdicts", n=1)
    [{'useful': True}]
    >>> json_list('{"verdicts": []}', "verdicts", n=2) is None
    True
    >>> text_list('{"statements": [" a ", ""]}', "statements")
    ['a']
"""

from __future__ import annotations

import json
from typing import Any

__all__ = ["json_list", "text_list"]


def json_list(text: str, key: str, *, n: int | None = None) -> list[Any] | None:
    """The list under ``key`` of a JSON object answer (of exactly ``n`` items when given)."""
    try:
        obj = json.loads(text)
    except (json.JSONDecodeError, ValueError):
        return None
    items = obj.get(key) if isinstance(obj, dict) else None
    if not isinstance(items, list) or (n is not None and len(items) != n):
        return None
    return items


def text_list(text: str, key: str) -> list[str] | None:
    """The non-blank strings listed under ``key``, stripped; ``None`` unless all are strings."""
    items = json_list(text, key)
    if items is None or not all(isinstance(x, str) for x in items):
        return None
    return [x.strip() for x in items if x.strip()]
