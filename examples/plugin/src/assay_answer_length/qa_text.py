"""An example data format: ``.qa`` files, one row per line, ``question<TAB>answer<TAB>ground
truth`` (the ground truth may be left out); blank lines and ``#`` comments are skipped.

Example:
    >>> import pathlib, tempfile
    >>> from assay.data import Source
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "capitals.qa"
    >>> _ = path.write_text("# capitals\\nCapital of France?\\tParis\\tParis\\nno tab here\\n")
    >>> problems = []
    >>> list(QaTextReader().read(Source(path, QaTextReader(), "utf-8"), problems))
    [(2, {'question': 'Capital of France?', 'answer': 'Paris', 'ground_truth': 'Paris'})]
    >>> print(problems[0])  # doctest: +ELLIPSIS
    /.../capitals.qa line 3: 1 field, expected 2 or 3 (question, answer, ground truth)...
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from assay.data import Source

__all__ = ["QaTextReader"]

FIELDS = ("question", "answer", "ground_truth")


class QaTextReader:
    """Reads ``.qa`` files (also gzipped, ``.qa.gz``: assay decompresses and decodes)."""

    name = "qa_text"          # the entry point's name
    suffixes = (".qa",)       # the file name endings it reads

    def read(self, source: Source, problems: list[str]) -> Iterator[tuple[int, dict[str, Any]]]:
        for line, text in source.lines(problems):
            text = text.rstrip("\r\n")
            if not text.strip() or text.startswith("#"):
                continue
            values = text.split("\t")
            if not 2 <= len(values) <= 3:
                count = f"{len(values)} field{'s' if len(values) != 1 else ''}"
                problems.append(f"{source.path} line {line}: {count}, expected 2 or 3 (question, "
                                "answer, ground truth). Fix: separate them with one tab each.")
                continue
            yield line, dict(zip(FIELDS, values))
