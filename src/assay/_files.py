"""Files assay writes: whole or not at all, and a write that fails said in one line.

:func:`atomic_write` (and :func:`atomic_path`, for a library that writes a path itself)
writes into a temporary file in the target's folder and renames it into place only when the
block ends without error, so an export, a report or a summary is never left half-written by
a full disk or a Ctrl-C; the temporary file is removed on failure. :func:`write_error` turns
the ``OSError`` of a failed write into an :class:`~assay.errors.OutputError` whose one-line
message names what was written, the path, the cause and the fix; :func:`writing` does it for a
block.

Example:
    >>> import errno, tempfile, pathlib
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "out.txt"
    >>> with atomic_write(path, what="the example") as f:
    ...     _ = f.write("whole")
    >>> path.read_text(), [p.name for p in path.parent.iterdir()]
    ('whole', ['out.txt'])
    >>> full = OSError(errno.ENOSPC, "No space left on device")
    >>> print(write_error(full, "the report", "/tmp/r.html"))  # doctest: +NORMALIZE_WHITESPACE
    Cannot write the report /tmp/r.html: no space left on device. Fix: free space on that disk
    (df -h /tmp), then run the command again.
"""

from __future__ import annotations

import errno as errnos
import json
import os
import secrets
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any

from .errors import OutputError

__all__ = ["DISK_FULL", "NOT_WRITABLE", "atomic_path", "atomic_write", "beside", "is_write_failure",
           "write_error", "writing"]

#: A full disk or quota, or a file grown past what the file system allows.
DISK_FULL = frozenset({errnos.ENOSPC, errnos.EDQUOT, errnos.EFBIG})
#: A read-only file system, or no permission.
NOT_WRITABLE = frozenset({errnos.EROFS, errnos.EACCES, errnos.EPERM})

AGAIN = "run the command again"


def is_write_failure(e: BaseException) -> bool:
    """Whether ``e`` is an ``OSError`` of the kind a write meets on a full or read-only disk.

    Example:
        >>> is_write_failure(OSError(errnos.EDQUOT, "quota")), is_write_failure(KeyError())
        (True, False)
    """
    return isinstance(e, OSError) and e.errno in DISK_FULL | NOT_WRITABLE


def write_error(e: OSError, what: str, path: str | Path | None, *,
                then: str = AGAIN) -> OutputError:
    """The one-line :class:`OutputError` for writing ``what`` to ``path`` (``then``: what to
    do once it is fixed, e.g. ``rerun with --resume``).

    Example:
        >>> print(write_error(PermissionError(errnos.EACCES, "Permission denied"), "the export",
        ...                   "/r/x.csv"))
        Cannot write the export /r/x.csv: permission denied. Fix: make /r writable, or write elsewhere, then run the command again.
    """
    path = path if path is not None else e.filename
    cause = os.strerror(e.errno).lower() if e.errno else (str(e) or type(e).__name__)
    folder = Path(path).parent if path is not None else None
    where = f" {path}" if path is not None else ""
    if e.errno in DISK_FULL:
        fix = f"free space on that disk{f' (df -h {folder})' if folder else ''}"
    elif e.errno in NOT_WRITABLE:
        fix = f"make {folder or 'the folder'} writable, or write elsewhere"
    else:
        fix = "check the disk"
    return OutputError(f"Cannot write {what}{where}: {cause}. Fix: {fix}, then {then}.",
                       path=str(path) if path is not None else None, errno=e.errno)


@contextmanager
def writing(what: str, path: str | Path | None, *, then: str = AGAIN) -> Iterator[None]:
    """Raise an ``OSError`` of the block as the :class:`OutputError` of :func:`write_error`.

    Example:
        >>> with writing("the summary", "/x/summary.json"):
        ...     raise OSError(errnos.ENOSPC, "No space left on device")
        Traceback (most recent call last):
        ...
        assay.errors.OutputError: Cannot write the summary /x/summary.json: no space left ...
    """
    try:
        yield
    except OSError as e:
        raise write_error(e, what, path, then=then) from e


@contextmanager
def atomic_path(path: str | Path, *, what: str, then: str = AGAIN) -> Iterator[Path]:
    """A temporary path beside ``path`` to write; renamed to ``path`` when the block ends
    without error, removed when it fails. A ``path`` that exists and is no regular file
    (``/dev/stdout``, a FIFO) is written directly: it cannot be replaced.

    Raises:
        OutputError: the folder or the file could not be written (see :func:`write_error`).
    """
    path = Path(path)
    if path.exists() and not path.is_file():
        with writing(what, path, then=then):
            yield path
        return
    tmp = path.with_name(f".{path.name}.{os.getpid()}-{secrets.token_hex(3)}.tmp")
    try:
        with writing(what, path, then=then):
            path.parent.mkdir(parents=True, exist_ok=True)
            yield tmp
            os.replace(tmp, path)
    finally:
        try:
            tmp.unlink(missing_ok=True)
        except OSError:  # a read-only file system refuses even this: nothing was written
            pass


@contextmanager
def atomic_write(path: str | Path, *, what: str, mode: str = "w", then: str = AGAIN,
                 **open_args: Any) -> Iterator[IO[Any]]:
    """A file open on a temporary path beside ``path`` (:func:`atomic_path`); text files are
    UTF-8 unless ``encoding`` says otherwise. ``open_args`` go to ``open``.

    Raises:
        OutputError: the folder or the file could not be written (see :func:`write_error`).
    """
    if "b" not in mode:
        open_args.setdefault("encoding", "utf-8")
    with atomic_path(path, what=what, then=then) as tmp, writing(what, path, then=then), \
            open(tmp, mode, **open_args) as f:
        yield f


def beside(path: str | Path, ending: str) -> Path:
    """The file next to ``path`` named by its stem and ``ending`` (a run's side files).

    Example:
        >>> beside("out/qa.jsonl", ".run.json").as_posix(), beside("qa", ".summary.json").name
        ('out/qa.run.json', 'qa.summary.json')
    """
    path = Path(path)
    return path.with_name(path.stem + ending)


def write_json(path: str | Path, data: Mapping[str, Any], what: str) -> None:
    """``data`` as indented JSON (UTF-8, one trailing newline), whole or not at all.

    Raises:
        OutputError: as :func:`atomic_write`.
    """
    with atomic_write(path, what=what) as f:
        f.write(json.dumps(data, ensure_ascii=False, indent=2) + "\n")
