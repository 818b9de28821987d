"""JSON Lines (``.jsonl``, ``.ndjson``): one JSON object per line.

Only ``"\\n"`` ends a record: ``str.splitlines()`` would also split on U+2028, U+0085, ...
which JSON allows raw inside strings, and cut a valid line in two. A line that is not one JSON
object, a NUL byte, a multi-line JSON document: each is a problem with its line and fix.

Example:
    >>> problems = []
    >>> list(jsonl_records([(1, '{"answer": "x"}\\n'), (2, "[1]\\n")], "d.jsonl", problems))
    [(1, {'answer': 'x'})]
    >>> print(problems[0])  # doctest: +ELLIPSIS
    d.jsonl line 2: expected a JSON object, got an array of 1. Fix: write one object per line...
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from ._clean import lone_surrogates, parse_int
from ._source import Source

__all__ = ["FAILED", "JSONL", "SURROGATE_ESCAPE", "JsonLinesReader", "describe", "jsonl_records",
           "loads"]

#: What :func:`loads` returns for text that does not parse.
FAILED = object()
#: A JSON escape of half a surrogate pair (``\\ud800``): only such text can decode to a lone one.
SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")
_DECODER = json.JSONDecoder(parse_int=parse_int)


class JsonLinesReader:
    """The ``jsonl`` reader: JSON Lines, one object per line (also a file with no known
    suffix whose text starts with ``{``)."""

    name = "jsonl"
    suffixes = (".jsonl", ".ndjson")
    unit = "line"
    #: It reports lone surrogates itself, only on lines that escape one (see jsonl_records).
    checks_surrogates = True

    def read(self, source: Source, problems: list[str]) -> Iterator[tuple[int, dict[str, Any]]]:
        """(line, object) for each line of ``source`` that holds one JSON object."""
        return jsonl_records(source.lines(problems), source.path, problems)

    @staticmethod
    def sniff(text: str) -> bool:
        """Whether a file starting with ``text`` looks like JSON Lines."""
        return text[:1] == "{"


JSONL = JsonLinesReader()


def jsonl_records(lines: Iterable[tuple[int, str]], path: str | Path,
                  problems: list[str]) -> Iterator[tuple[int, dict[str, Any]]]:
    """(line, object) for each of ``lines`` (numbered, with their ``"\\n"``) that holds one
    JSON object; blank lines are skipped, every other line is a problem. A lone surrogate
    (``"\\ud800"``) in an object is a problem too."""
    first = True
    for lineno, line in lines:
        if not line.strip():
            continue
        where = f"{path} line {lineno}"
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
        obj = loads(line, where, problems, fix)
        if obj is FAILED:
            continue
        if type(obj) is not dict:
            problems.append(f"{where}: expected a JSON object, got {describe(obj)}. Fix: write "
                            "one object per line, e.g. {\"question\": ..., \"answer\": ...}.")
            continue
        if SURROGATE_ESCAPE.search(line):
            lone_surrogates(obj, where, problems)
        yield lineno, obj


def loads(text: str, where: str, problems: list[str], fix: str) -> Any:
    """The parsed JSON, or :data:`FAILED` with the problem (real line and column) added.

    Example:
        >>> problems = []
        >>> loads('{"a": }', "d.jsonl line 3", problems, "repair it") is FAILED, problems
        (True, ['d.jsonl line 3: invalid JSON (Expecting value at column 7). Fix: repair it.'])
    """
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
    return FAILED


def describe(value: Any) -> str:
    """What a JSON value is, for a message: ``a string``, ``an array of 3``, ``null``, ...

    Example:
        >>> describe([1, 2]), describe("x"), describe(None), describe(True), describe(1.5)
        ('an array of 2', 'a string', 'null', 'a boolean', 'a float')
    """
    if isinstance(value, (list, str)) or value is None:
        return f"an array of {len(value)}" if isinstance(value, list) else (
            "a string" if isinstance(value, str) else "null")
    return f"a {type(value).__name__}" if not isinstance(value, bool) else "a boolean"
