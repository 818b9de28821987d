"""A dataset that can be read only once (``-`` for standard input, ``/dev/stdin``, a FIFO, a
process substitution such as ``<(zcat data.jsonl.gz)``) is copied once to a temporary file,
which is then read like any dataset file: a run reads its dataset twice (checked whole before
the first judge call, then streamed), and a pipe read a second time gives nothing or waits
forever.

The copy is made on disk (``TMPDIR``), a block at a time, so memory stays flat however much is
piped in; it is removed when the process ends. Standard input is copied once per process
(``-`` or ``/dev/stdin`` read again gives the same copy: it has nothing more to give); a FIFO
is copied on each read, as a file would be read again. Standard input that is a terminal
(nothing piped in) is refused before reading, with the fix.

Example:
    >>> import pathlib, tempfile
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "qa.jsonl"
    >>> _ = p.write_text('{"answer": "a"}\\n')
    >>> readable_copy(p) == p  # a regular file is read where it is
    True
"""

from __future__ import annotations

import atexit
import os
import shutil
import stat
import sys
import tempfile
from contextlib import nullcontext
from pathlib import Path

from .._files import writing
from ..errors import DataError

__all__ = ["STDIN", "display_name", "display_problems", "readable_copy"]

#: The dataset name that means standard input.
STDIN = "-"

_STDIN_NAMES = (STDIN, "/dev/stdin")
_stdin_copy: dict[str, Path] = {}  # standard input's copy, for this process


def readable_copy(path: str | Path) -> Path:
    """``path`` itself when it can be read more than once (a regular file; also a folder or a
    missing path, which the reader reports); else a copy of what it gives, made once.

    Raises:
        DataError: ``-`` with standard input a terminal (nothing piped in).
        OutputError: the copy could not be written (``TMPDIR`` is full).
    """
    name = str(path)
    if name != STDIN:
        try:
            mode = os.stat(name).st_mode
        except OSError:
            return Path(path)
        if stat.S_ISREG(mode) or stat.S_ISDIR(mode):
            return Path(path)
    if name in _STDIN_NAMES and "stdin" in _stdin_copy:
        return _stdin_copy["stdin"]
    if name == STDIN and sys.stdin is not None and sys.stdin.isatty():
        raise DataError([(f"{display_name(STDIN)}: the dataset is standard input, but nothing is piped in "
                          "(it is a terminal). Fix: pipe the rows in, e.g. "
                          "`cat data.jsonl | assay run -`, or give the file's path.")])
    folder = Path(tempfile.mkdtemp(prefix="assay-data-"))
    atexit.register(shutil.rmtree, folder, True)
    # The copy keeps the name's extension (a FIFO named rows.csv is read as CSV); a pipe
    # without one is read as JSONL or a JSON array, by its first character.
    copy = folder / ("stdin" if name in _STDIN_NAMES else Path(name).name)
    source = nullcontext(sys.stdin.buffer) if name == STDIN else open(name, "rb")  # noqa: SIM115
    with source as piped, writing("a copy of the piped dataset", copy,
                                  then="run the command again (or give the dataset as a "
                                  "file)"), copy.open("wb") as out:
        shutil.copyfileobj(piped, out, 1 << 20)
    if name in _STDIN_NAMES:
        _stdin_copy["stdin"] = copy
    return copy


def display_name(path: str | Path) -> str:
    """How messages name a dataset: ``<stdin>`` for ``-``, else as given.

    Example:
        >>> display_name("-"), display_name("/dev/fd/63")
        ('<stdin>', '/dev/fd/63')
    """
    return "<stdin>" if str(path) == STDIN else str(path)


def display_problems(e: DataError, copy: Path, name: str) -> DataError:
    """``e`` with the copy's path in its messages written as the name the user gave.

    Example:
        >>> e = DataError(["/tmp/assay-data-x/stdin line 2: bad JSON."])
        >>> display_problems(e, Path("/tmp/assay-data-x/stdin"), "<stdin>").problems
        ['<stdin> line 2: bad JSON.']
    """
    if str(copy) == name:
        return e
    problems = [p.replace(str(copy), name) for p in e.problems]
    return DataError(problems, source=e.source.replace(str(copy), name))
