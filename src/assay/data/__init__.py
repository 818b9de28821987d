"""Datasets: rows, conversations and their readers (one registered reader per data format).

Example:
    >>> from assay.data import Row
    >>> Row(id="a", line=1, answer="x").kind
    'qa'
    >>> reader_for(".ndjson").name
    'jsonl'
"""

from . import _formats  # noqa: F401  (assay's own readers, registered on import)
from ._clean import MAX_DEPTH, FieldLimits, LongFields
from ._inputs import row_inputs
from ._models import Citation, ReferenceCall, Row, ToolCall, ToolSpec, Turn
from ._otlp import is_export, traces_as_records
from ._otlp_ids import otlp_id
from ._read import ALIASES, parse_mapping, read_dataset, read_records, rows_from_records
from ._reader import Reader
from ._readers import (
    FORMATS,
    READERS,
    READERS_GROUP,
    ReaderRegistry,
    reader_for,
    register_reader,
    registered_readers,
)
from ._source import Source, open_source
from ._stream import DatasetStream

__all__ = ["ALIASES", "FORMATS", "MAX_DEPTH", "READERS", "READERS_GROUP", "Citation",
           "DatasetStream", "FieldLimits", "LongFields", "Reader", "ReaderRegistry",
           "ReferenceCall", "Row", "Source", "ToolCall", "ToolSpec", "Turn", "is_export",
           "open_source", "otlp_id", "parse_mapping", "read_dataset", "read_records", "reader_for", "register_reader",
           "registered_readers", "row_inputs", "rows_from_records", "traces_as_records"]
