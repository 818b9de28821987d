"""Documents from a JSON Lines file: one a line, its text in a string ``text`` field.

An optional ``id`` (a string or an integer) names the document instead of ``FILE#LINE``; an
optional string ``title`` is kept. Blank lines are skipped; every bad line is one problem,
naming the file and line.

Example:
    >>> records = jsonl_records("kb.jsonl", '{"text": "Paris is in France.", "id": "kb-1"}\\n'
    ...                                     '\\n{"text": "Rome is in Italy.", "title": "Rome"}\\n')
    >>> [(r.line, r.id, r.title) for r in records]
    [(1, 'kb-1', None), (3, None, 'Rome')]
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from ._decode import Unreadable

__all__ = ["JsonlRecord", "jsonl_records"]

_SHAPE = '{"text": "...", "id": "optional", "title": "optional"}'


@dataclass(frozen=True)
class JsonlRecord:
    """One line's document: its 1-based ``line``, ``text``, and the ``id`` and ``title`` it
    gave (None when it gave none)."""

    line: int
    text: str
    id: str | None
    title: str | None


def jsonl_records(label: str, content: str) -> list[JsonlRecord]:
    """The documents of the JSON Lines ``content`` of the file ``label``.

    Raises:
        Unreadable: listing every bad line (not JSON, not an object, no string ``text``, a
            blank ``text``, an ``id`` or ``title`` of the wrong type), or the file has no
            lines at all.
    """
    records: list[JsonlRecord] = []
    problems: list[str] = []
    for number, line in enumerate(content.split("\n"), start=1):  # not splitlines: U+2028
        if not line.strip():
            continue
        where = f"{label} line {number}"
        try:
            value = json.loads(line)
        except json.JSONDecodeError as e:
            problems.append(f"{where}: not JSON ({e.msg} at column {e.colno}). Fix: write one "
                            f"JSON object per line, e.g. {_SHAPE}.")
            continue
        except RecursionError:
            problems.append(f"{where}: JSON nested too deeply to read. Fix: write one flat "
                            f"object per line, e.g. {_SHAPE}.")
            continue
        if not isinstance(value, dict):
            problems.append(f"{where}: expected a JSON object, got {_kind(value)}. Fix: write "
                            f"one object per line, e.g. {_SHAPE}.")
            continue
        record, problem = _record(where, number, value)
        if problem:
            problems.append(problem)
        elif record is not None:
            records.append(record)
    if problems:
        raise Unreadable(*problems)
    if not records:
        raise Unreadable(f"{label}: the file has no lines (it is empty or blank). Fix: write "
                         f"one document per line, e.g. {_SHAPE}, or leave the file out.")
    return records


def _record(where: str, line: int, value: dict[str, object]) -> tuple[
        JsonlRecord | None, str | None]:
    text, given_id, title = value.get("text"), value.get("id"), value.get("title")
    if not isinstance(text, str):
        got = "no 'text' field" if "text" not in value else f"'text' is {_kind(text)}"
        keys = ", ".join(map(repr, list(value)[:8])) or "none"
        return None, (f"{where}: {got} (its fields: {keys}). Fix: put the document's text in "
                      f"a string field 'text', e.g. {_SHAPE}.")
    if not text.strip():
        return None, f"{where}: 'text' is blank. Fix: give the document's text, or drop the line."
    if given_id is not None and (isinstance(given_id, bool) or not isinstance(given_id, (str, int))
                                 or not str(given_id).strip()):
        return None, (f"{where}: 'id' is {_kind(given_id)}. Fix: give a non-empty string or an "
                      "integer, or leave it out (the document is then named FILE#LINE).")
    if title is not None and not isinstance(title, str):
        return None, f"{where}: 'title' is {_kind(title)}. Fix: give a string, or leave it out."
    return JsonlRecord(line, text, None if given_id is None else str(given_id), title), None


def _kind(value: object) -> str:
    """How a message names a JSON value's type."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, str):
        return "an empty string" if not value.strip() else "a string"
    if isinstance(value, (int, float)):
        return "a number"
    return "an array" if isinstance(value, list) else "an object"
