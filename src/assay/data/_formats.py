"""assay's own data formats, each registered through :func:`register_reader`, the call a
plugin's code uses (a plugin distribution's readers join through the ``assay.readers``
entry-point group instead). The order is the order of the unknown-suffix message and of
sniffing a file without a known suffix: ``{`` is JSON Lines, ``[`` a JSON array.

Example:
    >>> [reader.name for reader in BUILT_IN_READERS]
    ['jsonl', 'json', 'csv', 'tsv']
"""

from __future__ import annotations

from ._csv import CSV
from ._json import JSON_ARRAY
from ._jsonl import JSONL
from ._readers import register_reader
from ._tsv import TSV

__all__ = ["BUILT_IN_READERS"]

BUILT_IN_READERS = (JSONL, JSON_ARRAY, CSV, TSV)

for _reader in BUILT_IN_READERS:
    register_reader(_reader)
