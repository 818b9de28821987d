"""A dataset file as text (a :class:`Source`, defined beside the Reader protocol in ``_reader``):
its reader, encoding and compression, found from its name and bytes.

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
import zlib
from pathlib import Path

from ..errors import DataError
from ._reader import Reader, Source
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
