"""The injection patterns' compiled programs, kept between processes like Python's bytecode.

Compiling the patterns takes 0.1-0.25 s of CPU (CPython's ``re`` parses and generates code in
pure Python), which every run that scans its rows paid on its first row. What ``re.compile``
makes of a pattern is a program (a list of integers that CPython's ``_sre`` runs) that
depends only on the pattern, the flags and the Python. :class:`PatternStore` keeps the
programs in one file per Python under the user cache folder, as ``__pycache__`` keeps
bytecode; a later process builds each pattern from its program (``_sre.compile``, which checks
it) in microseconds. The Pattern is the one ``re.compile`` gives: CPython's Patterns compare
equal only when their pattern, flags and program are equal, which
tests/test_injection_stored_patterns.py checks for every pattern.

A file that is missing, unreadable, from another Python or damaged (its SHA-256 is checked),
a cache folder that cannot be written, or another Python implementation: the patterns are
compiled as before. The store can make a scan start faster, never scan differently.

Example:
    >>> import re, tempfile
    >>> from pathlib import Path
    >>> path = Path(tempfile.mkdtemp()) / "p.bin"
    >>> first = PatternStore(path, re.IGNORECASE)
    >>> first.pattern(r"rate\\s+this") == re.compile(r"rate\\s+this", re.IGNORECASE)
    True
    >>> first.save([r"rate\\s+this"]); path.exists()
    True
    >>> again = PatternStore(path, re.IGNORECASE)
    >>> again.stored, again.pattern(r"rate\\s+this").search("Rate  THIS").group()
    (1, 'Rate  THIS')
"""

from __future__ import annotations

import hashlib
import importlib
import marshal
import os
import re
import sys
import tempfile
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import platformdirs

__all__ = ["PatternStore", "default_store_path"]

Program = tuple[int, list[int], int, dict[str, int], tuple[str | None, ...]]
"""What ``_sre.compile`` takes after the pattern: flags, code, groups, group index, names."""


def _engine() -> tuple[Any, Any, Any] | None:
    """CPython's ``re`` internals (``_sre``, ``re._parser``, ``re._compiler``), or None on
    another implementation."""
    if sys.implementation.name != "cpython":
        return None
    try:
        sre, parser, compiler = (importlib.import_module(m)
                                 for m in ("_sre", "re._parser", "re._compiler"))
    except ImportError:
        return None
    return sre, parser, compiler


def default_store_path() -> Path:
    """``<user cache dir>/assay/injection-patterns-<python tag>.bin``, one per Python version
    (the file says which build wrote it: another build's is not read).

    Example:
        >>> default_store_path().name.startswith("injection-patterns-")
        True
    """
    tag = sys.implementation.cache_tag
    return Path(platformdirs.user_cache_dir("assay")) / f"injection-patterns-{tag}.bin"


class PatternStore:
    """Patterns compiled with ``flags``, from the programs stored at ``path`` when they are
    there (``stored`` says how many were read), compiled and remembered when not; :meth:`save`
    writes the file when something was compiled."""

    def __init__(self, path: Path, flags: int) -> None:
        self.path, self.flags = path, int(flags)
        self._engine = _engine()
        self._programs: dict[str, Program] = self._read() if self._engine else {}
        self.stored = len(self._programs)
        self._new = False

    def pattern(self, source: str) -> re.Pattern[str]:
        """``re.compile(source, flags)``, built from its stored program when there is one."""
        if self._engine is None:
            return re.compile(source, self.flags)
        sre, parser, compiler = self._engine
        program = self._programs.get(source)
        if program is not None:
            try:
                return sre.compile(source, *program)  # type: ignore[no-any-return]
            except (RuntimeError, TypeError, ValueError):  # refused: compile it afresh
                pass
        try:  # what re._compiler.compile does, keeping the program
            parsed = parser.parse(source, self.flags)
            names: list[str | None] = [None] * parsed.state.groups
            for name, index in parsed.state.groupdict.items():
                names[index] = name
            program = (self.flags | parsed.state.flags,
                       [int(c) for c in compiler._code(parsed, self.flags)],
                       parsed.state.groups - 1, dict(parsed.state.groupdict), tuple(names))
            compiled = sre.compile(source, *program)
        except re.error:
            raise
        except Exception:  # noqa: BLE001 - re's internals changed: compile as re does
            self._engine = None
            return re.compile(source, self.flags)
        self._programs[source] = program
        self._new = True
        return compiled

    def save(self, sources: Iterable[str]) -> None:
        """Write the programs of ``sources`` (those this store has) if any was compiled here,
        in one replace (a reader never sees half a file); a failure to write is ignored."""
        if not self._new or self._engine is None:
            return
        programs = {s: self._programs[s] for s in sources if s in self._programs}
        body = marshal.dumps({"python": sys.version, "flags": self.flags, "programs": programs})
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            fd, temporary = tempfile.mkstemp(dir=self.path.parent, prefix=".patterns-")
            with os.fdopen(fd, "wb") as f:
                f.write(hashlib.sha256(body).digest() + body)
            os.replace(temporary, self.path)
        except OSError:
            return
        self._new = False

    def _read(self) -> dict[str, Program]:
        try:
            data = self.path.read_bytes()
        except OSError:
            return {}
        digest, body = data[:32], data[32:]
        if hashlib.sha256(body).digest() != digest:
            return {}
        try:
            stored = marshal.loads(body)
        except (EOFError, ValueError, TypeError):
            return {}
        if (not isinstance(stored, dict) or stored.get("python") != sys.version
                or stored.get("flags") != self.flags):
            return {}
        return {s: (f, code, groups, index, tuple(names))
                for s, (f, code, groups, index, names) in stored["programs"].items()}
