"""CSV (``.csv``): a header row, then one record per row, every problem named.

Quoting is strict: a quote left open is reported on the line that opened it, not as a
missing field further on. A row with fewer or more values than the header, a duplicate or
nameless column, a NUL byte: each is a problem with its line and fix. Cells of ``contexts``
and ``messages`` that hold a JSON list are parsed. The separator is ``,`` unless the header
has none and is clearly tab- or semicolon-separated; ``_tsv`` reads tab-separated files here too.

Example:
    >>> import tempfile, pathlib
    >>> from assay.data import Source
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "d.csv"
    >>> _ = p.write_text('id,answer,answer\\na,"x",y\\n')
    >>> problems = []
    >>> [line for line, record in CSV.read(Source(p, CSV, "utf-8"), problems)]
    [2]
    >>> print(problems[0])  # doctest: +ELLIPSIS
    /.../d.csv line 1 (the header): column 'answer' appears 2 times in the header (columns 2, 3)...
"""

from __future__ import annotations

import csv
import json
from collections.abc import Iterator
from itertools import chain
from typing import Any

from ._clean import parse_int
from ._source import Source

__all__ = ["CSV", "CsvReader", "csv_records"]

_JSON_COLUMNS = ("contexts", "messages")
#: Python's csv module refuses fields over 131,072 characters by default; the dataset's own
#: limit (``max_field_chars``) decides instead, with a clear message.
_FIELD_LIMIT = 2**31 - 1


class _Lines:
    """The source's lines for csv.reader, remembering the last line number and NUL bytes."""

    def __init__(self, lines: Iterator[tuple[int, str]], src: Source, problems: list[str]) -> None:
        self.lines, self.src, self.problems = lines, src, problems
        self.lineno = 0
        self.nul_lines: list[int] = []

    def __iter__(self) -> _Lines:
        return self

    def __next__(self) -> str:
        self.lineno, line = next(self.lines)
        if "\x00" in line:
            if not self.nul_lines:
                self.problems.append(
                    f"{self.src.path} line {self.lineno}, column {line.index(chr(0)) + 1}: a NUL "
                    "byte (0x00), which text never holds. Fix: remove NUL bytes, e.g. "
                    f"tr -d '\\000' < {self.src.path} > clean{self.src.path.suffix}")
            self.nul_lines.append(self.lineno)
            line = line.replace("\x00", "")
        return line


class CsvReader:
    """The ``csv`` reader: comma-separated values with a header row."""

    name = "csv"
    suffixes = (".csv",)
    unit = "line"
    #: Its values are text decoded strictly from the file: no lone surrogate can be there.
    checks_surrogates = True

    def read(self, source: Source, problems: list[str]) -> Iterator[tuple[int, dict[str, Any]]]:
        """(line, record) for each row of ``source``; ``line`` is the row's last line."""
        return csv_records(source, problems)


CSV = CsvReader()


def csv_records(src: Source, problems: list[str], *,
                delimiter: str | None = None) -> Iterator[tuple[int, dict[str, Any]]]:
    """(line, record) for each row of a delimited file with a header; ``line`` is the row's
    last line. ``delimiter`` ``None`` picks it from the header (see :func:`_delimiter`)."""
    if csv.field_size_limit() < _FIELD_LIMIT:
        csv.field_size_limit(_FIELD_LIMIT)
    lines = _Lines(iter(src.lines(problems)), src, problems)
    first = next(lines, None)
    if first is None:
        return
    delimiter = delimiter or _delimiter(first)
    reader = csv.reader(chain([first], lines), delimiter=delimiter, strict=True)
    header: list[str] | None = None
    end = 0
    while True:
        start = end + 1
        try:
            values = next(reader)
        except StopIteration:
            break
        except csv.Error as e:
            problems.append(_quote_problem(src, start, lines.lineno, e))
            end = lines.lineno
            continue
        end = lines.lineno
        if header is None:
            if not values:  # blank lines before the header
                continue
            header = values
            _check_header(f"{src.path} line {end} (the header)", header, problems)
            continue
        if not values:  # a blank line
            continue
        rec = _record(src, header, values, (start, end), delimiter, problems)
        if rec is not None:
            yield end, rec
    if len(lines.nul_lines) > 1:
        problems.append(f"{src.path}: {len(lines.nul_lines) - 1} more lines hold NUL bytes. "
                        "Fix: remove them all (see above).")


def _delimiter(header: str) -> str:
    """``,`` unless the header line has none and is clearly tab- or semicolon-separated."""
    if "," in header:
        return ","
    for candidate in ("\t", ";"):
        if candidate in header:
            return candidate
    return ","


def _quote_problem(src: Source, start: int, end: int, e: csv.Error) -> str:
    where = f"{src.path} line {start}"
    if "unexpected end of data" in str(e) or "EOF" in str(e):
        return (f"{where}: a quoted value opened on this line is never closed (an unbalanced "
                f"\"), so lines {start} to {end} were read as one value. Fix: close the quote, "
                "and write a quote inside a quoted value as two (\"\").")
    if "new-line character" in str(e):
        return (f"{where}: a carriage return (\\r) ends a line outside quotes: old Mac line "
                f"ends. Fix: end lines with \\n or \\r\\n, e.g. tr '\\r' '\\n' < {src.path} > "
                f"fixed{src.path.suffix}")
    return (f"{where}{f'-{end}' if end > start else ''}: bad CSV quoting ({e}). Fix: quote "
            "the whole value (\"...\") and write a quote inside it as two (\"\").")


def _check_header(where: str, header: list[str], problems: list[str]) -> None:
    seen: dict[str, list[int]] = {}
    for i, name in enumerate(header, start=1):
        if name.strip():
            seen.setdefault(name, []).append(i)
    for name, cols in seen.items():
        if len(cols) > 1:
            problems.append(f"{where}: column {name!r} appears {len(cols)} times in the header "
                            f"(columns {', '.join(map(str, cols))}); only one could be read. "
                            "Fix: rename or remove the others.")


def _record(src: Source, header: list[str], values: list[str], lines: tuple[int, int],
            delimiter: str, problems: list[str]) -> dict[str, Any] | None:
    start, end = lines
    span = f"line {end}" if end == start else f"lines {start}-{end}"
    where = f"{src.path} {span}"
    if len(values) != len(header):
        joined = (f" (one row over {end - start + 1} lines: an unbalanced quote on line {start} "
                  "may have joined them)" if end > start else "")
        if len(values) > len(header):
            separator = "tabs" if delimiter == "\t" else "the separator"
            problems.append(f"{where}: {len(values)} values, more than the header's "
                            f"{len(header)} columns{joined}. Fix: quote values that contain "
                            f"{separator} (\"a, b\").")
        else:
            missing = ", ".join(repr(h) for h in header[len(values):][:5])
            problems.append(f"{where}: {len(values)} values, the header has {len(header)} "
                            f"columns (no value for {missing}){joined}. Fix: give every "
                            "column a value (an empty one is two commas in a row).")
        return None
    out: dict[str, Any] = {}
    for i, (key, value) in enumerate(zip(header, values), start=1):
        if not key.strip():  # pandas writes its index under an empty name: kept as ""
            if not value.strip():
                continue
            if "" in out:
                problems.append(f"{where}: a value in column {i}, a second column with no "
                                "name in the header. Fix: name the columns in the header.")
                continue
            key = ""
        if key in _JSON_COLUMNS and value.strip()[:1] == "[":
            value = _json_cell(value, f"{where}, field {key!r}", problems)
        # An empty cell is a missing value, except an answer's: an empty answer is an answer
        # (lexical metrics score it 0), not a row the metrics skip.
        out[key] = value if value != "" or key in _ANSWER_COLUMNS else None
    return out


#: Columns whose empty cell is an empty answer, not a missing one.
_ANSWER_COLUMNS = frozenset({"answer", "response"})


def _json_cell(value: str, where: str, problems: list[str]) -> Any:
    try:
        return json.loads(value, parse_int=parse_int)
    except json.JSONDecodeError as e:
        problems.append(f"{where}: not a JSON list ({e.msg} at character {e.pos + 1}). "
                        "Fix: write it as a JSON array.")
    except RecursionError:
        problems.append(f"{where}: the JSON list is nested too deeply. Fix: flatten it.")
    return value

