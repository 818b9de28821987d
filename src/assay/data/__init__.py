"""Datasets: rows, conversations and their readers.

Example:
    >>> from assay.data import Row
    >>> Row(id="a", line=1, answer="x").kind
    'qa'
"""

from ._clean import MAX_DEPTH, FieldLimits, LongFields
from ._inputs import row_inputs
from ._models import Citation, ReferenceCall, Row, ToolCall, ToolSpec, Turn
from ._read import ALIASES, parse_mapping, read_dataset, read_records, rows_from_records
from ._source import FORMATS
from ._stream import DatasetStream

__all__ = ["ALIASES", "FORMATS", "MAX_DEPTH", "Citation", "DatasetStream", "FieldLimits",
           "LongFields", "ReferenceCall", "Row", "ToolCall", "ToolSpec", "Turn",
           "parse_mapping", "read_dataset", "read_records", "row_inputs", "rows_from_records"]
