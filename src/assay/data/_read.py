"""Read JSONL / JSON / CSV / TSV datasets into validated rows, reporting every problem at once.

Files may be UTF-8 (with or without a BOM), UTF-16 or UTF-32, and gzip-compressed
(``data.jsonl.gz``). Every problem (file, line, field and fix) is collected, and one
:class:`~assay.errors.DataError` lists them all; nothing the file holds raises anything else.

Example:
    >>> import json, tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "d.jsonl"
    >>> _ = p.write_text(json.dumps({"query": "Q?", "response": "A."}) + "\\n")
    >>> [(r.id, r.question, r.answer) for r in read_dataset(p)]
    [('1', 'Q?', 'A.')]
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any, SupportsIndex

from ..errors import DataError, option
from ._clean import FieldLimits, LongFields, clean_record, parse_int
from ._csv import csv_records
from ._models import Row
from ._otlp import is_export, traces_as_records
from ._rows import ALIASES, validated_rows
from ._source import Source, no_rows_problem, open_source
from ._spool import display_name, display_problems, readable_copy

__all__ = ["ALIASES", "ProblemList", "data_error", "parse_mapping", "read_dataset",
           "read_records", "record_unit", "rows_from_records"]

#: At most this many problems are listed in one error (the rest are counted).
MAX_LISTED = 200
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")
_FAILED = object()
_DECODER = json.JSONDecoder(parse_int=parse_int)


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
            raise DataError([(f"{option('mapping', pair)}: expected FIELD=COLUMN, e.g. "
                             "answer=output")])
        if field not in allowed:
            raise DataError([(f"{option('mapping', pair)}: unknown field {field!r}. Must be one "
                             f"of {allowed}")])
        out[field] = column
    return out


def read_dataset(path: str | Path, *, mapping: Mapping[str, str] | None = None,
                 max_field_chars: int = 100_000, long_fields: LongFields = "refuse") -> list[Row]:
    """Read and validate a whole dataset file (``.jsonl``, ``.json`` array, ``.csv``, ``.tsv``,
    optionally ``.gz``).

    Args:
        path: the dataset file.
        mapping: ``{field: column}`` for other column names (``--map``).
        max_field_chars: the longest text a field may hold, in characters.
        long_fields: ``refuse`` (a longer field is a problem) or ``truncate`` (it is cut to
            ``max_field_chars``, and one warning counts them).

    Raises:
        DataError: listing every problem in the file (file, line, field and fix), before any
            row is evaluated.
        ConfigError: ``max_field_chars`` or ``long_fields`` is not allowed.
    """
    name, path = display_name(path), readable_copy(path)  # a pipe ("-", a FIFO): read once
    try:
        return _read_dataset(path, mapping or {}, FieldLimits(max_field_chars, long_fields),
                             name)
    except DataError as e:
        raise display_problems(e, path, name) from None


def _read_dataset(path: Path, mapping: Mapping[str, str], limits: FieldLimits,
                  name: str) -> list[Row]:
    problems: list[str] = ProblemList()
    records = read_records(path, problems, limits=limits, id_key=mapping.get("id", "id"))
    rows = list(validated_rows(records, str(path), mapping, problems, seen={},
                               unit=record_unit(path)))
    if problems:
        raise data_error(problems, str(path))
    if not rows:
        raise DataError([no_rows_problem(path)])
    limits.report(name)
    return rows


def rows_from_records(records: Iterable[Mapping[str, Any]], *, source: str = "<records>",
                      mapping: Mapping[str, str] | None = None, max_field_chars: int = 100_000,
                      long_fields: LongFields = "refuse") -> list[Row]:
    """Validate in-memory dicts the same way as a file (``line`` is the 1-based position).

    Example:
        >>> [r.answer for r in rows_from_records([{"answer": "abcdef"}], max_field_chars=3,
        ...                                      long_fields="truncate")]
        ['abc']
    """
    limits = FieldLimits(max_field_chars, long_fields)
    problems: list[str] = ProblemList()
    checked: list[tuple[int, dict[str, Any]]] = []
    for i, rec in enumerate(records, start=1):
        if type(rec) is dict or isinstance(rec, Mapping):
            checked.append((i, dict(rec)))
        else:
            problems.append(f"{source} item {i}: expected an object, got {type(rec).__name__}. "
                            "Fix: give every record as a dict.")
    rows = list(validated_rows(checked, source, mapping or {}, problems, seen={}, limits=limits))
    if problems:
        raise data_error(problems, source)
    if not rows:
        raise DataError([f"{source}: there are no rows. Fix: give at least one record."])
    limits.report(source)
    return rows


class ProblemList(list[str]):
    """Problems, of which the first ``keep`` are kept and the rest only counted, so that a
    file with a problem on each of its million lines does not fill memory with messages.
    ``len()`` counts them all.

    Example:
        >>> problems = ProblemList(keep=2)
        >>> problems.extend(["a", "b", "c"])
        >>> len(problems), list(problems)
        (3, ['a', 'b'])
    """

    def __init__(self, keep: int = MAX_LISTED) -> None:
        super().__init__()
        self.keep = keep
        self.dropped = 0

    def append(self, item: str) -> None:
        if super().__len__() < self.keep:
            super().append(item)
        else:
            self.dropped += 1

    def extend(self, items: Iterable[str]) -> None:
        for item in items:
            self.append(item)

    def pop(self, index: SupportsIndex = -1) -> str:
        if self.dropped and index == -1:
            self.dropped -= 1
            return ""
        return super().pop(index)

    def __len__(self) -> int:
        return super().__len__() + self.dropped


def record_unit(path: Path) -> str:
    """How messages name a record's position: ``item`` in a JSON array, else ``line``."""
    return "item" if open_source(path).fmt == "json" else "line"


def data_error(problems: list[str], source: str) -> DataError:
    """One DataError listing ``problems`` (the first :data:`MAX_LISTED`, then a count)."""
    if len(problems) > MAX_LISTED:
        rest = len(problems) - MAX_LISTED
        problems = [*list(problems)[:MAX_LISTED], (f"... and {rest:,} more problem"
                    f"{'s' if rest != 1 else ''} (only the first {MAX_LISTED} are listed).")]
    return DataError(problems, source=source)


def read_records(path: Path, problems: list[str], *, limits: FieldLimits | None = None,
                 id_key: str = "id") -> Iterator[tuple[int, dict[str, Any]]]:
    """(line, object) for each record of a ``.jsonl``, ``.json`` array, ``.csv`` or ``.tsv``
    file (or the same gzipped), with every value checked (see :func:`clean_record`) but no
    fields validated; a malformed record is added to ``problems`` (file, line, fix) and skipped.

    Raises:
        DataError: the file is missing, a folder, unreadable, binary or of an unknown kind.
    """
    src = open_source(Path(path))
    limits = limits or FieldLimits()
    if src.fmt in ("csv", "tsv"):
        for line, rec in csv_records(src, problems):
            yield line, clean_record(rec, f"{src.path} line {line}", limits, problems,
                                     id_key=id_key, surrogates=False)
    else:  # OTLP trace exports among them become one conversation per trace (see _otlp)
        recs = (_json_records(src, problems, limits, id_key) if src.fmt == "json" else
                _jsonl_records(src.lines(problems), src, problems, limits, id_key))
        yield from traces_as_records(recs, str(src.path), problems)


def _jsonl_records(lines: Iterable[tuple[int, str]], src: Source, problems: list[str],
                   limits: FieldLimits, id_key: str) -> Iterator[tuple[int, dict[str, Any]]]:
    # Only "\n" ends a record: str.splitlines() would also split on U+2028, U+0085, ... which
    # JSON allows raw inside strings, and cut a valid line in two.
    first = True
    for lineno, line in lines:
        if not line.strip():
            continue
        where = f"{src.path} line {lineno}"
        if first and line.strip() in ("[", "{"):
            problems.append(f"{where}: the file holds one multi-line JSON document, not one "
                            "JSON object per line (JSONL). Fix: for an array of rows, name the "
                            "file .json, or write one object per line: jq -c '.[]' FILE > "
                            "rows.jsonl.")
            return
        first = False
        if (nul := line.find("\x00")) >= 0:
            problems.append(f"{where}, column {nul + 1}: a NUL byte (0x00), which JSON text "
                            "never holds. Fix: remove NUL bytes, e.g. tr -d '\\000' < IN > OUT.")
            continue
        fix = "make the line one complete JSON object"
        if "\r" in line.rstrip("\r\n"):
            fix += (" (lines here end with a bare \\r, old Mac line ends: convert them, e.g. "
                    "tr '\\r' '\\n' < IN > OUT)")
        obj = _loads(line, where, problems, fix)
        if obj is _FAILED:
            continue
        if not isinstance(obj, dict):
            problems.append(f"{where}: expected a JSON object, got {_kind(obj)}. Fix: write "
                            "one object per line, e.g. {\"question\": ..., \"answer\": ...}.")
            continue
        yield lineno, clean_record(obj, where, limits, problems, id_key=id_key,
                                   surrogates=bool(_SURROGATE_ESCAPE.search(line)))


def _json_records(src: Source, problems: list[str], limits: FieldLimits,
                  id_key: str) -> Iterator[tuple[int, dict[str, Any]]]:
    text = src.text(problems)
    if text is None or not text.strip():
        return
    if (nul := text.find("\x00")) >= 0:
        line = text.count("\n", 0, nul) + 1
        col = nul - text.rfind("\n", 0, nul)
        problems.append(f"{src.path} line {line}, column {col}: a NUL byte (0x00), which JSON "
                        "text never holds. Fix: remove NUL bytes, e.g. tr -d '\\000' < IN > OUT.")
        return
    doc = _loads(text, str(src.path), problems, "repair the JSON array")
    if doc is _FAILED:
        if problems and "Extra data" in problems[-1] and text.lstrip().startswith("{"):
            problems.pop()  # JSON Lines in a .json file: read them as such
            lines = enumerate(text.split("\n"), start=1)
            yield from _jsonl_records(lines, src, problems, limits, id_key)
        return
    if isinstance(doc, dict) and is_export(doc):  # one OTLP trace export
        yield 1, clean_record(doc, str(src.path), limits, problems, id_key=id_key)
        return
    if isinstance(doc, dict):
        lists = [k for k, v in doc.items() if isinstance(v, list) and v
                 and all(isinstance(x, dict) for x in v)]
        hint = (f" The rows seem to be under {lists[0]!r}: jq '.{lists[0]}' FILE > rows.json."
                if len(lists) == 1 else "")
        problems.append(f"{src.path}: one JSON object (keys {_keys(doc)}), not an array of rows. "
                        f"Fix: write the rows as an array, [{{...}}, {{...}}], or as JSON Lines "
                        f"(one object per line in a .jsonl file).{hint}")
        return
    if not isinstance(doc, list):
        problems.append(f"{src.path}: the file holds {_kind(doc)}, not an array of rows. Fix: "
                        "write the rows as a JSON array of objects.")
        return
    surrogates = bool(_SURROGATE_ESCAPE.search(text))
    for i, item in enumerate(doc, start=1):
        where = f"{src.path} item {i}"
        if isinstance(item, dict):
            yield i, clean_record(item, where, limits, problems, id_key=id_key,
                                  surrogates=surrogates)
        else:
            problems.append(f"{where}: expected an object, got {_kind(item)}. Fix: make every "
                            "item of the array a {...} object.")


def _loads(text: str, where: str, problems: list[str], fix: str) -> Any:
    """The parsed JSON, or ``_FAILED`` with the problem (real line and column) added."""
    try:
        return _DECODER.decode(text)
    except json.JSONDecodeError as e:
        at = f"line {e.lineno}, column {e.colno}" if "\n" in text.rstrip("\r\n") else \
            f"column {e.colno}"
        problems.append(f"{where}: invalid JSON ({e.msg} at {at}). Fix: {fix}.")
    except RecursionError:
        problems.append(f"{where}: JSON nested too deeply to read (over "
                        f"{sys.getrecursionlimit():,} levels). Fix: flatten it, or store the "
                        "deep part as a JSON string.")
    return _FAILED


def _kind(value: Any) -> str:
    if isinstance(value, (list, str)) or value is None:
        return f"an array of {len(value)}" if isinstance(value, list) else (
            "a string" if isinstance(value, str) else "null")
    return f"a {type(value).__name__}" if not isinstance(value, bool) else "a boolean"


def _keys(doc: dict[str, Any]) -> str:
    shown = ", ".join(repr(k) for k in list(doc)[:5])
    return shown + (f", ... {len(doc) - 5} more" if len(doc) > 5 else "")
