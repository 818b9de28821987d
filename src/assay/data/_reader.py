"""What a reader is and what it reads: the :class:`Reader` protocol every data format meets
(see ``_readers``), and the :class:`Source` it is given (a dataset file as text; ``_source``
finds a file's reader, encoding and compression). The two name each other, so they live here
together.

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

import gzip
import io
import re
import zlib
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, Protocol

__all__ = ["SUFFIX", "Reader", "Source", "reader_gaps", "reader_unit"]

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


@dataclass(frozen=True)
class Source:
    """A readable dataset file, as a reader gets it: its ``path``, the ``reader`` of its
    format, its text ``encoding`` and whether it is gzip-compressed. A reader takes the text
    through :meth:`lines` (one at a time) or :meth:`text` (whole); both decompress and decode.
    """

    path: Path
    reader: Reader
    encoding: str
    gzipped: bool = False

    def lines(self, problems: list[str]) -> Iterator[tuple[int, str]]:
        """(line number, line with its ``"\\n"``) of the file; only ``"\\n"`` ends a line.

        Bytes that do not decode are added to ``problems`` (the first with its line, column and
        what the file looks like, then a count of the others) and their lines skipped.
        """
        if self.encoding.startswith("utf-8"):
            yield from self._utf8_lines(problems)
            return
        lineno = 0
        try:
            with self._open() as raw, io.TextIOWrapper(raw, encoding=self.encoding,
                                                       errors="strict", newline="\n") as f:
                for lineno, line in enumerate(f, start=1):
                    yield lineno, line
        except UnicodeDecodeError as e:
            problems.append(f"{self.path} line {lineno + 1}: not valid {self.encoding.upper()} "
                            f"({e.reason}). Fix: save the file again as UTF-8.")
        except (OSError, EOFError, zlib.error) as e:
            problems.append(self._read_failed(e, lineno + 1))

    def text(self, problems: list[str]) -> str | None:
        """The whole file as text, or ``None`` (with the problem added) when it does not decode."""
        parts: list[str] = []
        before = len(problems)
        for _, line in self.lines(problems):
            parts.append(line)
        return None if len(problems) > before else "".join(parts)

    def _utf8_lines(self, problems: list[str]) -> Iterator[tuple[int, str]]:
        bad: list[int] = []
        lineno = 0
        try:
            with self._open() as f:
                for lineno, raw in enumerate(f, start=1):
                    if lineno == 1 and raw.startswith(b"\xef\xbb\xbf"):
                        raw = raw[3:]
                    try:
                        yield lineno, raw.decode("utf-8")
                    except UnicodeDecodeError as e:
                        if not bad:
                            problems.append(_not_utf8(self.path, lineno, raw, e))
                        bad.append(lineno)
        except (OSError, EOFError, zlib.error) as e:
            problems.append(self._read_failed(e, lineno + 1))
        if len(bad) > 1:
            problems.append(f"{self.path}: {len(bad) - 1} more lines are not UTF-8 (lines "
                            f"{', '.join(map(str, bad[1:6]))}{', ...' if len(bad) > 6 else ''}). "
                            "Fix: convert the whole file to UTF-8 (see above).")

    def _open(self) -> IO[bytes] | gzip.GzipFile:
        if self.gzipped:
            return gzip.open(self.path, "rb")
        return self.path.open("rb")

    def _read_failed(self, e: BaseException, line: int) -> str:
        if self.gzipped:
            return (f"{self.path} line {line}: the gzip data is corrupt or cut short ({e}). "
                    f"Fix: check it with gzip -t {self.path}, or compress it again.")
        return f"{self.path} line {line}: cannot be read ({e}). Fix: check the file and the disk."


def _not_utf8(path: Path, lineno: int, raw: bytes, e: UnicodeDecodeError) -> str:
    column = len(raw[: e.start].decode("utf-8", errors="replace")) + 1
    looks, codec = _guess(raw)
    sample = raw[max(0, e.start - 12): e.start + 12].decode(codec, errors="replace").strip()
    return (f"{path} line {lineno}, column {column}: not UTF-8 (byte 0x{raw[e.start]:02X}). "
            f"It looks like {looks} ({sample!r}). Fix: convert the file to UTF-8, e.g. "
            f"iconv -f {codec} -t utf-8 {path} > {path.stem}.utf8{path.suffix}")


def _guess(raw: bytes) -> tuple[str, str]:
    """(a name for the encoding ``raw`` looks like, its iconv name)."""
    try:
        text = raw.decode("gb18030")
        if sum("\u4e00" <= c <= "\u9fff" for c in text) >= 2:
            return "GBK/GB18030 (Chinese)", "gb18030"
    except UnicodeDecodeError:
        pass
    try:
        raw.decode("cp1252")
        return "Windows-1252 / Latin-1", "cp1252" if any(0x80 <= b < 0xA0 for b in raw) else "latin1"
    except UnicodeDecodeError:
        return "Latin-1", "latin1"
