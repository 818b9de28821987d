"""Read datasets into validated rows, reporting every problem at once.

A file is read by the registered reader of its format (JSONL, a JSON array, CSV, TSV, or a
plugin's; see ``_readers``); files may be UTF-8 (with or without a BOM), UTF-16 or UTF-32, and
gzip-compressed (``data.jsonl.gz``). Every record a reader gives has its values checked (see
``_clean``) and OTLP trace exports among them become conversations (see ``_otlp``), whatever
the format. Every problem (file, line, field and fix) is collected, and one
:class:`~assay.errors.DataError` lists them all; nothing the file holds raises anything else.

Example:
    >>> import json, tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "d.jsonl"
    >>> _ = p.write_text(json.dumps({"query": "Q?", "response": "A."}) + "\\n")
    >>> [(r.id, r.question, r.answer) for r in read_dataset(p)]
    [('1', 'Q?', 'A.')]
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any, SupportsIndex

from .._entry_points import PLUGIN_FAILURES, failure_text
from ..errors import AssayError, DataError, option
from ._clean import FieldLimits, LongFields, clean_record
from ._models import Row
from ._otlp import is_export, stream_traces
from ._otlp_index import TraceIndex, index_traces
from ._otlp_logs import is_log_export
from ._reader import reader_unit
from ._readers import READERS
from ._rows import ALIASES, validated_rows
from ._source import Source, no_rows_problem, open_source
from ._spool import display_name, display_problems, readable_copy

__all__ = ["ALIASES", "ProblemList", "data_error", "parse_mapping", "read_dataset",
           "read_records", "record_unit", "rows_from_records"]

#: At most this many problems are listed in one error (the rest are counted).
MAX_LISTED = 200


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
                 max_field_chars: int = 100_000, long_fields: LongFields = "refuse",
                 answer_required: bool = True) -> list[Row]:
    """Read and validate a whole dataset file (``.jsonl``, ``.json`` array, ``.csv``, ``.tsv``,
    optionally ``.gz``).

    Args:
        path: the dataset file.
        mapping: ``{field: column}`` for other column names (``--map``).
        max_field_chars: the longest text a field may hold, in characters.
        long_fields: ``refuse`` (a longer field is a problem) or ``truncate`` (it is cut to
            ``max_field_chars``, and one warning counts them).
        answer_required: False when an app under test answers the questions: a QA row with a
            question may then lack its answer.

    Raises:
        DataError: listing every problem in the file (file, line, field and fix), before any
            row is evaluated.
        ConfigError: ``max_field_chars`` or ``long_fields`` is not allowed.
    """
    name, path = display_name(path), readable_copy(path)  # a pipe ("-", a FIFO): read once
    try:
        return _read_dataset(path, mapping or {}, FieldLimits(max_field_chars, long_fields),
                             name, answer_required)
    except DataError as e:
        raise display_problems(e, path, name) from None


def _read_dataset(path: Path, mapping: Mapping[str, str], limits: FieldLimits,
                  name: str, answer_required: bool = True) -> list[Row]:
    problems: list[str] = ProblemList()
    records = read_records(path, problems, limits=limits, id_key=mapping.get("id", "id"))
    rows = list(validated_rows(records, str(path), mapping, problems, seen={},
                               unit=record_unit(path), answer_required=answer_required))
    if problems:
        raise data_error(problems, str(path))
    if not rows:
        raise DataError([no_rows_problem(path)])
    limits.report(name)
    return rows


def rows_from_records(records: Iterable[Mapping[str, Any]], *, source: str = "<records>",
                      mapping: Mapping[str, str] | None = None, max_field_chars: int = 100_000,
                      long_fields: LongFields = "refuse", answer_required: bool = True
                      ) -> list[Row]:
    """Validate in-memory dicts the same way as a file (``line`` is the 1-based position).
    ``answer_required=False``: a QA row with a question may lack its answer (an app under
    test answers it).

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
    rows = list(validated_rows(checked, source, mapping or {}, problems, seen={}, limits=limits,
                               answer_required=answer_required))
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
    """How messages name a record's position: ``item`` in a JSON array, else ``line`` (the
    ``unit`` of the file's reader)."""
    return reader_unit(open_source(path).reader)


def data_error(problems: list[str], source: str) -> DataError:
    """One DataError listing ``problems`` (the first :data:`MAX_LISTED`, then a count)."""
    if len(problems) > MAX_LISTED:
        rest = len(problems) - MAX_LISTED
        problems = [*list(problems)[:MAX_LISTED], (f"... and {rest:,} more problem"
                    f"{'s' if rest != 1 else ''} (only the first {MAX_LISTED} are listed).")]
    return DataError(problems, source=source)


def read_records(path: Path, problems: list[str], *, limits: FieldLimits | None = None,
                 id_key: str = "id") -> Iterator[tuple[int, dict[str, Any]]]:
    """(line, object) for each record of a file in a registered format (``.jsonl``, ``.json``
    array, ``.csv``, ``.tsv``, a plugin's; or the same gzipped), with every value checked (see
    :func:`clean_record`) but no fields validated; a malformed record is added to
    ``problems`` (file, line, fix) and skipped.

    Raises:
        DataError: the file is missing, a folder, unreadable, binary or of an unknown kind.
    """
    src = open_source(Path(path))
    # OTLP trace exports, whatever the format, are read as they come (only each span's
    # reading is kept) and give one conversation per trace; in a file of exports alone, a
    # first pass finds each trace's last line so that it is handed on from there
    yield from stream_traces(_checked(src, problems, limits or FieldLimits(), id_key),
                             str(src.path), problems, _trace_index(src))


def _trace_index(src: Source) -> TraceIndex | None:
    """The trace index of a JSONL file whose first record is an OTLP export of spans or logs
    (a Collector file exporter's), else None (nothing is read past the first record)."""
    if src.reader.name != "jsonl" or not src.path.is_file():
        return None
    records = src.reader.read(src, [])
    try:
        first = next(iter(records), None)
        if first is None or not isinstance(first[1], dict) or not (
                is_export(first[1]) or is_log_export(first[1])):
            return None
        return index_traces(itertools.chain([first], records))
    except AssayError:
        raise
    except PLUGIN_FAILURES:
        return None  # the reading pass reports it
    finally:
        close = getattr(records, "close", None)
        if callable(close):
            close()


def _checked(src: Source, problems: list[str], limits: FieldLimits,
             id_key: str) -> Iterator[tuple[int, dict[str, Any]]]:
    """The reader's records of ``src``, each with its values checked. What a reader does
    wrong (it raises, or gives something other than a line number and a dict) is a problem
    naming the reader, never a traceback."""
    reader = src.reader
    prefix = f"{src.path} {reader_unit(reader)} "
    surrogates = getattr(reader, "checks_surrogates", False) is not True
    line: Any = 0
    try:
        for line, rec in reader.read(src, problems):
            if type(rec) is not dict or type(line) is not int:
                if not isinstance(line, int) or not isinstance(rec, Mapping):
                    problems.append(_reader_problem(src, f"gave ({line!r}, a "
                                                    f"{type(rec).__name__}), not (line, dict)"))
                    return
                line, rec = int(line), dict(rec)
            rec = clean_record(rec, prefix + str(line), limits, problems, id_key=id_key,
                               surrogates=surrogates)
            yield line, rec
    except AssayError:
        raise
    except PLUGIN_FAILURES as e:  # a reader's own failure (a plugin's, most likely)
        problems.append(_reader_problem(src, f"failed after line {line} ({failure_text(e)})"))


def _reader_problem(src: Source, what: str) -> str:
    name = src.reader.name
    try:
        source = READERS.source(name)
    except KeyError:
        source = "not registered"
    return (f"{src.path}: the {name!r} reader ({source}) {what}. Fix: upgrade the reader, or "
            "ask its authors; convert the file to JSONL meanwhile.")
