"""TSV (``.tsv``): tab-separated values with a header row, read as CSV is (see ``_csv``).

Example:
    >>> import tempfile, pathlib
    >>> from assay.data import Source
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "d.tsv"
    >>> _ = p.write_text("id\\tanswer\\na\\tx, y\\n")
    >>> list(TSV.read(Source(p, TSV, "utf-8"), []))
    [(2, {'id': 'a', 'answer': 'x, y'})]
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ._csv import csv_records
from ._source import Source

__all__ = ["TSV", "TsvReader"]


class TsvReader:
    """The ``tsv`` reader: tab-separated values with a header row."""

    name = "tsv"
    suffixes = (".tsv",)
    unit = "line"
    #: Its values are text decoded strictly from the file: no lone surrogate can be there.
    checks_surrogates = True

    def read(self, source: Source, problems: list[str]) -> Iterator[tuple[int, dict[str, Any]]]:
        """(line, record) for each row of ``source``; ``line`` is the row's last line."""
        return csv_records(source, problems, delimiter="\t")


TSV = TsvReader()
