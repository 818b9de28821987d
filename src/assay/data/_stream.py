"""A dataset file read as a stream, so that memory does not grow with the number of rows.

:meth:`DatasetStream.check` reads the file once and validates every row (all problems in one
DataError, as :func:`read_dataset` does) without keeping them; iterating the stream reads the
rows again, one at a time. Ids are checked for duplicates through an 8-byte hash per row; only a
hash seen twice makes the check read the file again for the ids and lines to report.

Example:
    >>> import json, tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "d.jsonl"
    >>> _ = p.write_text("".join(json.dumps({"id": i, "answer": "a"}) + "\\n" for i in "xyz"))
    >>> stream = DatasetStream(p)
    >>> stream.check()
    3
    >>> [row.id for row in stream]
    ['x', 'y', 'z']
"""

from __future__ import annotations

from array import array
from collections.abc import Callable, Iterator, Mapping
from itertools import islice
from pathlib import Path

from ..errors import DataError
from ._clean import FieldLimits, LongFields
from ._models import Row
from ._read import ProblemList, data_error, read_records, record_unit
from ._rows import duplicate_id_problem, validated_rows
from ._source import no_rows_problem
from ._spool import display_name, display_problems, readable_copy

__all__ = ["DatasetStream"]


class DatasetStream:
    """The rows of a dataset file in a registered format (``.jsonl``, ``.csv``, ``.json``, a
    plugin's, ...), read on demand.

    The file's reader decides how much it holds at once: JSONL and CSV are read a line at a
    time; a ``.json`` array is parsed whole (use JSONL for very large datasets). ``max_field_chars`` and ``long_fields`` are as in
    :func:`~assay.data.read_dataset`; after :meth:`check`, ``truncated`` counts the fields cut.
    ``answer_required=False``: a QA row with a question may lack its answer (an app under test
    answers it).
    A ``path`` that can be read only once (``-`` for standard input, a FIFO) is copied once to
    a temporary file, then read from there (``path`` is the copy, ``name`` the name given).

    Raises:
        DataError: the file is missing, a folder, unreadable, binary or of an unknown kind.
        ConfigError: ``max_field_chars`` or ``long_fields`` is not allowed.
    """

    def __init__(self, path: str | Path, *, mapping: Mapping[str, str] | None = None,
                 max_field_chars: int = 100_000, long_fields: LongFields = "refuse",
                 answer_required: bool = True) -> None:
        self.name = display_name(path)
        self.answer_required = answer_required
        self.path = readable_copy(path)
        self.mapping = dict(mapping or {})
        self.limits = FieldLimits(max_field_chars, long_fields)
        self.truncated = 0
        try:
            self.unit = record_unit(self.path)
        except DataError as e:
            raise display_problems(e, self.path, self.name) from None

    def _records(self, problems: list[str], limits: FieldLimits | None = None) -> Iterator[Row]:
        limits = limits or FieldLimits(self.limits.max_field_chars, self.limits.long_fields)
        records = read_records(self.path, problems, limits=limits,
                               id_key=self.mapping.get("id", "id"))
        return validated_rows(records, str(self.path), self.mapping, problems, unit=self.unit,
                              answer_required=self.answer_required)

    def check(self, on_rows: Callable[[list[Row]], None] | None = None, *,
              chunk: int = 1000) -> int:
        """Validate every row, pass them to ``on_rows`` in chunks, and return how many there are.

        Raises:
            DataError: every problem in the file (file, line, field and fix).
        """
        try:
            return self._check(on_rows, chunk=chunk)
        except DataError as e:
            raise display_problems(e, self.path, self.name) from None

    def _check(self, on_rows: Callable[[list[Row]], None] | None, *, chunk: int) -> int:
        problems: list[str] = ProblemList()
        hashes = array("q")
        limits = FieldLimits(self.limits.max_field_chars, self.limits.long_fields)
        rows = self._records(problems, limits)
        count = 0
        while batch := list(islice(rows, chunk)):
            count += len(batch)
            hashes.extend(hash(row.id) for row in batch)
            if on_rows is not None:
                on_rows(batch)
        problems.extend(self._duplicates(_repeated(hashes)))
        if problems:
            raise data_error(problems, str(self.path))
        if not count:
            raise DataError([no_rows_problem(self.path)])
        self.truncated = limits.truncated
        limits.report(self.name)
        return count

    def __iter__(self) -> Iterator[Row]:
        """The rows, read again from the file (run :meth:`check` first)."""
        problems: list[str] = ProblemList()
        yield from self._records(problems)
        if problems:  # the file changed since it was checked
            changed = (f"{self.path} changed while it was being evaluated. Fix: evaluate a copy "
                       "that nothing writes to.")
            raise display_problems(data_error([changed, *problems], str(self.path)),
                                   self.path, self.name)

    def _duplicates(self, repeated: set[int]) -> list[str]:
        """One problem per row whose id an earlier row has, among the ids hashing to
        ``repeated`` (read again from the file; hash collisions of distinct ids are no problem)."""
        if not repeated:
            return []
        seen: dict[str, int] = {}
        problems: list[str] = ProblemList()
        for row in self._records([]):
            if hash(row.id) not in repeated:
                continue
            if row.id in seen:
                problems.append(duplicate_id_problem(f"{self.path} {self.unit} {row.line}",
                                                     row.id, seen[row.id], self.unit))
            else:
                seen[row.id] = row.line
        return problems


def _repeated(hashes: array[int]) -> set[int]:
    """The values that occur more than once."""
    if len(hashes) < 2:
        return set()
    import numpy as np  # here, not at import: most runs read rows from memory, not a file

    values = np.sort(np.frombuffer(hashes, dtype=np.int64))
    return {int(v) for v in np.unique(values[1:][values[1:] == values[:-1]])}
