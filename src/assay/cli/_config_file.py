"""Where a command's configured defaults come from: ``assay.toml`` (its top level) or the
``[tool.assay]`` table of ``pyproject.toml``, found from the current directory upwards.

The search looks in each directory, from the current one up: ``assay.toml`` first, then a
``pyproject.toml`` that has a ``[tool.assay]`` table (one without it is passed over, as ruff
does); it stops after the directory that holds ``.git`` (the repository's root), or at the
file system's root. Only the standard library is imported (``tomllib``): ``assay CMD -h``
stays fast.

Example:
    >>> import tempfile
    >>> root = Path(tempfile.mkdtemp())
    >>> _ = (root / "pyproject.toml").write_text('[tool.assay]\\njudge = "openai:gpt-4o"\\n')
    >>> (root / ".git").mkdir()
    >>> (root / "tests").mkdir()
    >>> config = find_config(root / "tests")
    >>> config.path.name, config.table, config.where("judge").endswith("pyproject.toml:2")
    ('pyproject.toml', {'judge': 'openai:gpt-4o'}, True)
    >>> config.key("run", "judge")
    'tool.assay.run.judge'
"""

from __future__ import annotations

import os
import re
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import ConfigError

__all__ = ["ConfigFile", "find_config", "line_of", "read_config"]

#: The table of pyproject.toml that holds assay's settings.
PYPROJECT_TABLE = ("tool", "assay")


@dataclass(frozen=True)
class ConfigFile:
    """One config file as read.

    Attributes:
        path: the file.
        table: the settings: ``assay.toml``'s top level, or ``pyproject.toml``'s
            ``[tool.assay]``.
        prefix: where ``table`` is in the file: ``()`` or ``("tool", "assay")``.
        text: the file's text (to find the line of a key).
    """

    path: Path
    table: dict[str, Any]
    prefix: tuple[str, ...]
    text: str

    def key(self, *keys: str) -> str:
        """A key's full dotted name in the file, e.g. ``tool.assay.run.judge``."""
        return ".".join((*self.prefix, *keys))

    def where(self, *keys: str) -> str:
        """``PATH:LINE`` of a key (``PATH`` alone when its line is not found); ``PATH`` as
        the current directory sees it."""
        line = line_of(self.text, (*self.prefix, *keys)) if self.prefix or keys else None
        return _shown_path(self.path) + (f":{line}" if line else "")


def find_config(start: Path) -> ConfigFile | None:
    """The config file that applies in ``start``: the nearest ``assay.toml``, or
    ``pyproject.toml`` with ``[tool.assay]``, from ``start`` up to the repository's root
    (the directory holding ``.git``) or the file system's root; ``None`` when there is none.

    Raises:
        ConfigError: a file on the way that does not parse (its path, line and column).
    """
    for folder in (start, *start.parents):
        for name in ("assay.toml", "pyproject.toml"):
            candidate = folder / name
            if candidate.is_file():
                config = read_config(candidate, explicit=False)
                if config is not None:
                    return config
        if (folder / ".git").exists():  # a directory, or a worktree's or submodule's file
            return None
    return None


def read_config(path: Path, *, explicit: bool = True) -> ConfigFile | None:
    """The settings of ``path``: ``[tool.assay]`` of a ``pyproject.toml``, the top level of
    any other file. A ``pyproject.toml`` without ``[tool.assay]`` is ``None`` when found by
    the search, an error when named (``explicit``).

    Raises:
        ConfigError: the file cannot be read, does not parse (``PATH:LINE:COLUMN``), or was
            named and has no settings table.
    """
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise ConfigError(f"{_shown_path(path)}: cannot read the config file ({e}). Fix the "
                          "file, or name another with --config FILE (or ignore it: "
                          "--no-config).") from None
    try:
        document = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        at = re.search(r"\(at line (\d+), column (\d+)\)", str(e))
        where = (f":{at[1]}:{at[2]}" if at else f":{len(text.splitlines()) or 1}"
                 if "end of document" in str(e) else "")
        message = re.sub(r"\s*\((at line \d+, column \d+|at end of document)\)", "", str(e))
        raise ConfigError(f"{_shown_path(path)}{where}: does not parse as TOML: {message}. Fix "
                          "the file (assay reads its settings from it), or run with "
                          "--no-config.") from None
    path = path.resolve()  # recorded in the run as it is: absolute
    if path.name != "pyproject.toml":
        return ConfigFile(path, document, (), text)
    table: Any = document
    for part in PYPROJECT_TABLE:
        table = table.get(part) if isinstance(table, dict) else None
    if isinstance(table, dict):
        return ConfigFile(path, table, PYPROJECT_TABLE, text)
    if explicit or table is not None:
        raise ConfigError(f"{_shown_path(path)}: has no [tool.assay] table"
                          + (" (tool.assay is not a table)" if table is not None else "")
                          + ". Fix: add one, e.g. [tool.assay] then judge = \"local\".")
    return None


_HEADER = re.compile(r"^\s*\[\[?([^\[\]]+)\]\]?\s*(#.*)?$")
_KEY_PART = r"""(?:[A-Za-z0-9_\-]+|"[^"]*"|'[^']*')"""
_KEY = re.compile(rf"^\s*({_KEY_PART}(?:\s*\.\s*{_KEY_PART})*)\s*=")


def _dotted(key: str) -> tuple[str, ...]:
    """The parts of a dotted TOML key, quotes taken off."""
    parts = re.findall(_KEY_PART, key)
    return tuple(p[1:-1] if p[:1] in "\"'" else p for p in parts)


def line_of(text: str, keys: tuple[str, ...]) -> int | None:
    """The line (from 1) where ``keys`` is set: its table's header, or the line of the key,
    or of the inline table or dotted key that holds it; ``None`` when not found.

    Example:
        >>> text = '[tool.assay]\\njudge = "local"\\nfail_under = {groundedness = "x"}\\n'
        >>> line_of(text, ("tool", "assay", "fail_under", "groundedness"))
        3
        >>> line_of(text, ("tool", "assay")), line_of(text, ("tool", "assay", "nope"))
        (1, None)
    """
    current: tuple[str, ...] = ()
    for number, line in enumerate(text.splitlines(), 1):
        if header := _HEADER.match(line):
            current = _dotted(header[1])
            if current[:len(keys)] == keys:
                return number
        elif key := _KEY.match(line):
            full = (*current, *_dotted(key[1]))
            shorter = min(len(full), len(keys))
            if shorter > len(current) and full[:shorter] == keys[:shorter]:
                return number
    return None


def _shown_path(path: Path) -> str:
    """``path`` relative to the current directory when it is under it, else absolute."""
    try:
        relative = os.path.relpath(path)
    except ValueError:  # another drive (Windows)
        return str(path)
    return relative if not relative.startswith("..") else str(path.resolve())
