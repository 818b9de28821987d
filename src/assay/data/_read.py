"""Read JSONL / JSON / CSV datasets into validated rows, reporting every problem at once.

Example:
    >>> import json, tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "d.jsonl"
    >>> _ = p.write_text(json.dumps({"query": "Q?", "response": "A."}) + "\\n")
    >>> [(r.id, r.question, r.answer) for r in read_dataset(p)]
    [('1', 'Q?', 'A.')]
"""

from __future__ import annotations

import csv
import json
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

from ..errors import DataError
from ._models import Citation, Row, Turn

__all__ = ["ALIASES", "parse_mapping", "read_dataset", "read_records", "rows_from_records"]

#: Accepted input names for each evaluable field (first match wins).
ALIASES: dict[str, tuple[str, ...]] = {
    "question": ("question", "query"),
    "answer": ("answer", "response"),
    "ground_truth": ("ground_truth", "reference", "truth"),
    "context": ("context", "contexts"),
}
_TEXT_FIELDS = ("question", "answer", "ground_truth")
_ROLES = ("system", "user", "assistant", "tool")


def parse_mapping(pairs: Iterable[str]) -> dict[str, str]:
    """Parse ``--map`` options (``field=column``) into ``{field: column}``.

    Example:
        >>> parse_mapping(["answer=output", "question=prompt"])
        {'answer': 'output', 'question': 'prompt'}
    """
    out: dict[str, str] = {}
    allowed = sorted(ALIASES) + ["id", "messages"]
    for pair in pairs:
        field, sep, column = pair.partition("=")
        field, column = field.strip(), column.strip()
        if not sep or not field or not column:
            raise DataError([f"--map {pair!r}: expected FIELD=COLUMN, e.g. answer=output"])
        if field not in allowed:
            raise DataError([f"--map {pair!r}: unknown field {field!r}. Must be one of {allowed}"])
        out[field] = column
    return out


def read_dataset(path: str | Path, *, mapping: Mapping[str, str] | None = None) -> list[Row]:
    """Read and validate a whole dataset file (``.jsonl``, ``.json`` array, or ``.csv``).

    Raises:
        DataError: listing every problem in the file (file, line, field and fix), before any
            row is evaluated.
    """
    path = Path(path)
    if not path.is_file():
        raise DataError([f"{path}: file not found. Fix: check the path."])
    problems: list[str] = []
    records = list(read_records(path, problems))
    rows = _validate(records, str(path), mapping or {}, problems)
    if problems:
        raise DataError(problems, source=str(path))
    if not rows:
        raise DataError([f"{path}: the file has no rows. Fix: add at least one row."])
    return rows


def rows_from_records(records: Iterable[Mapping[str, Any]], *, source: str = "<records>",
                      mapping: Mapping[str, str] | None = None) -> list[Row]:
    """Validate in-memory dicts the same way as a file (``line`` is the 1-based position)."""
    problems: list[str] = []
    numbered = [(i, dict(r)) if isinstance(r, Mapping) else (i, r)
                for i, r in enumerate(records, start=1)]
    checked: list[tuple[int, dict[str, Any]]] = []
    for i, rec in numbered:
        if isinstance(rec, dict):
            checked.append((i, rec))
        else:
            problems.append(f"{source} item {i}: expected an object, got {type(rec).__name__}")
    rows = _validate(checked, source, mapping or {}, problems)
    if problems:
        raise DataError(problems, source=source)
    if not rows:
        raise DataError([f"{source}: there are no rows. Fix: give at least one record."])
    return rows


def read_records(path: Path, problems: list[str]) -> Iterable[tuple[int, dict[str, Any]]]:
    """(line, object) for each record of a ``.jsonl``, ``.json`` array or ``.csv`` file, without
    validating fields; a malformed record is added to ``problems`` (file, line, fix) and skipped.
    """
    suffix = path.suffix.lower()
    if suffix == ".csv":
        yield from _csv_records(path, problems)
        return
    if suffix == ".json" and _starts_with_bracket(path):
        try:
            items = json.loads(path.read_text(encoding="utf-8-sig"))
        except json.JSONDecodeError as e:
            problems.append(f"{path} line {e.lineno}: invalid JSON ({e.msg}). Fix: repair the JSON array.")
            return
        for i, item in enumerate(items, start=1):
            if isinstance(item, dict):
                yield i, item
            else:
                problems.append(f"{path} item {i}: expected an object, got {type(item).__name__}.")
        return
    # JSONL is read a line at a time (memory does not grow with the file). newline="\n" splits
    # on "\n" only: universal newlines, like str.splitlines(), would also split on U+2028,
    # U+0085, ... which JSON allows raw inside strings, and cut a valid line in two.
    with path.open(encoding="utf-8-sig", newline="\n") as f:
        for lineno, line in enumerate(f, start=1):
            if not line.strip():
                continue
            try:
                obj = json.loads(line)
            except json.JSONDecodeError as e:
                problems.append(f"{path} line {lineno}: invalid JSON ({e.msg} at column "
                                f"{e.colno}). Fix: make the line one complete JSON object.")
                continue
            if not isinstance(obj, dict):
                problems.append(f"{path} line {lineno}: expected a JSON object, got "
                                f"{type(obj).__name__}. Fix: write one object per line.")
                continue
            yield lineno, obj


def _starts_with_bracket(path: Path) -> bool:
    """Whether the file's first non-blank character is ``[`` (a JSON array, not JSONL)."""
    with path.open(encoding="utf-8-sig") as f:
        while chunk := f.read(4096):
            stripped = chunk.lstrip()
            if stripped:
                return stripped.startswith("[")
    return False


def _csv_records(path: Path, problems: list[str]) -> Iterable[tuple[int, dict[str, Any]]]:
    with path.open(newline="", encoding="utf-8-sig") as f:
        reader = csv.DictReader(f)
        for rec in reader:
            lineno = reader.line_num
            out: dict[str, Any] = {}
            for key, value in rec.items():
                if key is None:
                    problems.append(f"{path} line {lineno}: more values than header columns. "
                                    "Fix: quote values that contain commas.")
                    continue
                if value is not None and key in ("contexts", "messages") and value.strip()[:1] == "[":
                    try:
                        value = json.loads(value)
                    except json.JSONDecodeError:
                        problems.append(f"{path} line {lineno}, field {key!r}: not a JSON list. "
                                        "Fix: write it as a JSON array.")
                out[key] = value if value != "" else None
            yield lineno, out


def _validate(records: Iterable[tuple[int, dict[str, Any]]], source: str,
              mapping: Mapping[str, str], problems: list[str]) -> list[Row]:
    return list(validated_rows(records, source, mapping, problems, seen={}))


def validated_rows(records: Iterable[tuple[int, dict[str, Any]]], source: str,
                   mapping: Mapping[str, str], problems: list[str],
                   seen: dict[str, int] | None = None) -> Iterator[Row]:
    """The valid rows of ``records``, one at a time; every problem is added to ``problems``.
    ``seen`` (``{id: line}``) checks ids for duplicates; ``None`` leaves that to the caller."""
    for line, rec in records:
        where = f"{source} line {line}"
        before = len(problems)
        row = _row(rec, line, where, mapping, problems)
        if row is None or len(problems) > before:
            continue
        if seen is not None:
            if row.id in seen:
                problems.append(duplicate_id_problem(where, row.id, seen[row.id]))
                continue
            seen[row.id] = line
        yield row


def duplicate_id_problem(where: str, row_id: str, first_line: int) -> str:
    """The message for a row whose id an earlier row (``first_line``) already has."""
    return (f"{where}, field 'id': duplicate id {row_id!r} (also on line {first_line}). "
            "Fix: give every row a unique id.")


def _pick(rec: dict[str, Any], field: str, mapping: Mapping[str, str]) -> tuple[str | None, Any]:
    if field in mapping:
        col = mapping[field]
        return (col, rec.get(col)) if col in rec else (col, None)
    for name in ALIASES.get(field, (field,)):
        if rec.get(name) is not None:
            return name, rec[name]
    return None, None


def _row(rec: dict[str, Any], line: int, where: str, mapping: Mapping[str, str],
         problems: list[str]) -> Row | None:
    if isinstance(rec.get("conversation"), dict) and "messages" not in rec:
        rec = {**rec, **rec["conversation"]}  # Azure-style {"conversation": {"messages": [...]}}
    for field, col in mapping.items():
        if col not in rec:
            problems.append(f"{where}: column {col!r} (from --map {field}={col}) is missing. "
                            f"Fix: check the column name; the row has {sorted(rec)}.")
    id_key, raw_id = _pick(rec, "id", mapping)
    if raw_id is not None and (isinstance(raw_id, bool) or not isinstance(raw_id, (str, int))):
        problems.append(f"{where}, field 'id': expected text or an integer, got "
                        f"{type(raw_id).__name__}. Fix: use a string id.")
    row_id = (str(raw_id) if isinstance(raw_id, (str, int)) and not isinstance(raw_id, bool)
              and str(raw_id) != "" else str(line))
    used = {k for k in (id_key,) if k}
    msg_key, messages = _pick(rec, "messages", mapping)
    if messages is not None:
        turns = _turns(messages, where, problems)
        gt_key, truth = _pick(rec, "ground_truth", mapping)
        if truth is not None and not isinstance(truth, str):
            problems.append(f"{where}, field {gt_key!r}: expected text, got "
                            f"{type(truth).__name__}. Fix: write it as a JSON string.")
            return None
        extra = {k: v for k, v in rec.items()
                 if k not in {msg_key, "conversation", gt_key, *used}}
        if turns is None:
            return None
        return Row(id=row_id, line=line, messages=turns, ground_truth=truth or None, extra=extra)
    values: dict[str, Any] = {}
    mistyped: set[str] = set()
    for field in _TEXT_FIELDS:
        key, value = _pick(rec, field, mapping)
        if key:
            used.add(key)
        if value is None:
            continue
        if not isinstance(value, str):
            problems.append(f"{where}, field {key!r}: expected text, got {type(value).__name__} "
                            f"{json.dumps(value, default=str)[:40]}. Fix: write it as a JSON string.")
            mistyped.add(field)
            continue
        values[field] = value
    key, ctx = _pick(rec, "context", mapping)
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
                            f"{type(ctx).__name__}. Fix: write it as a string or a list of strings.")
    if "answer" not in values and "answer" not in mistyped:
        hint = "add an 'answer' (or 'response') field, or map a column with --map answer=COLUMN"
        problems.append(f"{where}, field 'answer': missing. Fix: {hint}.")
    extra = {k: v for k, v in rec.items() if k not in used}
    return Row(id=row_id, line=line, extra=extra, **values)


def _turns(messages: Any, where: str, problems: list[str]) -> list[Turn] | None:
    if not isinstance(messages, list) or not messages:
        problems.append(f"{where}, field 'messages': expected a non-empty list of "
                        "{role, content} objects. Fix: write the conversation as a JSON list.")
        return None
    turns: list[Turn] = []
    ok = True
    for i, m in enumerate(messages):
        f = f"messages[{i}]"
        if not isinstance(m, dict):
            problems.append(f"{where}, field '{f}': expected an object. Fix: use {{role, content}}.")
            ok = False
            continue
        role, content = m.get("role"), m.get("content")
        if role not in _ROLES:
            problems.append(f"{where}, field '{f}.role': got {role!r}. Must be one of {list(_ROLES)}.")
            ok = False
        if not isinstance(content, str):
            got = "missing" if content is None else f"{type(content).__name__}, not text"
            problems.append(f"{where}, field '{f}.content': {got}. Fix: write it as a string.")
            ok = False
        citations = _citations(m.get("context"), f"{where}, field '{f}.context", problems)
        if citations is None:
            ok = False
        if ok and isinstance(content, str):
            turns.append(Turn.model_validate({"role": role, "content": content,
                                              "citations": citations or []}))
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
        out.append(Citation(**{**c, "id": None if cid is None else str(cid)}))
    return out
