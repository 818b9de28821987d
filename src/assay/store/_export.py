"""Write a run's per-row records as JSONL, CSV or Parquet, with the rows' input fields.

JSONL keeps each record as stored, plus an ``inputs`` object when the run stored the row's
inputs. CSV and Parquet are flat: an ``id`` column; then the input columns, when given
(``question``, ``context``, ``contexts``, ``answer``, ``ground_truth``, ``messages``, then
each extra field by its name; ``input/<name>`` where a name is taken by a result field); then
for each metric (in order of first appearance) ``<metric>`` (the value), ``<metric>/reason``
and ``<metric>/error``; then any other top-level field (e.g. ``diagnosis``) as one text column
(JSON for structured values). A metric is a field whose value is a mapping with a ``value``.

CSV text cells that a spreadsheet would run as a formula (those beginning with ``=``, ``+``,
``-``, ``@``, a tab or a carriage return: OWASP's CSV injection list) get a leading ``'``, so
they open as text. Numbers (metric values) are written as numbers, negative ones included.

Example:
    >>> records = [{"id": "q1", "f1": {"value": 0.5, "reason": "half", "error": None}},
    ...            {"id": "q2", "f1": {"value": None, "reason": None, "error": "no answer"}}]
    >>> columns, table = flatten(records)
    >>> columns
    ['id', 'f1', 'f1/reason', 'f1/error']
    >>> table[1]
    {'id': 'q2', 'f1': None, 'f1/reason': None, 'f1/error': 'no answer'}
    >>> columns, table = flatten(records, inputs={"q1": {"answer": "=1+1", "extra": {"f1": 2}}})
    >>> columns
    ['id', 'answer', 'input/f1', 'f1', 'f1/reason', 'f1/error']
    >>> table[0]["answer"], table[0]["input/f1"], table[1]["answer"]
    ('=1+1', '2', None)
    >>> csv_cell("=1+1"), csv_cell("-2"), csv_cell(-2.0), csv_cell("plain")
    ("'=1+1", "'-2", -2.0, 'plain')
"""

from __future__ import annotations

import csv
import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from .._files import atomic_path, atomic_write
from ..errors import ConfigError

__all__ = ["FORMATS", "INPUT_FIELDS", "csv_cell", "flatten", "write_records"]

#: The export formats ``Store.export`` accepts.
FORMATS = ("jsonl", "csv", "parquet")
#: The input fields a row may have, in column order (its ``extra`` fields follow).
INPUT_FIELDS = ("question", "context", "contexts", "answer", "ground_truth", "messages")

_METRIC_PARTS = (("", "value"), ("/reason", "reason"), ("/error", "error"))
#: A text cell starting with one of these is a formula to a spreadsheet (OWASP).
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")

Inputs = Mapping[str, Mapping[str, Any]]


def _is_metric(value: Any) -> bool:
    return isinstance(value, Mapping) and "value" in value


def _text(value: Any) -> str | None:
    if value is None or isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False, sort_keys=True)


def csv_cell(value: Any) -> Any:
    """``value`` as a CSV cell that opens as text: a string beginning with ``=``, ``+``,
    ``-``, ``@``, a tab or a carriage return gets a leading ``'``; numbers and None are left
    as they are (a negative score stays a number)."""
    if isinstance(value, str) and value.startswith(_FORMULA_START):
        return "'" + value
    return value


def _fields(records: Sequence[Mapping[str, Any]]) -> tuple[list[str], list[str]]:
    """Metric names and other field names, each in order of first appearance."""
    metrics: dict[str, None] = {}
    others: dict[str, None] = {}
    for rec in records:
        for key, value in rec.items():
            if key == "id":
                continue
            if _is_metric(value):
                metrics[key] = None
                others.pop(key, None)
            elif key not in metrics:
                others[key] = None
    return list(metrics), list(others)


def _input_columns(records: Sequence[Mapping[str, Any]], inputs: Inputs,
                   taken: set[str]) -> list[tuple[str, str, bool]]:
    """(column, input field, is an extra field) for every input field some row has."""
    present: dict[str, None] = {}
    extras: dict[str, None] = {}
    for rec in records:
        row = inputs.get(str(rec.get("id")))
        if not row:
            continue
        present.update((k, None) for k in row if k in INPUT_FIELDS)
        extra = row.get("extra")
        if isinstance(extra, Mapping):
            extras.update((str(k), None) for k in extra)
    out = [(f"input/{name}" if name in taken else name, name, False)
           for name in INPUT_FIELDS if name in present]
    for name in extras:
        out.append((f"input/{name}" if name in taken or name in INPUT_FIELDS else name,
                    name, True))
    return out


def flatten(records: Sequence[Mapping[str, Any]], inputs: Inputs | None = None
            ) -> tuple[list[str], list[dict[str, Any]]]:
    """The flat column names and one flat dict per record (see the module docstring);
    ``inputs`` maps a row id to its input fields (as ``Store.inputs`` returns them)."""
    metrics, others = _fields(records)
    taken = {"id", *others, *(m + suffix for m in metrics for suffix, _ in _METRIC_PARTS)}
    input_cols = _input_columns(records, inputs, taken) if inputs else []
    columns = (["id"] + [col for col, _, _ in input_cols]
               + [m + suffix for m in metrics for suffix, _ in _METRIC_PARTS] + list(others))
    table: list[dict[str, Any]] = []
    for rec in records:
        flat: dict[str, Any] = {"id": _text(rec.get("id"))}
        row = (inputs or {}).get(str(rec.get("id"))) or {}
        found = row.get("extra")
        extra: Mapping[str, Any] = found if isinstance(found, Mapping) else {}
        for col, name, is_extra in input_cols:
            flat[col] = _text(extra.get(name) if is_extra else row.get(name))
        for m in metrics:
            result = rec.get(m)
            result = result if isinstance(result, Mapping) else {}
            for suffix, part in _METRIC_PARTS:
                value = result.get(part)
                flat[m + suffix] = value if part == "value" else _text(value)
        for key in others:
            flat[key] = _text(rec.get(key))
        table.append(flat)
    return columns, table


def _numeric(values: list[Any]) -> bool:
    return all(v is None or (isinstance(v, (int, float)) and not isinstance(v, bool))
               for v in values)


def write_records(records: Sequence[Mapping[str, Any]], path: Path, fmt: str, *,
                  inputs: Inputs | None = None) -> int:
    """Write ``records`` to ``path`` as ``fmt``; return the number of rows written.

    ``inputs`` (``{row id: {question, context, ..., extra}}``, e.g. from ``Store.inputs``)
    adds each row's input fields: an ``inputs`` object per JSONL line, input columns in CSV
    and Parquet. CSV cells are escaped against formula injection (see the module docstring).
    The file is written whole or not at all (a temporary file beside it, renamed into place).

    Raises:
        ConfigError: an unknown format, or Parquet without pyarrow.
        OutputError: the file could not be written (a full disk: no partial file is left).
    """
    if fmt not in FORMATS:
        raise ConfigError(f"Got format {fmt!r}. Must be one of {', '.join(FORMATS)}.")
    path = Path(path)
    if fmt == "parquet":
        try:
            import pyarrow as pa
            import pyarrow.parquet as pq
        except ImportError as e:
            raise ConfigError(
                f"Parquet export needs pyarrow ({e}). Fix: pip install 'assay[parquet]' "
                "(or export as jsonl or csv).") from e
    if fmt == "jsonl":
        with atomic_write(path, what="the export") as f:
            for rec in records:
                row = (inputs or {}).get(str(rec.get("id")))
                line = {**rec, "inputs": dict(row)} if row and "inputs" not in rec else rec
                f.write(json.dumps(line, ensure_ascii=False) + "\n")
        return len(records)
    columns, table = flatten(records, inputs)
    if fmt == "csv":
        with atomic_write(path, what="the export", newline="") as f:
            writer = csv.writer(f)
            writer.writerow([csv_cell(c) for c in columns])
            for flat in table:
                writer.writerow([csv_cell(flat[c]) for c in columns])
        return len(table)
    value_columns = set(_fields(records)[0])
    arrays = {}
    for col in columns:
        values = [row[col] for row in table]
        if col in value_columns and _numeric(values):
            arrays[col] = pa.array([None if v is None else float(v) for v in values], pa.float64())
        else:
            arrays[col] = pa.array([_text(v) for v in values], pa.string())
    with atomic_path(path, what="the export") as tmp:
        pq.write_table(pa.table(arrays), tmp)
    return len(table)
