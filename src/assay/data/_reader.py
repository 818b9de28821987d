"""What a reader is: the :class:`Reader` protocol every data format meets (see ``_readers``).

Example:
    >>> class Lines:
    ...     name = "lines"
    ...     suffixes = (".lines",)
    ...     def read(self, source, problems):
    ...         return ((n, {"answer": text.strip()}) for n, text in source.lines(problems))
    >>> reader_gaps(Lines()), reader_unit(Lines())
    ([], 'line')
    >>> reader_gaps(object())[0]
    'a name that is a Python identifier (got None)'
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from ._source import Source

__all__ = ["SUFFIX", "Reader", "reader_gaps", "reader_unit"]

#: What one suffix looks like (lowercased): a dot, then letters, digits, ``_``, ``+`` or ``-``.
SUFFIX = re.compile(r"\.[a-z0-9_+-]+")


class Reader(Protocol):
    """A data format: what every reader has.

    Optional: ``unit`` (``"line"``, the default, or ``"item"``: how messages name a record's
    position), ``sniff(text) -> bool`` (whether a file with no known suffix, whose text
    starts with ``text``, is of this format) and ``checks_surrogates`` (``True`` when its
    records cannot hold a lone surrogate, or it reports them itself: every string of every
    record is then not searched for one).
    """

    @property
    def name(self) -> str:
        """The reader's name (a plugin's entry point has the same name); an identifier."""
        ...

    @property
    def suffixes(self) -> Sequence[str]:
        """The file name endings it reads, with their dot: ``(".jsonl", ".ndjson")``."""
        ...

    def read(self, source: Source, problems: list[str]) -> Iterator[tuple[int, dict[str, Any]]]:
        """(line number, record) for each record of ``source``; every problem is added to
        ``problems`` (file, line, field and fix) and its record skipped."""
        ...


def reader_unit(reader: Reader) -> str:
    """How messages name a record's position in ``reader``'s files: ``line`` or ``item``."""
    unit = getattr(reader, "unit", "line")
    return unit if isinstance(unit, str) and unit else "line"


def reader_gaps(obj: object) -> list[str]:
    """What ``obj`` lacks of a reader (empty when it is one)."""
    gaps = []
    name = getattr(obj, "name", None)
    if not isinstance(name, str) or not name.isidentifier():
        gaps.append(f"a name that is a Python identifier (got {name!r})")
    suffixes = getattr(obj, "suffixes", None)
    if (not isinstance(suffixes, (tuple, list)) or not suffixes
            or not all(isinstance(s, str) and SUFFIX.fullmatch(s.lower()) for s in suffixes)
            or any(s.lower() == ".gz" for s in suffixes)):
        gaps.append(f"suffixes such as ('.txt',): one dot each, not '.gz' (got {suffixes!r})")
    if not callable(getattr(obj, "read", None)):
        gaps.append("a read(source, problems) method")
    return gaps
