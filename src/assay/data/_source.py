"""A dataset file as text: its reader, encoding and compression, found from its name and bytes.

The reader is the registered one for the file name's suffix (``.gz`` after it is gzip), else
the first whose ``sniff`` claims the file's first characters (see ``_readers``). UTF-8 (with or
without a BOM), UTF-16 and UTF-32 (with a BOM, or UTF-16 without one) and gzip (``.jsonl.gz``,
or any file starting with gzip's magic bytes) are read; other files get one problem that names
what the file looks like and how to convert it.

Example:
    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "d.jsonl"
    >>> _ = p.write_bytes('{"answer": "café"}\\r\\n'.encode("utf-16"))
    >>> src = open_source(p)
    >>> src.reader.name, src.encoding
    ('jsonl', 'utf-16')
    >>> list(src.lines([]))
    [(1, '{"answer": "café"}\\r\\n')]
"""

from __future__ import annotations

import gzip
import io
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from ..errors import DataError
from ._reader import Reader
from ._readers import READERS

__all__ = ["Source", "no_rows_problem", "open_source"]

_PARQUET_FIX = ("convert it to JSONL, e.g. with pandas: "
                "pd.read_parquet(IN).to_json(OUT, orient='records', lines=True)")
_BOMS = ((b"\x00\x00\xfe\xff", "utf-32"), (b"\xff\xfe\x00\x00", "utf-32"),
         (b"\xef\xbb\xbf", "utf-8-sig"), (b"\xff\xfe", "utf-16"), (b"\xfe\xff", "utf-16"))
_MAGIC = ((b"PK\x03\x04", "a ZIP archive (an Excel .xlsx workbook is one)",
           "save the sheet as CSV (UTF-8), or unzip the archive"),
          (b"PAR1", "a Parquet file", _PARQUET_FIX),
          (b"SQLite format 3\x00", "an SQLite database", "export the rows as JSONL or CSV"),
          (b"%PDF", "a PDF document", "export the rows as JSONL or CSV"),
          (b"BZh", "bzip2-compressed", "decompress it first: bunzip2 FILE (gzip is read as is)"),
          (b"\xfd7zXZ\x00", "xz-compressed", "decompress it first: unxz FILE (gzip is read as is)"),
          (b"(\xb5/\xfd", "zstd-compressed", "decompress it first: unzstd FILE (gzip is read as is)"),
          (b"7z\xbc\xaf", "a 7-Zip archive", "extract it first"))
_HEAD = 8192
_CONTROL = bytes(b for b in range(32) if b not in b"\t\n\r\f\x0b\x1b")


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


def open_source(path: Path) -> Source:
    """Find how to read ``path``.

    Raises:
        DataError: the path is missing, a folder, unreadable, binary or of an unknown kind;
            the message says what it is and how to fix it.
    """
    if path.is_dir():
        raise DataError([(f"{path}: is a folder, not a dataset file. Fix: give one "
                         f"{'/'.join(READERS.suffixes())} file in it.")])
    if not path.exists():
        raise DataError([f"{path}: file not found. Fix: check the path."])
    try:
        with path.open("rb") as f:
            head = f.read(_HEAD)
        gzipped = head[:2] == b"\x1f\x8b"
        if gzipped:
            with gzip.open(path, "rb") as g:
                head = g.read(_HEAD)
    except PermissionError:
        raise DataError([(f"{path}: permission denied. Fix: make it readable, e.g. "
                         f"chmod u+r {path}.")]) from None
    except (OSError, EOFError, zlib.error) as e:
        raise DataError([(f"{path}: cannot be read ({e}). Fix: check the file"
                         f"{', e.g. gzip -t ' + str(path) if gzipped else ''}.")]) from None
    encoding = _encoding(path, head)
    return Source(path, _reader(path, head, encoding), encoding, gzipped)


def no_rows_problem(path: Path) -> str:
    """What to say about a file that gave no rows and no other problem."""
    try:
        empty = path.stat().st_size == 0
    except OSError:
        empty = False
    if empty:
        return f"{path}: the file is empty (0 bytes). Fix: add at least one row."
    return (f"{path}: the file has no rows (only blank lines, or only a CSV header). "
            "Fix: add at least one row.")


def _encoding(path: Path, head: bytes) -> str:
    for bom, name in _BOMS:
        if head.startswith(bom):
            return name
    for magic, what, fix in _MAGIC:
        if head.startswith(magic):
            raise DataError([(f"{path}: this is {what}, not a text file of a format read "
                             f"here ({_suffixes()}). Fix: {fix}.")])
    sample = head[: len(head) // 2 * 2]
    if len(sample) >= 4 and sample[1::2].count(0) > 0.4 * len(sample) / 2 > sample[::2].count(0):
        return "utf-16-le"  # UTF-16 without a BOM: ASCII text with a NUL after every byte
    if len(sample) >= 4 and sample[::2].count(0) > 0.4 * len(sample) / 2 > sample[1::2].count(0):
        return "utf-16-be"
    controls = sum(head.count(c) for c in _CONTROL)
    if head and controls > max(3, 0.02 * len(head)):
        raise DataError([(f"{path}: does not look like text ({controls} control bytes in its "
                         f"first {len(head):,}). Fix: give a UTF-8 text file ({_suffixes()}); "
                         f"`file {path}` says what it is.")])
    return "utf-8"


def _reader(path: Path, head: bytes, encoding: str) -> Reader:
    suffixes = [s.lower() for s in path.suffixes]
    if suffixes and suffixes[-1] == ".gz":
        suffixes.pop()
    if suffixes and (reader := READERS.for_suffix(suffixes[-1])) is not None:
        return reader
    text = head.decode(encoding, errors="ignore").lstrip("\ufeff \t\r\n")
    if text and (reader := READERS.sniff(text)) is not None:
        return reader
    got = "".join(path.suffixes) or "no extension"
    fix = (f"{_PARQUET_FIX}; or install a reader for it (docs/plugins.md)"
           if suffixes and suffixes[-1] in (".parquet", ".pq") else
           "rename it to what it holds, e.g. data.jsonl for one JSON object per line, data.csv "
           "for a CSV; for another format, install or register a reader (docs/plugins.md)")
    problems = [(f"{path}: unknown kind of file ({got}). Must be one of {_suffixes()}. Fix: "
                 f"{fix}.")]
    problems += [f"(a reader plugin was skipped) {why}" for why in READERS.refused.values()]
    raise DataError(problems)


def _suffixes() -> str:
    """The suffixes read, for a message: ``.jsonl, .ndjson, ... (optionally .gz)``."""
    return f"{', '.join(READERS.suffixes())} (optionally .gz)"


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
