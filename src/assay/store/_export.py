"""Write a run's per-row records as JSONL, CSV or Parquet.

JSONL keeps each record as stored. CSV and Parquet are flat: an ``id`` column, then for each
metric (in order of first appearance) ``<metric>`` (the value), ``<metric>/reason`` and
``<metric>/error``; any other top-level field (e.g. ``diagnosis``) becomes one text column
(JSON for structured values). A metric is a field whose value is a mapping with a ``value``.

Example:
    >>> records = [{"id": "q1", "f1": {"value": 0.5, "reason": "half", "error": None}},
    ...            {"id": "q2", "f1": {"value": None, "reason": None, "error": "no answer"}}]
    >>> columns, table = flatten(records)
    >>> columns
    ['id', 'f1', 'f1/reason', 'f1/error']
    >>> table[1]
    {'id': 'q2', 'f1': None, 'f1/reason': None, 'f1/error': 'no answer'}
"""

from __future__ import annotations

import csv
import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from ..errors import ConfigError

__all__ = ["FORMATS", "flatten", "write_records"]

#: The export formats ``Store.export`` accepts.
FORMATS = ("jsonl", "csv", "parquet")

_METRIC_PARTS = (("", "value"), ("/reason", "reason"), ("/error", "error"))


def _is_metric(value: Any) -> bool:
    return isinstance(value, Mapping) and "value" in value


def _text(value: Any) -> str | None:
    if value is None or isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False, sort_keys=True)


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


def flatten(records: Sequence[Mapping[str, Any]]) -> tuple[list[str], list[dict[str, Any]]]:
    """The flat column names and one flat dict per record (see the module docstring)."""
    metrics, others = _fields(records)
    columns = ["id"] + [m + suffix for m in metrics for suffix, _ in _METRIC_PARTS] + list(others)
    table: list[dict[str, Any]] = []
    for rec in records:
        flat: dict[str, Any] = {"id": _text(rec.get("id"))}
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


def write_records(records: Sequence[Mapping[str, Any]], path: Path, fmt: str) -> int:
    """Write ``records`` to ``path`` as ``fmt``; return the number of rows written."""
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
    path.parent.mkdir(parents=True, exist_ok=True)
    if fmt == "jsonl":
        with path.open("w", encoding="utf-8") as f:
            for rec in records:
                f.write(json.dumps(rec, ensure_ascii=False) + "\n")
        return len(records)
    columns, table = flatten(records)
    if fmt == "csv":
        with path.open("w", encoding="utf-8", newline="") as f:
            writer = csv.DictWriter(f, fieldnames=columns)
            writer.writeheader()
            writer.writerows(table)
        return len(table)
    value_columns = set(_fields(records)[0])
    arrays = {}
    for col in columns:
        values = [row[col] for row in table]
        if col in value_columns and _numeric(values):
            arrays[col] = pa.array([None if v is None else float(v) for v in values], pa.float64())
        else:
            arrays[col] = pa.array([_text(v) for v in values], pa.string())
    pq.write_table(pa.table(arrays), path)
    return len(table)
