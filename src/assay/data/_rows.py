"""Records (dicts) to validated rows: aliases, ``--map``, types and conversations.

Example:
    >>> problems = []
    >>> rows = list(validated_rows([(1, {"query": "Q?", "response": "A."}),
    ...                             (2, {"answer": "x", "response": "y"})], "d.jsonl", {}, problems))
    >>> [(r.id, r.question, r.answer) for r in rows]
    [('1', 'Q?', 'A.')]
    >>> problems
    ["d.jsonl line 2: fields 'answer' and 'response' both give the answer, with different values. Fix: keep one of them, or choose one with mapping={'answer': 'COLUMN'}."]
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from ..errors import option
from ._anthropic import expand_message, system_turn
from ._clean import FieldLimits, TooLongInt, clean_record
from ._models import Citation, Row, Turn
from ._tools import message_tool_fields, reference_calls, tool_results_problems, tool_specs

__all__ = ["ALIASES", "duplicate_id_problem", "validated_rows"]

#: Accepted input names for each evaluable field (first match wins).
ALIASES: dict[str, tuple[str, ...]] = {
    "question": ("question", "query"),
    "answer": ("answer", "response"),
    "ground_truth": ("ground_truth", "reference", "truth"),
    "context": ("context", "contexts"),
}
_TEXT_FIELDS = ("question", "answer", "ground_truth")
_ROLES = ("system", "user", "assistant", "tool")


def validated_rows(records: Iterable[tuple[int, dict[str, Any]]], source: str,
                   mapping: Mapping[str, str], problems: list[str],
                   seen: dict[str, int] | None = None, *,
                   limits: FieldLimits | None = None, unit: str = "line",
                   answer_required: bool = True) -> Iterator[Row]:
    """The valid rows of ``records``, one at a time; every problem is added to ``problems``.

    ``answer_required=False`` (an app under test answers the questions) lets a QA row with a
    ``question`` have no ``answer``.

    ``seen`` (``{id: line}``) checks ids for duplicates; ``None`` leaves that to the caller.
    ``limits`` checks every value first (see :func:`clean_record`); ``None`` when the reader
    already did. ``unit`` names a record's position in messages (``item`` for a JSON array).
    """
    id_key = mapping.get("id", "id")
    for line, rec in records:
        where = f"{source} {unit} {line}"
        before = len(problems)
        if limits is not None:
            rec = clean_record(rec, where, limits, problems, id_key=id_key)
        row = _row(rec, line, where, mapping, problems, answer_required)
        if row is None or len(problems) > before:
            continue
        if seen is not None:
            if row.id in seen:
                problems.append(duplicate_id_problem(where, row.id, seen[row.id], unit))
                continue
            seen[row.id] = line
        yield row


def duplicate_id_problem(where: str, row_id: str, first_line: int, unit: str = "line") -> str:
    """The message for a row whose id an earlier row (``first_line``) already has."""
    return (f"{where}, field 'id': duplicate id {_short(row_id)!r} (also on {unit} {first_line}). "
            "Fix: give every row a unique id.")


def _short(text: str, width: int = 60) -> str:
    return text if len(text) <= width else text[: width - 3] + "..."


def _show(value: Any, width: int = 40) -> str:
    """A short, printable preview of a value for a message."""
    if isinstance(value, (dict, list)):
        return f"({len(value)} item{'s' if len(value) != 1 else ''})"
    if isinstance(value, TooLongInt):
        return repr(value)
    try:
        text = json.dumps(value, default=str, ensure_ascii=False)
    except ValueError:  # an int too long to print, a circular structure
        return f"<{type(value).__name__}>"
    return text if len(text) <= width else text[: width - 3] + "..."


def _pick(rec: dict[str, Any], field: str, mapping: Mapping[str, str], where: str,
          problems: list[str]) -> tuple[str | None, Any]:
    """(column, value) for ``field``: the mapped column, else the first alias present. Two
    aliases with different values are a problem (which one counts would be a guess)."""
    if field in mapping:
        col = mapping[field]
        return (col, rec.get(col)) if col in rec else (col, None)
    names = ALIASES.get(field)
    if names is None:  # a field with no aliases (id, messages)
        value = rec.get(field)
        return (None, None) if value is None else (field, value)
    first: str | None = None
    value = None
    for name in names:
        val = rec.get(name)
        if val is None:
            continue
        if first is None:
            first, value = name, val
        elif not _same(val, value):
            problems.append(f"{where}: fields {first!r} and {name!r} both give the {field}, "
                            f"with different values. Fix: keep one of them, or choose one with "
                            f"{option('mapping', {field: 'COLUMN'})}.")
    return first, value


def _same(a: Any, b: Any) -> bool:
    def text(v: Any) -> Any:
        if isinstance(v, list) and all(isinstance(x, str) for x in v):
            return "\n\n".join(v)
        return v
    return bool(text(a) == text(b))


def _reported(value: Any) -> bool:
    """Whether :func:`clean_record` already reported this value (no second problem for it)."""
    return isinstance(value, TooLongInt) or (isinstance(value, float) and not math.isfinite(value))


def _id(raw: Any, line: int, where: str, problems: list[str]) -> str:
    if raw is None:
        return str(line)
    if _reported(raw):
        return str(line)
    if isinstance(raw, bool) or not isinstance(raw, (str, int)):
        problems.append(f"{where}, field 'id': expected text or an integer, got "
                        f"{type(raw).__name__} {_show(raw)}. Fix: use a string id.")
        return str(line)
    try:
        text = str(raw)
    except ValueError:  # an integer too long to print: already reported
        return str(line)
    return text if text != "" else str(line)


def _row(rec: dict[str, Any], line: int, where: str, mapping: Mapping[str, str],
         problems: list[str], answer_required: bool = True) -> Row | None:
    if isinstance(rec.get("conversation"), dict) and "messages" not in rec:
        rec = {**rec, **rec["conversation"]}  # Azure-style {"conversation": {"messages": [...]}}
    for field, col in mapping.items():
        if col not in rec:
            problems.append(f"{where}: column {col!r} (from {option('mapping', {field: col})}) is missing. "
                            f"Fix: check the column name; the row has {sorted(map(str, rec))}.")
    id_key, raw_id = _pick(rec, "id", mapping, where, problems)
    row_id = _id(raw_id, line, where, problems)
    used = {id_key} if id_key else set()
    msg_key, messages = _pick(rec, "messages", mapping, where, problems)
    if messages is not None:
        turns = _turns(messages, where, problems)
        gt_key, truth = _pick(rec, "ground_truth", mapping, where, problems)
        if truth is not None and not isinstance(truth, str):
            problems.append(f"{where}, field {gt_key!r}: expected text, got "
                            f"{type(truth).__name__}. Fix: write it as a JSON string.")
            return None
        tools = rec.get("tools")
        specs = None if tools is None else tool_specs(tools, where, problems)
        refs = rec.get("reference_tool_calls")
        expected = None if refs is None else reference_calls(refs, where, problems)
        chunks, joined = _documents(rec)
        extra = {k: v for k, v in rec.items() if k not in {
            msg_key, "conversation", gt_key, "tools", "reference_tool_calls", "system", *used,
            *(("contexts",) if chunks else ()),
            *(("context",) if chunks and rec.get("context") == joined else ())}}
        system = None if rec.get("system") is None else system_turn(rec["system"], where,
                                                                       problems)
        if turns is None or (tools is not None and specs is None) or (
                refs is not None and expected is None) or (rec.get("system") and not system):
            return None
        turns = [system, *turns] if system else turns
        return Row(id=row_id, line=line, messages=turns, ground_truth=truth or None,
                   tools=specs, reference_tool_calls=expected, extra=extra, contexts=chunks,
                   context=joined)
    values: dict[str, Any] = {}
    mistyped: set[str] = set()
    for field in _TEXT_FIELDS:
        key, value = _pick(rec, field, mapping, where, problems)
        if key:
            used.add(key)
        if value is None:
            continue
        if not isinstance(value, str):
            if not _reported(value):
                problems.append(f"{where}, field {key!r}: expected text, got "
                                f"{type(value).__name__} {_show(value)}. Fix: write it as a "
                                "JSON string.")
            mistyped.add(field)
            continue
        values[field] = value
    key, ctx = _pick(rec, "context", mapping, where, problems)
    if key:
        used.add(key)
    if isinstance(ctx, list):
        bad = [i for i, c in enumerate(ctx) if not isinstance(c, str)]
        if bad:
            problems.append(f"{where}, field {key!r}: item {bad[0]} is not text. "
                            "Fix: make contexts a list of strings.")
        else:
            values["contexts"] = ctx
            values["context"] = "\n\n".join(ctx)
    elif ctx is not None:
        if isinstance(ctx, str):
            values["context"] = ctx
        else:
            problems.append(f"{where}, field {key!r}: expected text or a list of texts, got "
                            f"{type(ctx).__name__} {_show(ctx)}. Fix: write it as a string or "
                            "a list of strings.")
    answer_to_come = not answer_required and "question" in values  # the app answers it
    if "answer" not in values and "answer" not in mistyped and not answer_to_come:
        hint = ("add an 'answer' (or 'response') field, or map a column with "
                f"{option('mapping', {'answer': 'COLUMN'})}")
        if answer_required and "question" in values:
            hint += f", or let the app under test answer the question ({option('target')})"
        problems.append(f"{where}, field 'answer': missing. Fix: {hint}.")
    extra = {k: v for k, v in rec.items() if k not in used}
    return Row(id=row_id, line=line, extra=extra, **values)


def _documents(rec: dict[str, Any]) -> tuple[list[str] | None, str | None]:
    """A conversation's retrieved documents (a trace's ``contexts``, a list of texts) and
    their joined text; (None, None) without them (then ``contexts`` stays an extra field)."""
    chunks = rec.get("contexts")
    if not isinstance(chunks, list) or not chunks or not all(isinstance(c, str) for c in chunks):
        return None, None
    return chunks, "\n\n".join(chunks)


def _turns(messages: Any, where: str, problems: list[str]) -> list[Turn] | None:
    if not isinstance(messages, list) or not messages:
        got = "an empty list" if messages == [] else f"{type(messages).__name__} {_show(messages)}"
        problems.append(f"{where}, field 'messages': expected a non-empty list of "
                        f"{{role, content}} objects, got {got}. Fix: write the conversation as "
                        "a JSON list.")
        return None
    before_all = len(problems)  # content as a list of blocks: see _anthropic
    flat = [x for i, m in enumerate(messages) for x in (
        expand_message(m, f"messages[{i}]", where, problems)
        if isinstance(m, dict) and isinstance(m.get("content"), list)
        else [(m, f"messages[{i}]", "tool_call_id")])]
    turns: list[Turn] = []
    ok = len(problems) == before_all
    for m, f, _ in flat:
        if not isinstance(m, dict):
            problems.append(f"{where}, field '{f}': expected an object, got "
                            f"{type(m).__name__} {_show(m)}. Fix: use {{role, content}}.")
            ok = False
            continue
        role, content = m.get("role"), m.get("content")
        if role not in _ROLES:
            got = "missing" if role is None else _show(role)
            problems.append(f"{where}, field '{f}.role': got {got}. Must be one of "
                            f"{', '.join(_ROLES)}. Fix: use one of them.")
            ok = False
        before = len(problems)
        calls, call_id = message_tool_fields(m, role, f"{where}, field '{f}", problems)
        if len(problems) > before or calls:
            ok = ok and len(problems) == before
            if content is None and role == "assistant":
                content = ""  # a message that only calls tools (or whose calls are reported)
        if not isinstance(content, str):
            got = "missing" if content is None else f"{type(content).__name__}, not text"
            problems.append(f"{where}, field '{f}.content': {got}. Fix: write it as a string.")
            ok = False
        if m.get("context") is None and m.get("citations") is not None:  # as a store keeps it
            citations = _citations({"citations": m["citations"]}, f"{where}, field '{f}",
                                   problems)
        else:
            citations = _citations(m.get("context"), f"{where}, field '{f}.context", problems)
        if citations is None:
            ok = False
        if ok and isinstance(content, str):
            turns.append(Turn.model_validate({
                "role": role, "content": content, "citations": citations or [],
                "tool_calls": calls or None, "tool_call_id": call_id}))
    if ok:
        found = tool_results_problems(turns, where, [f"{f}.{key}" for _, f, key in flat])
        problems.extend(found)
        ok = not found
    return turns if ok else None


def _citations(ctx: Any, where: str, problems: list[str]) -> list[Citation] | None:
    if ctx is None:
        return []
    if isinstance(ctx, str):  # a plain context string on a turn counts as one citation
        return [Citation(content=ctx)]
    raw = ctx.get("citations") if isinstance(ctx, dict) else None
    if not isinstance(raw, list):
        problems.append(f"{where}.citations': expected a list of {{id, title, content}}. "
                        "Fix: write context as {\"citations\": [...]}.")
        return None
    out: list[Citation] = []
    for j, c in enumerate(raw):
        if not isinstance(c, dict) or not isinstance(c.get("content"), str):
            problems.append(f"{where}.citations[{j}].content': missing or not text. "
                            "Fix: give each citation a text 'content'.")
            return None
        if c.get("title") is not None and not isinstance(c["title"], str):
            problems.append(f"{where}.citations[{j}].title': expected text, got "
                            f"{type(c['title']).__name__}. Fix: write the title as a string.")
            return None
        cid = c.get("id")
        if cid is not None and (isinstance(cid, bool) or not isinstance(cid, (str, int))):
            problems.append(f"{where}.citations[{j}].id': expected text or an integer, got "
                            f"{type(cid).__name__}. Fix: write the id as a string.")
            return None
        out.append(Citation.model_validate(
            {**c, "id": None if cid is None else _id(cid, j, where, problems)}))
    return out
